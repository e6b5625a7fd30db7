// The campaign record: its schema refuses what is not a record (mutation rows), merge refuses shards
// that are not of one campaign, and a missing shard's attempts are ci_cell_artifact_missing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { currentCampaigns, openStore } from '@paperclip-evals/evalbook';

import { CampaignError } from '../src/errors.ts';
import {
  campaignRecordIssues,
  isLedgerRecord,
  mergeCampaignRecords,
  storeCampaignRecord,
} from '../src/record.ts';

import type { AttemptOutcome } from '../src/execute.ts';
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
const codes = (run: () => unknown): string[] => {
  try {
    run();
  } catch (error) {
    if (error instanceof CampaignError) return error.issues.map((issue) => issue.code);
    throw error;
  }
  return [];
};

describe('the evals-campaign/v1 schema', () => {
  it('accepts a shard record', () => {
    expect(campaignRecordIssues(shardRecord(1))).toEqual([]);
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
});
