// `evals merge` with a shard missing says one count of it (a new user's review): its planned
// attempts were never run, so the status line and the planned line both say "N not run: shard 2
// missing" — never "failed" in one and an infrastructure failure in the other, and never a try. And an
// error of many issues alike (one missing shard store: a shard_store_incomplete issue per try) is a
// line per kind with how many more, not a line per try. In-process, shard records built here.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CampaignError } from '@paperclip-evals/campaign';
import { QUALIFIED_RECEIPT } from '@paperclip-evals/test-kit/qualification-record';

import { describeError } from '../src/exit-codes.ts';

import type { AttemptOutcome, CampaignRecord } from '@paperclip-evals/campaign';

import { evals } from './support/evals-in-process.ts';

const digest = (c: string): string => `sha256:${c.repeat(64)}`;
/** 6 attempts, 3 in each of 2 shards. */
const plan = [1, 2, 3, 4, 5, 6].map((n) => ({
  attemptId: `att_${n}`,
  laneId: 'lane',
  caseId: `case_${n}`,
  index: 1,
  shard: n <= 3 ? 1 : 2,
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
const shardOne = (): CampaignRecord => ({
  schema: 'evals-campaign/v1',
  campaignId: 'c1',
  suiteFingerprint: digest('a'),
  planDigest: digest('b'),
  package: { name: '@paperclipai/paperclip-runner', version: '0.4.0' },
  runnerd: { sha256: digest('c') },
  receipt: QUALIFIED_RECEIPT,
  lanes: [{ id: 'lane', provider: 'codex', model: 'm', driver: null, enabled: true }],
  lanesLeftOut: [],
  cases: plan.map((entry) => entry.caseId),
  settings: { attempts: 1, maxInfrastructureRetries: 1, maxCostNanodollars: null },
  shard: { index: 1, count: 2 },
  shardCount: 2,
  plan,
  complete: false,
  partial: ['shard'],
  allPassed: false,
  totals: {
    planned: 3,
    passed: 3,
    behaviorFailures: 0,
    gradingEvidenceFailures: 0,
    withoutNativeEvidence: 0,
    infrastructureFailures: 0,
    notRunBudget: 0,
    notRunStopped: 0,
    notRunShardMissing: 0,
    resumed: 0,
    tries: 3,
    retries: 0,
  },
  cost: {
    providerReportedNanodollars: 15,
    estimatedNanodollars: 15,
    legacyLedgerNanodollars: 0,
    observedNanodollars: 15,
    retryObservedNanodollars: 0,
    coverage: { priced: 3, unpriced: 0 },
    ceilingNanodollars: null,
  },
  attempts: plan.filter((entry) => entry.shard === 1).map(passed),
  timing: {
    startedAt: '2026-12-01T10:00:00.000Z',
    finishedAt: '2026-12-01T10:01:00.000Z',
    durationMs: 60000,
  },
});

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evals-merge-missing-'));
  await writeFile(join(dir, 'shard-1.json'), JSON.stringify(shardOne()));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('merge with shard 2 missing', () => {
  it('both lines say its 3 attempts were not run, and neither counts them as failures or tries', async () => {
    const run = await evals('merge', join(dir, 'shard-1.json'), '--out', join(dir, 'merged.json'));
    expect(run.code, run.stderr).toBe(1);
    const [status = '', , planned = '', tries = ''] = run.stdout.split('\n');
    expect(status).toBe('campaign c1: partial (shard_missing) · 3 not run: shard 2 missing');
    expect(planned).toBe(
      '  6 planned: 3 passed · 0 behaviour failure(s) · 0 grading/evidence failure(s) · 0 infrastructure failure(s) · 0 not run (budget) · 0 not run (stopped) · 3 not run: shard 2 missing',
    );
    expect(tries).toMatch(/^ {2}3 tries /);
    expect(run.stdout).not.toContain('ci_cell_artifact_missing: 3');
    // The record counts them so itself: the printed line reads its totals, never subtracts.
    const merged = JSON.parse(await readFile(join(dir, 'merged.json'), 'utf8')) as CampaignRecord;
    expect(merged.totals).toMatchObject({
      planned: 6,
      passed: 3,
      infrastructureFailures: 0,
      notRunShardMissing: 3,
    });
  });
});

describe('an error whose issues are alike', () => {
  it('one line per kind (code, place, expected, received) with how many more; --json keeps each', () => {
    const issues = [4, 5, 6].map((n) => ({
      code: 'shard_store_incomplete',
      message: `try att_${n} of shard 2 (case_${n} × lane) is in no store given: pass each shard's store with --from-store`,
      path: '--from-store',
      expected: 'the store shard 2 ingested into',
      received: 'sqlite:shard-1.sqlite',
    }));
    const lines = describeError(
      new CampaignError(
        'paperclip_campaign_record_conflict',
        'the shard stores do not merge into t: nothing was written',
        [
          ...issues,
          { ...issues[0]!, expected: 'the store shard 3 ingested into', message: 'try att_7 of shard 3' },
        ],
      ),
    );
    expect(lines).toEqual([
      'paperclip_campaign_record_conflict: the shard stores do not merge into t: nothing was written',
      `  shard_store_incomplete at --from-store: ${issues[0]!.message} (expected the store shard 2 ingested into, received sqlite:shard-1.sqlite) — and 2 more like it (the same code, place, expected and received; --json lists each)`,
      '  shard_store_incomplete at --from-store: try att_7 of shard 3 (expected the store shard 3 ingested into, received sqlite:shard-1.sqlite)',
    ]);
  });
});
