// The SQLite store's iterators read synchronously underneath (better-sqlite3): a loop over
// attempts(), attempts(runId) or policyVerdicts() must still hand the event loop a turn now and then
// (turnIfDue), or a signal's handler waits for the whole iteration (a publish heard SIGINT 2.7 s late).
// Each iterator, passed over again and again, lets a zero-delay timer fire while the loop runs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { parseNativeExecution } from '@paperclip-evals/contract';
import { timerFiresDuring } from '@paperclip-evals/test-kit/event-loop';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';

import { convertBundle } from '../src/ledger/convert.ts';
import { SqliteStore } from '../src/ledger/sqlite-store.ts';

import type { LedgerRecord } from '../src/ledger/convert.ts';
import type { PolicyVerdictInput } from '../src/ledger/policy-verdicts.ts';

const COUNT = 200;
const record = (attemptId: string): LedgerRecord =>
  convertBundle(parseNativeExecution(JSON.stringify(syntheticAttempt({ attemptId }))));

let dir: string;
let store: SqliteStore;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'evalbook-iteration-turns-'));
  store = SqliteStore.open(join(dir, 'book.sqlite'));
  const records = Array.from({ length: COUNT }, (_, index) => record(`attempt_${index}`));
  await store.insertBatch(records);
  await store.insertPolicyVerdicts(
    records.map((given): PolicyVerdictInput => ({
      key: given.key,
      bundleDigest: given.bundleDigest,
      callId: 'call_0',
      policyDigest: `sha256:${'a'.repeat(64)}`,
      toolName: 'read_document',
      decision: 'deny',
      verdict: 'deny',
      decisionJson: '{"verdict":"deny"}',
      ruleId: 'no-reads',
      reason: 'reads need a ticket',
      errorCode: null,
      recordedOutcome: 'succeeded',
      agreement: 'policy_denies_runner_allowed',
    })),
  );
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const ITERATORS: [string, () => AsyncIterable<unknown>][] = [
  ['attempts()', () => store.attempts()],
  ['attempts(runId)', () => store.attempts('run_synthetic')],
  ['policyVerdicts()', () => store.policyVerdicts()],
];

describe('a loop over a SQLite store lets the event loop run', () => {
  it.each(ITERATORS)('%s', async (_name, iterate) => {
    let seen = 0;
    const pass = async (): Promise<void> => {
      for await (const item of iterate()) if (item !== undefined) seen++;
    };
    expect(await timerFiresDuring(pass, 2000)).toBe(true);
    expect(seen).toBeGreaterThanOrEqual(COUNT);
  });
});
