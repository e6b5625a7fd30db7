// `evals engine --stdio --store URL`: drift history kept in an Evalbook outlives the engine process.
// One engine session scores an assertion ten times and shuts down; a second session, started later
// on the same SQLite store, scores it low once and query_drift sees all eleven runs (drift detected).
// Without --store, the second session starts from nothing.
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { EngineProcess, INITIALIZE_PARAMS } from '@paperclip-evals/test-kit/engine-process';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'packages/cli/bin/evals.js');
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

  it('still answers evaluate_batch when the store fails mid-session, and query_drift 3001', async () => {
    const file = join(dir, 'failing.sqlite');
    const engine = await session(['--store', `sqlite:${file}`]);
    // Break the store under the running engine: its next read or write of drift runs fails.
    type Database = { exec(sql: string): void; close(): void };
    const open = createRequire(join(ROOT, 'packages/evalbook/package.json'))('better-sqlite3') as new (
      path: string,
    ) => Database;
    const db = new open(file);
    db.exec('DROP TABLE drift_runs');
    db.close();
    engine.send({
      jsonrpc: '2.0',
      method: 'submit_plugin_result',
      params: {
        trace_id: TRACE.trace_id,
        plugin_name: 'scorer',
        assertion_id: 'quality',
        result: { status: 'pass', score: 0.9, explanation: 'scored' },
      },
    });
    const reply = await engine.request(2, 'evaluate_batch', {
      trace: TRACE,
      assertions: [{ assertion_id: 'quality', type: 'plugin', spec: { threshold: 'dynamic' } }],
    });
    expect(reply.result?.results).toMatchObject([
      { status: 'pass', threshold_source: 'dynamic_unavailable' },
    ]);
    const drift = await engine.request(3, 'query_drift', { assertion_id: 'quality' });
    expect(drift.error).toMatchObject({ code: 3001, data: { error_type: 'ENGINE_ERROR' } });
    expect(engine.stderr.join('\n')).toContain('drift history unavailable');
  });

  it('refuses a store it cannot open, with exit 2', async () => {
    const process = EngineProcess.start('node', [EVALS, 'engine', '--stdio', '--store', 'mysql://nope']);
    started.push(process);
    expect(await process.exited).toBe(2);
    expect(process.stderr.join('\n')).toContain('unknown store URL');
  });

  it('names the code and every issue of a store it cannot use, like every other command', async () => {
    const garbage = join(dir, 'garbage.sqlite');
    writeFileSync(garbage, 'not a database at all, '.repeat(400));
    const process = EngineProcess.start('node', [EVALS, 'engine', '--stdio', '--store', `sqlite:${garbage}`]);
    started.push(process);
    expect(await process.exited).toBe(2);
    const stderr = process.stderr.join('\n');
    expect(stderr).toContain('paperclip_evalbook_store_unusable');
    expect(stderr).toMatch(/\n {2}store_corrupt: /); // the issue line: code, where, what
  });
});
