// The campaign record: its schema refuses what is not a record (mutation rows), merge refuses shards
// that are not of one campaign, and a missing shard's attempts are ci_cell_artifact_missing. Its
// caseDefinitions (issue 19: each case's prompt and description, for published pages) are additive:
// a record without them is valid, and they change neither the plan digest nor the suite fingerprint.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { currentCampaigns, openStore, parseEnvironment } from '@paperclip-evals/evalbook';
import { QUALIFIED_RECEIPT } from '@paperclip-evals/test-kit/qualification-record';

import { CampaignError } from '../src/errors.ts';
import { planCampaign, planDigest } from '../src/plan.ts';
import {
  campaignRecord,
  campaignRecordIssues,
  isLedgerRecord,
  isShardMissing,
  mergeCampaignRecords,
  storeCampaignRecord,
} from '../src/record.ts';
import { CAMPAIGN_FAILURE_CLASSES } from '../src/try-outcome.ts';
import { suiteEnvironment } from './support/stand-in.ts';

import type { AttemptOutcome } from '../src/execute.ts';
import type { Join } from '../src/join.ts';
import type { CampaignRecord } from '../src/record.ts';

const digest = (c: string): string => `sha256:${c.repeat(64)}`;
const plan = [1, 2, 3, 4].map((n) => ({
  attemptId: `att_${n}`,
  laneId: 'lane',
  caseId: `case_${n}`,
  index: 1,
  shard: ((n - 1) % 2) + 1,
}));
const cost = {
  providerReportedNanodollars: 5,
  estimatedNanodollars: 5,
  legacyLedgerNanodollars: null,
  observedNanodollars: 5,
  observedFrom: 'provider_reported' as const,
};
const passed = (entry: (typeof plan)[number]): AttemptOutcome => ({
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
      cost,
    },
  ],
  finalAttemptId: entry.attemptId,
  resumed: false,
  cost,
});
const shardRecord = (index: number, change: Partial<CampaignRecord> = {}): CampaignRecord => {
  const attempts = plan.filter((entry) => entry.shard === index).map(passed);
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
    shard: { index, count: 2 },
    shardCount: 2,
    plan,
    complete: false,
    partial: ['shard'],
    allPassed: false,
    totals: {
      planned: 2,
      passed: 2,
      behaviorFailures: 0,
      gradingEvidenceFailures: 0,
      withoutNativeEvidence: 0,
      infrastructureFailures: 0,
      notRunBudget: 0,
      notRunStopped: 0,
      notRunShardMissing: 0,
      resumed: 0,
      tries: 2,
      retries: 0,
    },
    cost: {
      providerReportedNanodollars: 10,
      estimatedNanodollars: 10,
      legacyLedgerNanodollars: 0,
      observedNanodollars: 10,
      retryObservedNanodollars: 0,
      coverage: { priced: 2, unpriced: 0 },
      ceilingNanodollars: null,
    },
    attempts,
    timing: {
      startedAt: '2026-12-01T10:00:00.000Z',
      finishedAt: '2026-12-01T10:01:00.000Z',
      durationMs: 60000,
    },
    ...change,
  };
};
/** The attempt as a try that ran and failed for its infrastructure (`failure`). */
const failedTry = (
  entry: (typeof plan)[number],
  failure: AttemptOutcome['infrastructureFailure'],
): AttemptOutcome => {
  const ran = passed(entry);
  return {
    ...ran,
    disposition: 'infrastructure_failure',
    reason: 'it failed',
    infrastructureFailure: failure,
    tries: ran.tries.map((t) => ({
      ...t,
      exitCode: 2,
      infrastructureFailure: failure === null ? null : { ...failure, message: 'it failed' },
    })),
  };
};
const codes = (run: () => unknown): string[] => {
  try {
    run();
  } catch (error) {
    if (error instanceof CampaignError) return error.issues.map((issue) => issue.code);
    throw error;
  }
  return [];
};

const caseDefinitions = plan.map((entry) => ({
  id: entry.caseId,
  prompt: `Do ${entry.caseId}.`,
  description: entry.caseId === 'case_1' ? 'the first' : null,
}));

