// mergeShardStores over real SQLite stores (no process): the same attempt with another digest in two
// shard stores, or already in the target, is refused before anything is written (the target not even
// made); the same attempt alike in two stores is copied once; attempts of other runs stay behind; a
// shard's try starts are copied too (an unsettled one stays unknown spend in the target).
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { parseNativeExecution } from '@paperclip-evals/contract';
import { checkRetractionRequest, convertBundle, openStore } from '@paperclip-evals/evalbook';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { mergeShardStores } from '../src/merge-stores.ts';
import { assertLedgerRecordable } from '../src/record.ts';

import type { CampaignRecord } from '../src/record.ts';
import type { AttemptKey, LedgerRecord, LedgerStore } from '@paperclip-evals/evalbook';

type TryStart = Parameters<LedgerStore['recordTryStart']>[0];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'merge-stores-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const PLAN = `sha256:${'b'.repeat(64)}`;
/** A record of the campaign with no tries to check (the record-side rule is tested end to end). */
const campaignRecord = (finishedAt: string, complete = true): CampaignRecord =>
  ({
    schema: 'evals-campaign/v1',
    campaignId: 'camp',
    planDigest: PLAN,
    complete,
    partial: complete ? [] : ['budget_stop'],
    attempts: [],
    timing: { startedAt: '2026-12-01T09:00:00.000Z', finishedAt, durationMs: 0 },
  }) as unknown as CampaignRecord;
const record = campaignRecord('2026-12-01T10:00:00.000Z');
const json = (value: unknown): Record<string, unknown> =>
  JSON.parse(JSON.stringify(value)) as Record<string, unknown>;

/** The campaign records a store holds, in append order. */
async function campaignsOf(url: string) {
  const store = await openStore(url, { mustExist: true });
  try {
    return await store.campaigns();
  } finally {
    await store.close();
  }
}
const attempt = (attemptId: string, costMicros: number, runId = 'camp'): LedgerRecord =>
  convertBundle(parseNativeExecution(JSON.stringify(syntheticAttempt({ runId, attemptId, costMicros }))));

const RETRACTION = (attemptId: string, reason = 'the harness lost its network') => ({
  runId: 'camp',
  attemptId,
  reason,
  by: 'ci-bot',
  at: '2026-12-01T09:30:00.000Z',
});

/** A store with these attempts; optionally some retracted (evals retract) and a policy verdict of one. */
async function storeWith(
  name: string,
  records: readonly LedgerRecord[],
  options: { retract?: readonly string[]; reason?: string; verdictOf?: string } = {},
): Promise<string> {
  const url = `sqlite:${join(dir, `${name}.sqlite`)}`;
  const store = await openStore(url);
  try {
    await store.insertBatch(records);
    if (options.retract !== undefined)
      await store.retract(
        checkRetractionRequest({
          runId: 'camp',
          attemptIds: options.retract,
          reason: options.reason ?? 'the harness lost its network',
          by: 'ci-bot',
          at: '2026-12-01T09:30:00.000Z',
        }),
      );
    const of = records.find((entry) => entry.key.attemptId === options.verdictOf);
    if (of !== undefined)
      await store.insertPolicyVerdicts([
        {
          key: of.key,
          bundleDigest: of.bundleDigest,
          callId: 'call_0',
          policyDigest: `sha256:${'a'.repeat(64)}`,
          toolName: 'read_document',
          decision: 'deny',
          verdict: 'deny',
          decisionJson: '{"verdict":"deny","rule_id":"no-reads","reason":"reads need a ticket"}',
          ruleId: 'no-reads',
          reason: 'reads need a ticket',
          errorCode: null,
          recordedOutcome: 'succeeded',
          agreement: 'policy_denies_runner_allowed',
        },
      ]);
  } finally {
    await store.close();
  }
  return url;
}

async function runsOf(url: string) {
  const store = await openStore(url, { mustExist: true });
  try {
    return await store.runs();
  } finally {
    await store.close();
  }
}

async function count(url: string): Promise<number> {
  const store = await openStore(url, { mustExist: true });
  try {
    return await store.countAttempts();
  } finally {
    await store.close();
  }
}

