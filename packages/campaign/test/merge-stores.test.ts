// mergeShardStores over real SQLite stores (no process): the same attempt with another digest in two
// shard stores, or already in the target, is refused before anything is written (the target not even
// made); the same attempt alike in two stores is copied once; attempts of other runs stay behind.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { parseNativeExecution } from '@paperclip-evals/contract';
import { convertBundle, openStore } from '@paperclip-evals/evalbook';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { mergeShardStores } from '../src/merge-stores.ts';

import type { CampaignRecord } from '../src/record.ts';
import type { LedgerRecord } from '@paperclip-evals/evalbook';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'merge-stores-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A record of the campaign with no tries to check (the record-side rule is tested end to end). */
const record = { campaignId: 'camp', attempts: [] } as unknown as CampaignRecord;
const attempt = (attemptId: string, costMicros: number, runId = 'camp'): LedgerRecord =>
  convertBundle(parseNativeExecution(JSON.stringify(syntheticAttempt({ runId, attemptId, costMicros }))));

async function storeWith(name: string, records: readonly LedgerRecord[]): Promise<string> {
  const url = `sqlite:${join(dir, `${name}.sqlite`)}`;
  const store = await openStore(url);
  try {
    await store.insertBatch(records);
  } finally {
    await store.close();
  }
  return url;
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
      code: 'campaign_record_conflict',
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