describe('the evals-campaign/v1 schema', () => {
  it('accepts a shard record', () => {
    expect(campaignRecordIssues(shardRecord(1))).toEqual([]);
  });
  it('accepts a record written before caseDefinitions (without them), and one with them', () => {
    const older = shardRecord(1);
    expect('caseDefinitions' in older).toBe(false);
    expect(campaignRecordIssues(JSON.parse(JSON.stringify(older)))).toEqual([]);
    expect(campaignRecordIssues(shardRecord(1, { caseDefinitions }))).toEqual([]);
    expect(campaignRecordIssues(shardRecord(1, { caseDefinitions: [] }))).toEqual([]);
  });
  it('accepts a record written before totals.notRunShardMissing (without it), and refuses a negative one', () => {
    const { notRunShardMissing: _missing, ...olderTotals } = shardRecord(1).totals;
    expect(campaignRecordIssues({ ...shardRecord(1), totals: olderTotals })).toEqual([]);
    const negative = { ...shardRecord(1), totals: { ...shardRecord(1).totals, notRunShardMissing: -1 } };
    expect(campaignRecordIssues(negative).map((issue) => issue.path)).toContain('/totals/notRunShardMissing');
  });
  it.each([
    ['a case without its prompt', { id: 'case_1', description: null }],
    ['a blank prompt', { id: 'case_1', prompt: ' \n', description: null }],
    ['a case without its description member', { id: 'case_1', prompt: 'p' }],
    ['a numeric description', { id: 'case_1', prompt: 'p', description: 7 }],
    ['an empty case id', { id: '', prompt: 'p', description: null }],
    ['an unknown member', { id: 'case_1', prompt: 'p', description: null, session: {} }],
  ])('refuses caseDefinitions with %s', (_label, entry) => {
    const record = { ...shardRecord(1), caseDefinitions: [entry] };
    const paths = campaignRecordIssues(record).map((issue) => issue.path);
    expect(paths.length).toBeGreaterThan(0);
    for (const path of paths) expect(path).toMatch(/^\/caseDefinitions\/0/);
  });
  it.each([
    [
      'an unknown disposition',
      (r: CampaignRecord) => ({ ...r, attempts: [{ ...r.attempts[0]!, disposition: 'maybe' }] }),
    ],
    ['a negative cost', (r: CampaignRecord) => ({ ...r, cost: { ...r.cost, observedNanodollars: -1 } })],
    [
      'retries above 3',
      (r: CampaignRecord) => ({ ...r, settings: { ...r.settings, maxInfrastructureRetries: 4 } }),
    ],
    ['an unknown member', (r: CampaignRecord) => ({ ...r, extra: 1 })],
    [
      'a failure without retryable',
      (r: CampaignRecord) => ({
        ...r,
        attempts: [{ ...r.attempts[0]!, infrastructureFailure: { class: 'x', category: 'y' } }],
      }),
    ],
    ['an unsafe campaign id', (r: CampaignRecord) => ({ ...r, campaignId: '../x' })],
  ])('refuses %s', (_label, mutate) => {
    expect(campaignRecordIssues(mutate(shardRecord(1)))).not.toEqual([]);
  });
});

