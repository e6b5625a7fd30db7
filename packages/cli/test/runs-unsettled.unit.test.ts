// `evals runs` of a store where a campaign has no attempt, only a try started and never settled (its
// run SIGKILLed mid-session): the campaign is listed all the same — 0 attempts, its start counted as
// unknown spend (never $0 alone), no terminal state, and a line saying what that means — and `--json`
// holds it as such (paperclip-evals/runs/v1). In-process, over a SQLite store built here.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { parseNativeExecution, schemaErrors } from '@paperclip-evals/contract';
import { convertBundle, openStore } from '@paperclip-evals/evalbook';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';

import { evalsInProcess } from './support/evals-in-process.ts';

let dir: string;
let store: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evals-runs-unsettled-'));
  store = `sqlite:${join(dir, 'evalbook.sqlite')}`;
  const opened = await openStore(store);
  try {
    await opened.insertBatch([
      convertBundle(
        parseNativeExecution(
          JSON.stringify(syntheticAttempt({ runId: 'nightly-1', attemptId: 'att_1', costMicros: 10_000 })),
        ),
      ),
    ]);
    for (const tryId of ['att_1', 'att_2'])
      await opened.recordTryStart({
        campaignId: 'nightly-2',
        caseId: 'case_synthetic',
        configId: 'config_synthetic',
        attemptId: tryId,
        tryNumber: 1,
        tryId,
        startedAt: '2026-12-03T10:00:00.000Z',
        runner: { packageName: 'p', packageVersion: '1.0.0', runnerdSha256: 'sha256:r', host: 'h', pid: 7 },
      });
  } finally {
    await opened.close();
  }
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('evals runs: a campaign whose only tries are unsettled starts', () => {
  it('is listed with 0 attempts, its starts as unknown spend, and said to have no attempt yet', async () => {
    const result = await evalsInProcess(['runs', '--store', store], dir);
    expect(result.status, result.stderr).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[1]).toMatch(/^nightly-1\s+1\s+1\s+1\s+0\s+0\s+\$0\.01\s+1 succeeded$/);
    expect(lines[2]).toMatch(
      /^nightly-2\s+0\s+0\s+0\s+0\s+0\s+\$0\.00 \+ 2 unpriced \(2 tries started, never settled\)\s+none \(no attempt in the ledger\)$/,
    );
    expect(result.stdout).toContain(
      "no attempt yet: nightly-2 — only tries started and never settled (a run killed mid-session, a session the campaign killed, or another shard's try still running): their spend is unknown",
    );
    expect(result.stdout).toContain(`2 run(s) in ${store}.`);
  });

  it('--json: the run with 0 attempts and its unsettled tries, by the runs/v1 schema', async () => {
    const result = await evalsInProcess(['runs', '--store', store, '--json'], dir);
    expect(result.status, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as { runs: unknown[] };
    expect(schemaErrors('https://paperclip-evals.dev/schemas/runs/v1.json', report)).toEqual([]);
    expect(report.runs[1]).toEqual({
      runId: 'nightly-2',
      attempts: 0,
      cases: 0,
      configs: 0,
      terminalStates: {},
      foreign: 0,
      retracted: 0,
      spend: { observedNanodollars: 0, unpriced: 2, unsettledTries: 2 },
      retractions: [],
    });
  });
});