describe('merging shard stores', () => {
  it("copies the campaign's attempts once (alike in two stores: a duplicate), other runs left behind", async () => {
    const a = await storeWith('a', [attempt('att_1', 10), attempt('att_other', 10, 'other-run')]);
    const b = await storeWith('b', [attempt('att_1', 10), attempt('att_2', 20)]);
    const to = `sqlite:${join(dir, 'target.sqlite')}`;
    const summary = await mergeShardStores({ record, from: [a, b], to });
    expect(summary).toEqual({
      perStore: [
        { store: a, attempts: 1 },
        { store: b, attempts: 2 },
      ],
      inserted: 2,
      duplicates: 1,
      policyVerdicts: { inserted: 0, duplicates: 0 },
      retractions: { inserted: 0, duplicates: 0 },
      campaignRecords: { inserted: 0, duplicates: 0 },
      tryStarts: { inserted: 0, duplicates: 0, unsettled: 0 },
      record: 'recorded',
    });
    expect(await count(to)).toBe(2);
    expect(await mergeShardStores({ record, from: [a, b], to })).toMatchObject({
      inserted: 0,
      duplicates: 3,
    });
  });

  it('refuses the same attempt with another digest in two shard stores: nothing written, no target made', async () => {
    const a = await storeWith('c1', [attempt('att_1', 10)]);
    const b = await storeWith('c2', [attempt('att_1', 99)]);
    const to = `sqlite:${join(dir, 'never.sqlite')}`;
    await expect(mergeShardStores({ record, from: [a, b], to })).rejects.toMatchObject({
      code: 'paperclip_campaign_record_conflict',
      issues: [expect.objectContaining({ code: 'shard_store_conflict', path: b })],
    });
    expect(existsSync(join(dir, 'never.sqlite'))).toBe(false);
  });

  it('refuses an attempt the target holds with another digest, and overwrites nothing', async () => {
    const to = await storeWith('held', [attempt('att_1', 99)]);
    const a = await storeWith('d1', [attempt('att_1', 10), attempt('att_2', 10)]);
    await expect(mergeShardStores({ record, from: [a], to })).rejects.toMatchObject({
      issues: [expect.objectContaining({ code: 'shard_store_conflict', path: to })],
    });
    expect(await count(to)).toBe(1);
  });

  it("copies a shard's retraction (who, why, when) and policy verdict with its attempts, in one transaction", async () => {
    const a = await storeWith('r1', [attempt('att_1', 10), attempt('att_2', 10)], {
      retract: ['att_2'],
      verdictOf: 'att_1',
    });
    const b = await storeWith('r2', [attempt('att_3', 10)]);
    const to = `sqlite:${join(dir, 'with-retractions.sqlite')}`;
    const summary = await mergeShardStores({ record, from: [a, b], to });
    expect(summary).toMatchObject({
      inserted: 3,
      policyVerdicts: { inserted: 1, duplicates: 0 },
      retractions: { inserted: 1, duplicates: 0 },
    });
    const target = await openStore(to, { mustExist: true });
    try {
      expect(await target.retractions()).toEqual([RETRACTION('att_2')]);
      const verdicts: { key: AttemptKey; callId: string; verdict: string | null }[] = [];
      for await (const stored of target.policyVerdicts()) verdicts.push(stored);
      expect(verdicts.map((stored) => [stored.key.attemptId, stored.callId, stored.verdict])).toEqual([
        ['att_1', 'call_0', 'deny'],
      ]);
    } finally {
      await target.close();
    }
    // Reports leave the retracted attempt out of the merged store, as they did of the shard's.
    expect((await runsOf(to)).find((run) => run.runId === 'camp')?.retracted).toBe(1);
    expect(await mergeShardStores({ record, from: [a, b], to })).toMatchObject({
      inserted: 0,
      policyVerdicts: { inserted: 0, duplicates: 1 },
      retractions: { inserted: 0, duplicates: 1 },
    });
  });

  it('refuses a retraction the target holds otherwise (or two shards hold otherwise): nothing written', async () => {
    const a = await storeWith('s1', [attempt('att_1', 10), attempt('att_2', 10)], {
      retract: ['att_2'],
      verdictOf: 'att_1',
    });
    const to = await storeWith('s-target', [attempt('att_2', 10)], {
      retract: ['att_2'],
      reason: 'another reason',
    });
    await expect(mergeShardStores({ record, from: [a], to })).rejects.toMatchObject({
      code: 'paperclip_campaign_record_conflict',
      issues: [expect.objectContaining({ code: 'retraction_conflict', path: to })],
    });
    // Nothing of the copy landed: not att_1, not its verdict.
    expect(await count(to)).toBe(1);
    const target = await openStore(to, { mustExist: true });
    try {
      const verdicts: { key: AttemptKey; callId: string; verdict: string | null }[] = [];
      for await (const stored of target.policyVerdicts()) verdicts.push(stored);
      expect(verdicts).toEqual([]);
    } finally {
      await target.close();
    }
    const b = await storeWith('s2', [attempt('att_2', 10)], { retract: ['att_2'], reason: 'another reason' });
    const fresh = `sqlite:${join(dir, 'never-2.sqlite')}`;
    await expect(mergeShardStores({ record, from: [a, b], to: fresh })).rejects.toMatchObject({
      issues: [expect.objectContaining({ code: 'shard_store_conflict', path: b })],
    });
    expect(existsSync(join(dir, 'never-2.sqlite'))).toBe(false);
  });

  it("copies the campaign's records a shard store holds (a budget-stopped one and its resumed one), then the merged one; again, nothing", async () => {
    const a = await storeWith('records-a', [attempt('att_1', 10)]);
    const stopped = campaignRecord('2026-12-01T08:00:00.000Z', false);
    const resumed = campaignRecord('2026-12-01T08:30:00.000Z');
    const held = await openStore(a);
    await held.recordCampaign({ campaignId: 'camp', record: json(stopped) });
    await held.recordCampaign({ campaignId: 'camp', record: json(resumed) });
    await held.close();
    const to = `sqlite:${join(dir, 'records-target.sqlite')}`;
    expect(await mergeShardStores({ record, from: [a], to })).toMatchObject({
      campaignRecords: { inserted: 2, duplicates: 0 },
      record: 'revised',
    });
    const copied = await campaignsOf(to);
    expect(copied.map((entry) => entry.record)).toEqual([stopped, resumed, record].map(json));
    // The same merge again writes nothing.
    expect(await mergeShardStores({ record, from: [a], to })).toMatchObject({
      inserted: 0,
      campaignRecords: { inserted: 0, duplicates: 2 },
      record: 'duplicate',
    });
    expect(await campaignsOf(to)).toEqual(copied);
  });

  it('refuses a campaign record of another plan in a shard store or the target: nothing written', async () => {
    const other = { ...campaignRecord('2026-12-01T08:00:00.000Z'), planDigest: `sha256:${'c'.repeat(64)}` };
    const a = await storeWith('plan-a', [attempt('att_1', 10)]);
    const held = await openStore(a);
    await held.recordCampaign({ campaignId: 'camp', record: json(other) });
    await held.close();
    const to = `sqlite:${join(dir, 'plan-never.sqlite')}`;
    await expect(mergeShardStores({ record, from: [a], to })).rejects.toMatchObject({
      code: 'paperclip_campaign_record_conflict',
      issues: [expect.objectContaining({ code: 'shard_store_conflict', path: a })],
    });
    expect(existsSync(to.slice('sqlite:'.length))).toBe(false);
    // The target holding the other plan: refused too, the target unchanged.
    const b = await storeWith('plan-b', [attempt('att_1', 10)]);
    const before = await campaignsOf(a);
    await expect(mergeShardStores({ record, from: [b], to: a })).rejects.toMatchObject({
      code: 'paperclip_campaign_record_conflict',
      issues: [expect.objectContaining({ code: 'shard_store_conflict', path: a })],
    });
    expect(await campaignsOf(a)).toEqual(before);
  });

  it("copies a shard's try starts: an unsettled one (a SIGKILLed session) stays unknown spend in the target; again, nothing; another content under its key refuses the whole copy", async () => {
    const tryStart = (attemptId: string, changes: Partial<TryStart> = {}): TryStart => ({
      campaignId: 'camp',
      caseId: 'case_synthetic',
      configId: 'config_synthetic',
      attemptId,
      tryNumber: 1,
      tryId: attemptId,
      startedAt: '2026-12-01T09:00:00.000Z',
      runner: {
        packageName: 'p',
        packageVersion: '1.0.0',
        runnerdSha256: 'sha256:r',
        host: 'cell-1',
        pid: 7,
      },
      ...changes,
    });
    // Shard a: one try settled by its attempt, one killed mid-session (a start, no attempt).
    const a = await storeWith('tries-a', [attempt('att_1', 10)]);
    const b = await storeWith('tries-b', [attempt('att_2', 20)]);
    const shard = await openStore(a);
    await shard.recordTryStart(tryStart('att_1'));
    await shard.recordTryStart(tryStart('att_killed'));
    await shard.close();
    const to = `sqlite:${join(dir, 'tries-target.sqlite')}`;
    expect(await mergeShardStores({ record, from: [a, b], to })).toMatchObject({
      inserted: 2,
      tryStarts: { inserted: 2, duplicates: 0, unsettled: 1 },
    });
    const spend = async () => (await runsOf(to)).find((run) => run.runId === 'camp')?.spend;
    // What a resumed campaign's ceiling reads (runs(), campaignTries): the killed try's spend is unknown.
    expect(await spend()).toEqual({ observedNanodollars: 30_000, unpriced: 1, unsettledTries: 1 });
    const target = await openStore(to, { mustExist: true });
    try {
      expect((await target.campaignTries('camp')).map((entry) => [entry.tryId, entry.settled])).toEqual([
        ['att_1', true],
        ['att_killed', false],
      ]);
    } finally {
      await target.close();
    }
    expect(await mergeShardStores({ record, from: [a, b], to })).toMatchObject({
      inserted: 0,
      tryStarts: { inserted: 0, duplicates: 2, unsettled: 1 },
      record: 'duplicate',
    });
    // Another shard store with the killed try's start under the same key, another host: refused, nothing written.
    const c = await storeWith('tries-c', [attempt('att_3', 10)]);
    const other = await openStore(c);
    await other.recordTryStart(
      tryStart('att_killed', { runner: { ...tryStart('x').runner, host: 'cell-9' } }),
    );
    await other.close();
    await expect(mergeShardStores({ record, from: [a, b, c], to })).rejects.toMatchObject({
      code: 'paperclip_campaign_record_conflict',
      issues: [
        expect.objectContaining({
          code: 'shard_store_conflict',
          path: c,
          message: `the start of try att_killed (case_synthetic × config_synthetic) differs in ${a} and ${c}`,
        }),
      ],
    });
    // The target holds it otherwise than the one shard store given: found before anything is written.
    await expect(mergeShardStores({ record, from: [c], to })).rejects.toMatchObject({
      issues: [
        expect.objectContaining({
          code: 'shard_store_conflict',
          path: to,
          message: `the start of try att_killed (case_synthetic × config_synthetic) is in ${to} otherwise than in ${c}: nothing is overwritten`,
        }),
      ],
    });
    expect(await count(to)).toBe(2);
    expect(await spend()).toEqual({ observedNanodollars: 30_000, unpriced: 1, unsettledTries: 1 });
  });

  it('refuses a shard store that is not there', async () => {
    await expect(
      mergeShardStores({
        record,
        from: [`sqlite:${join(dir, 'missing.sqlite')}`],
        to: `sqlite:${join(dir, 't2.sqlite')}`,
      }),
    ).rejects.toThrow(/no Evalbook at/);
  });
});