describe('mergeCampaignRecords', () => {
  const at = (record: CampaignRecord, path: string) => ({ path, record });
  it('merges every shard into a complete record in plan order', () => {
    const merged = mergeCampaignRecords([at(shardRecord(2), 'b'), at(shardRecord(1), 'a')]);
    expect(merged).toMatchObject({ shard: null, complete: true, allPassed: true, partial: [] });
    expect(merged.attempts.map((attempt) => attempt.attemptId)).toEqual(['att_1', 'att_2', 'att_3', 'att_4']);
    expect(merged.cost.observedNanodollars).toBe(20);
    expect(campaignRecordIssues(merged)).toEqual([]);
  });
  it("records a missing shard's attempts as ci_cell_artifact_missing", () => {
    const merged = mergeCampaignRecords([at(shardRecord(1), 'a')]);
    expect(merged.complete).toBe(false);
    expect(merged.partial).toEqual(['shard_missing']);
    const missing = merged.attempts.filter((attempt) => attempt.shard === 2);
    expect(missing.map((attempt) => [attempt.disposition, attempt.infrastructureFailure])).toEqual([
      [
        'infrastructure_failure',
        { class: 'ci_cell_artifact_missing', category: 'campaign_orchestration', retryable: false },
      ],
      [
        'infrastructure_failure',
        { class: 'ci_cell_artifact_missing', category: 'campaign_orchestration', retryable: false },
      ],
    ]);
  });
  it("counts a missing shard's attempts as not run, never among the infrastructure failures", () => {
    const merged = mergeCampaignRecords([at(shardRecord(1), 'a')]);
    expect(merged.totals).toMatchObject({
      planned: 4,
      passed: 2,
      infrastructureFailures: 0,
      notRunShardMissing: 2,
    });
    expect(campaignRecordIssues(merged)).toEqual([]);
  });
  it('keeps a try that ran and failed for its infrastructure (upstream missing-cell artifact included) among the infrastructure failures', () => {
    const [first, third] = plan.filter((entry) => entry.shard === 1);
    const shard = shardRecord(1, {
      attempts: [
        failedTry(first!, {
          class: 'ci_cell_artifact_missing',
          ...CAMPAIGN_FAILURE_CLASSES.ci_cell_artifact_missing,
        }),
        failedTry(third!, {
          class: 'eval_session_crashed',
          ...CAMPAIGN_FAILURE_CLASSES.eval_session_crashed,
        }),
      ],
    });
    const merged = mergeCampaignRecords([at(shard, 'a')]);
    expect(merged.totals).toMatchObject({
      planned: 4,
      passed: 0,
      infrastructureFailures: 2,
      notRunShardMissing: 2,
    });
    expect(merged.attempts.filter(isShardMissing).map((attempt) => attempt.attemptId)).toEqual([
      'att_2',
      'att_4',
    ]);
  });
  it('property: the totals partition the plan; notRunShardMissing is the missing shards’ attempts, infrastructureFailures the failures that ran', () => {
    const outcome = fc.constantFrom('passed', 'eval_session_crashed', 'ci_cell_artifact_missing');
    fc.assert(
      fc.property(
        fc.subarray([1, 2], { minLength: 1 }),
        fc.array(outcome, { minLength: plan.length, maxLength: plan.length }),
        (present, outcomes) => {
          const attemptOf = (entry: (typeof plan)[number]): AttemptOutcome => {
            const kind = outcomes[plan.indexOf(entry)] ?? 'passed';
            return kind === 'passed'
              ? passed(entry)
              : failedTry(entry, { class: kind, ...CAMPAIGN_FAILURE_CLASSES[kind] });
          };
          const shards = present.map((index) =>
            at(
              shardRecord(index, {
                attempts: plan.filter((entry) => entry.shard === index).map(attemptOf),
              }),
              `s${index}`,
            ),
          );
          const t = mergeCampaignRecords(shards).totals;
          const sum =
            t.passed +
            t.behaviorFailures +
            t.gradingEvidenceFailures +
            t.infrastructureFailures +
            t.notRunBudget +
            t.notRunStopped +
            t.notRunShardMissing;
          expect(sum).toBe(t.planned);
          const ran = plan.filter((entry) => present.includes(entry.shard));
          expect(t.notRunShardMissing).toBe(plan.length - ran.length);
          expect(t.infrastructureFailures).toBe(
            ran.filter((entry) => outcomes[plan.indexOf(entry)] !== 'passed').length,
          );
        },
      ),
    );
  });
  it.each([
    ['a duplicate shard', [shardRecord(1), shardRecord(1)], 'shard_duplicate'],
    [
      'a shard of another suite',
      [shardRecord(1), shardRecord(2, { suiteFingerprint: digest('d') })],
      'shard_conflict',
    ],
    [
      'a shard of another release',
      [shardRecord(1), shardRecord(2, { runnerd: { sha256: digest('e') } })],
      'shard_conflict',
    ],
    [
      'a shard of another plan',
      [shardRecord(1), shardRecord(2, { planDigest: digest('f') })],
      'shard_conflict',
    ],
    ['a whole campaign', [shardRecord(1), shardRecord(2, { shard: null })], 'shard_record_expected'],
  ])('refuses %s', (_label, records, code) => {
    expect(
      codes(() => mergeCampaignRecords(records.map((record, index) => at(record, `r${index}`)))),
    ).toEqual([code]);
  });
  it('names each field a conflicting shard differs in, with both values (one issue per field)', () => {
    let issues: { code: string; path?: string; expected?: unknown; received?: unknown }[] = [];
    try {
      mergeCampaignRecords([
        at(shardRecord(1), 'a.json'),
        at(shardRecord(2, { campaignId: 'other-7', runnerd: { sha256: digest('e') } }), 'b.json'),
      ]);
    } catch (error) {
      if (!(error instanceof CampaignError)) throw error;
      issues = [...error.issues];
    }
    expect(issues.map(({ code, path, expected, received }) => ({ code, path, expected, received }))).toEqual([
      {
        code: 'shard_conflict',
        path: 'b.json#/campaignId',
        expected: shardRecord(1).campaignId,
        received: 'other-7',
      },
      {
        code: 'shard_conflict',
        path: 'b.json#/runnerd',
        expected: shardRecord(1).runnerd.sha256,
        received: digest('e'),
      },
    ]);
  });
  it('keeps the shards’ caseDefinitions, from any shard that carries them; older shards merge without', () => {
    const older = mergeCampaignRecords([at(shardRecord(1), 'a'), at(shardRecord(2), 'b')]);
    expect('caseDefinitions' in older).toBe(false);
    expect(campaignRecordIssues(older)).toEqual([]);
    const mixed = mergeCampaignRecords([
      at(shardRecord(1), 'a'),
      at(shardRecord(2, { caseDefinitions }), 'b'),
    ]);
    expect(mixed.caseDefinitions).toEqual(caseDefinitions);
    expect(mixed.planDigest).toBe(older.planDigest);
    expect(campaignRecordIssues(mixed)).toEqual([]);
  });
});

