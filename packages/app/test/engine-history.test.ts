// The checks engine's drift history in an Evalbook: where it lives (--store, else ATTEST_CACHE_DIR,
// else nowhere), runs that outlive the store they were appended through, and a store failure —
// thrown or rejected — always the engine's ChecksError drift_history_unavailable (query_drift answers 3001).
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChecksError } from '@paperclip-evals/checks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ATTEST_CACHE_DIR_ENV, openEngineHistory, storeDriftHistory } from '../src/engine-history.ts';

import type { LedgerStore } from '@paperclip-evals/evalbook';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'app-engine-history-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('openEngineHistory', () => {
  it('is none without a store or a cache folder', async () => {
    expect(await openEngineHistory(undefined, {})).toBeUndefined();
    expect(await openEngineHistory(undefined, { [ATTEST_CACHE_DIR_ENV]: '' })).toBeUndefined();
  });

  it('lives in $ATTEST_CACHE_DIR/evalbook.sqlite, and its runs outlive the store', async () => {
    const variables = { [ATTEST_CACHE_DIR_ENV]: dir };
    const first = await openEngineHistory(undefined, variables);
    if (first === undefined) throw new Error('no history');
    await first.history.append('check-1', { score: 0.5, status: 'pass' });
    await first.store.close();
    expect(existsSync(join(dir, 'evalbook.sqlite'))).toBe(true);
    const second = await openEngineHistory(undefined, variables);
    try {
      expect(await second?.history.runs('check-1')).toEqual([{ score: 0.5, status: 'pass' }]);
    } finally {
      await second?.store.close();
    }
  });

  it('takes the store named over the cache folder', async () => {
    const named = join(dir, 'named.sqlite');
    const history = await openEngineHistory(`sqlite:${named}`, { [ATTEST_CACHE_DIR_ENV]: join(dir, 'x') });
    await history?.store.close();
    expect(existsSync(named)).toBe(true);
    expect(existsSync(join(dir, 'x'))).toBe(false);
  });
});

describe('storeDriftHistory', () => {
  const failing = (how: 'throws' | 'rejects'): LedgerStore => {
    const fail = (): never => {
      throw new Error('disk gone');
    };
    const method = how === 'throws' ? fail : () => Promise.reject(new Error('disk gone'));
    return { appendDriftRun: method, driftWindow: method } as unknown as LedgerStore;
  };
  it.each(['throws', 'rejects'] as const)(
    'a store that %s is the ChecksError drift_history_unavailable',
    async (how) => {
      const history = storeDriftHistory(failing(how));
      const unavailable = { name: 'ChecksError', code: 'drift_history_unavailable', message: 'disk gone' };
      await expect(history.append('c', { score: 1, status: 'pass' })).rejects.toBeInstanceOf(ChecksError);
      await expect(history.append('c', { score: 1, status: 'pass' })).rejects.toMatchObject(unavailable);
      await expect(history.runs('c')).rejects.toMatchObject(unavailable);
    },
  );
});