// A shard record is never trusted over the ledger: with --store (and --from-store alike) each
// attempt's disposition is checked against the verdict the ledger derives for its final try.
describe('a shard record that disagrees with the ledger', () => {
  const outcome = (attemptId: string, disposition: string) => ({
    attemptId: attemptId.replace(/_t\d+$/, ''),
    laneId: 'config_synthetic',
    caseId: 'case_synthetic',
    index: 1,
    disposition,
    reason: null,
    infrastructureFailure: null,
    tries: [],
    finalAttemptId: attemptId,
    resumed: false,
  });
  const withAttempts = (attempts: unknown[]): CampaignRecord =>
    ({ ...record, attempts }) as unknown as CampaignRecord;
  const failed = (attemptId: string): LedgerRecord =>
    convertBundle(
      parseNativeExecution(
        JSON.stringify(syntheticAttempt({ runId: 'camp', attemptId, runTerminalState: 'failed' })),
      ),
    );

  // [what the record says, the ledger's attempt, agrees]
  const rows: [string, string, 'solved' | 'failed', boolean][] = [
    ['passed over a solved attempt', 'passed', 'solved', true],
    ['passed over a failed attempt (a behavior_failure edited to passed)', 'passed', 'failed', false],
    ['behavior_failure over a failed attempt', 'behavior_failure', 'failed', true],
    ['behavior_failure over a solved attempt', 'behavior_failure', 'solved', false],
  ];

  it.each(rows)('--from-store: %s', async (name, disposition, held, agrees) => {
    const slug = name.replace(/[^a-z]+/g, '-');
    const from = await storeWith(`dis-from-${slug}`, [
      held === 'solved' ? attempt('att_9', 10) : failed('att_9'),
    ]);
    const to = `sqlite:${join(dir, `dis-to-${slug}.sqlite`)}`;
    const merge = mergeShardStores({
      record: withAttempts([outcome('att_9', disposition)]),
      from: [from],
      to,
    });
    if (agrees) await expect(merge).resolves.toMatchObject({ inserted: 1 });
    else {
      await expect(merge).rejects.toMatchObject({
        code: 'paperclip_campaign_record_conflict',
        issues: [
          expect.objectContaining({
            code: 'shard_store_conflict',
            path: '/attempts/0/disposition',
            received: disposition,
          }),
        ],
      });
      expect(existsSync(to.slice('sqlite:'.length))).toBe(false);
    }
  });

  it.each(rows)('--store (the shared ledger): %s', async (name, disposition, held, agrees) => {
    const slug = name.replace(/[^a-z]+/g, '-');
    const store = await storeWith(`dis-ledger-${slug}`, [
      held === 'solved' ? attempt('att_9', 10) : failed('att_9'),
    ]);
    const check = assertLedgerRecordable(store, withAttempts([outcome('att_9', disposition)]));
    if (agrees) await expect(check).resolves.toBeUndefined();
    else
      await expect(check).rejects.toMatchObject({
        code: 'paperclip_campaign_record_conflict',
        issues: [expect.objectContaining({ code: 'shard_store_conflict', received: disposition })],
      });
    expect(await campaignsOf(store)).toEqual([]);
  });
});