describe('caseDefinitions: what a published page shows of a case (issue 19)', () => {
  const join = {
    packageName: '@paperclipai/paperclip-runner',
    packageVersion: '0.4.0',
    runnerdSha256: digest('c'),
    receipt: QUALIFIED_RECEIPT,
  } as unknown as Join;
  const recordOf = (suite: Record<string, unknown>): CampaignRecord => {
    const campaign = planCampaign(parseEnvironment(suite), { campaignId: 'pinned-1' });
    return campaignRecord(campaign, join, null, {
      attempts: campaign.attempts.map(passed),
      stopped: null,
      startedAt: '2026-12-01T10:00:00.000Z',
      finishedAt: '2026-12-01T10:01:00.000Z',
    });
  };
  const twoByTwo = (): Record<string, unknown> =>
    suiteEnvironment(
      [
        { id: 'case_0', behaviour: 'succeed' },
        { id: 'case_1', behaviour: 'fail' },
      ],
      { lanes: [{ id: 'lane_a' }, { id: 'lane_b' }], attempts: 2 },
    );

  it('carries each case’s prompt and description as the environment gives them, in case order', () => {
    const suite = twoByTwo();
    const cases = suite.cases as Record<string, unknown>[];
    const described = { ...suite, cases: [{ ...cases[0], description: 'The <first> case.' }, cases[1]] };
    expect(recordOf(described).caseDefinitions).toEqual([
      { id: 'case_0', prompt: 'Do case_0.', description: 'The <first> case.' },
      { id: 'case_1', prompt: 'Do case_1.', description: null },
    ]);
  });

  it('leaves the plan digest and the suite fingerprint as they were before records carried them', () => {
    // Both computed by the code before caseDefinitions existed, for this very suite and campaign id:
    // a resumed campaign whose earlier record lacks them is the same plan (the ledger keeps both).
    const record = recordOf(twoByTwo());
    expect(record.caseDefinitions).toHaveLength(2);
    expect(record.suiteFingerprint).toBe(
      'sha256:2080cae80130136d85c72195e534fddd63a116fd4e25897512101f1a6cfcfe3b',
    );
    expect(record.planDigest).toBe('sha256:ce63afc0f3b00d2bfb64b128a0d8fe1b9c88357970d22a045f069bda3ccadd69');
  });

  it('are never part of the plan digest (property: any case definitions)', () => {
    const campaign = planCampaign(parseEnvironment(twoByTwo()), { campaignId: 'pinned-1' });
    const definition = fc.record({
      id: fc.string({ minLength: 1 }),
      prompt: fc.string({ minLength: 1 }),
      description: fc.option(fc.string(), { nil: null }),
    });
    fc.assert(
      fc.property(fc.array(definition, { maxLength: 4 }), (definitions) => {
        expect(planDigest({ ...campaign, caseDefinitions: definitions })).toBe(planDigest(campaign));
      }),
    );
  });
});

