// `evals engine --stdio --store URL`: drift history kept in an Evalbook outlives the engine process.
// One engine session scores an assertion ten times and shuts down; a second session, started later
// on the same SQLite store, scores it low once and query_drift sees all eleven runs (drift detected).
// Without --store, the second session starts from nothing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { EngineProcess, INITIALIZE_PARAMS } from '../../checks/test/support/engine-process.ts';

const EVALS = join(fileURLToPath(new URL('../../../', import.meta.url)), 'packages/cli/bin/evals.js');
const TRACE = {
  schema_version: 1,
  trace_id: 'trc_drift',
  agent_id: 'support-agent',
  input: { user_message: 'refund ORD-1' },
  steps: [],
  output: { message: 'done' },
  metadata: {},
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evals-engine-store-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
const started: EngineProcess[] = [];
afterEach(() => {
  for (const process of started.splice(0)) process.kill();
});

async function session(args: string[]): Promise<EngineProcess> {
  const process = EngineProcess.start('node', [EVALS, 'engine', '--stdio', ...args]);
  started.push(process);
  expect((await process.request(1, 'initialize', INITIALIZE_PARAMS)).result).toBeDefined();
  return process;
}

/** One evaluate_batch whose plugin assertion scores `score` (submitted first, as a notification). */
async function scored(process: EngineProcess, id: number, score: number): Promise<void> {
  const result = { status: score >= 0.5 ? 'pass' : 'soft_fail', score, explanation: 'scored' };
  process.send({
    jsonrpc: '2.0',
    method: 'submit_plugin_result',
    params: { trace_id: `t${id}`, plugin_name: 'scorer', assertion_id: 'quality', result },
  });
  const reply = await process.request(id, 'evaluate_batch', {
    trace: { ...TRACE, trace_id: `t${id}` },
    assertions: [{ assertion_id: 'quality', type: 'plugin', spec: {} }],
  });
  expect(reply.error).toBeUndefined();
}

describe('evals engine --stdio --store', () => {
  it('keeps drift history across engine processes', async () => {
    const store = ['--store', `sqlite:${join(dir, 'book.sqlite')}`];
    const first = await session(store);
    for (let run = 0; run < 10; run++) await scored(first, 10 + run, 0.9);
    await first.request(2, 'shutdown', {});
    expect(await first.exited).toBe(0);

    const second = await session(store);
    await scored(second, 30, 0.4);
    const drift = await second.request(3, 'query_drift', { assertion_id: 'quality', static_threshold: 0 });
    expect(drift.result).toMatchObject({
      report: { count: 10, latest_score: 0.4, status: 'drift_detected' },
    });

    const inMemory = await session([]);
    await scored(inMemory, 40, 0.4);
    const fresh = await inMemory.request(4, 'query_drift', { assertion_id: 'quality', static_threshold: 0 });
    expect(fresh.result).toMatchObject({ report: { count: 0, baseline_active: false, status: 'ok' } });
  });

  it('refuses a store it cannot open, with exit 2', async () => {
    const process = EngineProcess.start('node', [EVALS, 'engine', '--stdio', '--store', 'mysql://nope']);
    started.push(process);
    expect(await process.exited).toBe(2);
    expect(process.stderr.join('\n')).toContain('unknown store URL');
  });
});
