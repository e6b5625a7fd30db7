// Unknown cost is never zero: a total over tries some of whose figures are unknown (null) is the sum
// of the known ones with how many were known — figureTotal, the record's cost (providerReportedTries,
// estimatedTries, legacyLedgerTries beside each sum), a merge of shard records alike. Property rows
// over random mixes of known and unknown figures; a record whose every try has no provider figure
// says 0 tries of it, so no reader can take its `0` for $0.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { campaignRecordIssues, figureTotal, mergeCampaignRecords } from '../src/record.ts';

import type { AttemptOutcome } from '../src/execute.ts';
import type { CampaignRecord } from '../src/record.ts';
import type { TryCost } from '../src/try-outcome.ts';

const figure = fc.option(fc.integer({ min: 0, max: 1_000_000_000 }), { nil: null });

describe('figureTotal: a total over figures that may be unknown', () => {
  it('is the sum of the known figures, with how many were known and unknown (property)', () => {
    fc.assert(
      fc.property(fc.array(figure), (figures) => {
        const known = figures.filter((value): value is number => value !== null);
        expect(figureTotal(figures)).toEqual({
          nanodollars: known.reduce((sum, value) => sum + value, 0),
          known: known.length,
          unknown: figures.length - known.length,
        });
      }),
    );
  });

  it('an unknown figure is not a zero: all unknown is 0 known, a zero figure is 1 known', () => {
    expect(figureTotal([null, null])).toEqual({ nanodollars: 0, known: 0, unknown: 2 });
    expect(figureTotal([0, null])).toEqual({ nanodollars: 0, known: 1, unknown: 1 });
  });
});

const digest = (c: string): string => `sha256:${c.repeat(64)}`;

/** A one-shard record of these attempts' costs (one try each), as merge recomputes it. */
function recordOf(costs: readonly TryCost[]): CampaignRecord {
  const plan = costs.map((_, n) => ({
    attemptId: `att_${n}`,
    laneId: 'lane',
    caseId: `case_${n}`,
    index: 1,
    shard: 1,
  }));
  const attempts: AttemptOutcome[] = plan.map((entry, n) => ({
    ...entry,
    disposition: 'passed',
    reason: null,
    infrastructureFailure: null,
    tries: [
      {
        attemptId: entry.attemptId,
        exitCode: 0,
        signal: null,
        durationMs: 3,
        infrastructureFailure: null,
        ingest: 'inserted',
        cost: costs[n] as TryCost,
      },
    ],
    finalAttemptId: entry.attemptId,
    resumed: false,
    cost: costs[n] as TryCost,
  }));
  return {
    schema: 'evals-campaign/v1',
    campaignId: 'c1',
    suiteFingerprint: digest('a'),
    planDigest: digest('b'),
    package: { name: '@paperclipai/paperclip-runner', version: '0.4.0' },
    runnerd: { sha256: digest('c') },
    receipt: { schema: 'paperclip-runner/evals-integration/v1' } as CampaignRecord['receipt'],
    lanes: [{ id: 'lane', provider: 'codex', model: 'm', driver: null, enabled: true }],
    lanesLeftOut: [],
    cases: plan.map((entry) => entry.caseId),
    settings: { attempts: 1, maxInfrastructureRetries: 1, maxCostNanodollars: null },
    shard: { index: 1, count: 1 },
    shardCount: 1,
    plan,
    complete: false,
    partial: ['shard'],
    allPassed: true,
    totals: {
      planned: plan.length,
      passed: plan.length,
      behaviorFailures: 0,
      gradingEvidenceFailures: 0,
      withoutNativeEvidence: 0,
      infrastructureFailures: 0,
      notRunBudget: 0,
      notRunStopped: 0,
      notRunShardMissing: 0,
      resumed: 0,
      tries: plan.length,
      retries: 0,
    },
    cost: {
      providerReportedNanodollars: 0,
      estimatedNanodollars: 0,
      legacyLedgerNanodollars: 0,
      observedNanodollars: 0,
      retryObservedNanodollars: 0,
      coverage: { priced: 0, unpriced: 0 },
      ceilingNanodollars: null,
    },
    attempts,
    timing: {
      startedAt: '2026-12-01T10:00:00.000Z',
      finishedAt: '2026-12-01T10:01:00.000Z',
      durationMs: 60000,
    },
  };
}

const tryCost = fc
  .record({ provider: figure, estimated: figure, legacy: figure })
  .map(({ provider, estimated, legacy }): TryCost => {
    const observed = provider ?? estimated;
    return {
      providerReportedNanodollars: provider,
      estimatedNanodollars: estimated,
      legacyLedgerNanodollars: legacy,
      observedNanodollars: observed,
      observedFrom: provider !== null ? 'provider_reported' : estimated !== null ? 'estimated' : null,
    };
  });

describe("a campaign record's cost counts each kind's known figures beside its sum", () => {
  it('merged: each sum over the known figures only, each count of them, coverage the rest (property)', () => {
    fc.assert(
      fc.property(fc.array(tryCost, { minLength: 1, maxLength: 6 }), (costs) => {
        const merged = mergeCampaignRecords([{ path: 'shard.json', record: recordOf(costs) }]);
        const total = (pick: (cost: TryCost) => number | null) => figureTotal(costs.map(pick));
        const provider = total((cost) => cost.providerReportedNanodollars);
        const estimated = total((cost) => cost.estimatedNanodollars);
        const legacy = total((cost) => cost.legacyLedgerNanodollars);
        const observed = total((cost) => cost.observedNanodollars);
        expect(merged.cost).toMatchObject({
          providerReportedNanodollars: provider.nanodollars,
          providerReportedTries: provider.known,
          estimatedNanodollars: estimated.nanodollars,
          estimatedTries: estimated.known,
          legacyLedgerNanodollars: legacy.nanodollars,
          legacyLedgerTries: legacy.known,
          observedNanodollars: observed.nanodollars,
          coverage: { priced: observed.known, unpriced: observed.unknown },
        });
        expect(campaignRecordIssues(merged)).toEqual([]);
      }),
      { numRuns: 50 },
    );
  });

  it('no try with a provider figure (the demo): providerReportedTries 0, not a $0 provider cost', () => {
    const estimatedOnly: TryCost = {
      providerReportedNanodollars: null,
      estimatedNanodollars: 1000,
      legacyLedgerNanodollars: null,
      observedNanodollars: 1000,
      observedFrom: 'estimated',
    };
    const merged = mergeCampaignRecords([
      { path: 'shard.json', record: recordOf([estimatedOnly, estimatedOnly]) },
    ]);
    expect(merged.cost).toMatchObject({
      providerReportedNanodollars: 0,
      providerReportedTries: 0,
      estimatedNanodollars: 2000,
      estimatedTries: 2,
      coverage: { priced: 2, unpriced: 0 },
    });
  });
});