describe('the campaign record in the ledger (issue 19)', () => {
  const merged = (): CampaignRecord =>
    mergeCampaignRecords([1, 2].map((index) => ({ path: `s${index}.json`, record: shardRecord(index) })));

  it('goes in for a whole campaign, not for a shard or an interrupted run (resumed under the same id)', () => {
    expect(isLedgerRecord(merged())).toBe(true);
    expect(isLedgerRecord(shardRecord(1))).toBe(false);
    expect(isLedgerRecord({ ...merged(), complete: false, partial: ['interrupted'], allPassed: false })).toBe(
      false,
    );
    expect(isLedgerRecord({ ...merged(), complete: false, partial: ['budget_stop'] })).toBe(true);
  });

  it('is recorded once; a newer record of the same plan (a resumed run) is kept beside it and current; another plan is refused', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'campaign-ledger-'));
    try {
      const url = `sqlite:${join(dir, 'evalbook.sqlite')}`;
      const stopped: CampaignRecord = {
        ...merged(),
        complete: false,
        partial: ['budget_stop'],
        allPassed: false,
      };
      const resumed: CampaignRecord = {
        ...merged(),
        timing: { ...merged().timing, finishedAt: '2099-01-01T00:00:00.000Z' },
      };
      expect(await storeCampaignRecord(url, stopped)).toBe('recorded');
      expect(await storeCampaignRecord(url, stopped)).toBe('duplicate');
      expect(await storeCampaignRecord(url, resumed)).toBe('revised');
      await expect(storeCampaignRecord(url, { ...resumed, planDigest: digest('9') })).rejects.toMatchObject({
        code: 'paperclip_evalbook_campaign_conflict',
        issues: [expect.objectContaining({ code: 'campaign_id_reused' })],
      });
      const store = await openStore(url);
      const held = await store.campaigns();
      await store.close();
      expect(held.map((entry) => entry.record)).toEqual(
        [stopped, resumed].map((r) => JSON.parse(JSON.stringify(r)) as unknown),
      );
      expect(currentCampaigns(held).map((entry) => entry.record['complete'])).toEqual([true]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a record with caseDefinitions is of the same plan as the campaign’s earlier one without them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'campaign-ledger-'));
    try {
      const url = `sqlite:${join(dir, 'evalbook.sqlite')}`;
      const older: CampaignRecord = {
        ...merged(),
        complete: false,
        partial: ['budget_stop'],
        allPassed: false,
      };
      const newer: CampaignRecord = {
        ...merged(),
        caseDefinitions,
        timing: { ...merged().timing, finishedAt: '2099-01-01T00:00:00.000Z' },
      };
      expect(await storeCampaignRecord(url, older)).toBe('recorded');
      expect(await storeCampaignRecord(url, newer)).toBe('revised');
      const store = await openStore(url);
      const held = await store.campaigns();
      await store.close();
      expect(currentCampaigns(held).map((entry) => entry.record['caseDefinitions'])).toEqual([
        caseDefinitions,
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
