// What only a process shows of the checks engine's commands: `evals engine --stdio` exits 0 after
// shutdown (even with stdin left open) having written nothing but responses to stdout, and refuses
// to start (exit 2) on an unusable provider setting; the `evals-engine` bin (what Attest SDKs launch
// through ATTEST_ENGINE_PATH) serves with only --log-level on its command line. Every protocol row
// runs in-process in engine.conformance.test.ts.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

import { EngineProcess, INITIALIZE_PARAMS } from '@paperclip-evals/test-kit/engine-process';
import { COST_CHECK, JUDGE_CHECK, TRACE } from './support/engine-trace.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'packages/cli/bin/evals.js');
const EVALS_ENGINE = join(ROOT, 'packages/cli/bin/evals-engine.js');

const started: EngineProcess[] = [];
function engine(env: Record<string, string> = {}): EngineProcess {
  const process = EngineProcess.start('node', [EVALS, 'engine', '--stdio'], env);
  started.push(process);
  return process;
}
async function initialized(env: Record<string, string> = {}): Promise<EngineProcess> {
  const process = engine(env);
  expect((await process.request(1, 'initialize', INITIALIZE_PARAMS)).result).toBeDefined();
  return process;
}
afterEach(() => {
  for (const process of started.splice(0)) process.kill();
});

describe('evals engine --stdio: the process', () => {
  it('answers shutdown with its counts, then exits 0 having written nothing else', async () => {
    const process = await initialized();
    await process.request(2, 'evaluate_batch', { trace: TRACE, assertions: [COST_CHECK, JUDGE_CHECK] });
    const reply = await process.request(3, 'shutdown', {});
    expect(reply.result).toEqual({ sessions_completed: 1, assertions_evaluated: 2 });
    expect(await process.finish()).toEqual({ code: 0, rest: [] });
  });

  it('answers a request pipelined behind shutdown with 3003, then exits 0 though stdin stays open', async () => {
    const process = await initialized();
    process.send({ jsonrpc: '2.0', id: 2, method: 'shutdown', params: {} });
    process.send({ jsonrpc: '2.0', id: 3, method: 'query_drift', params: { assertion_id: 'a' } });
    process.send({ jsonrpc: '2.0', method: 'query_drift', params: { assertion_id: 'a' } });
    expect((await process.next()).id).toBe(2);
    const late = await process.next();
    expect(late).toMatchObject({ id: 3, error: { code: 3003, data: { error_type: 'SESSION_ERROR' } } });
    expect(late.error?.message).toMatch(/after shutdown/);
    // Nothing more arrives within the grace period, so the engine ends without stdin ending.
    expect(await process.exited).toBe(0);
    expect(await process.nextLine()).toBeUndefined();
  });

  it('refuses to start (exit 2) on an unusable provider setting', async () => {
    const process = engine({ EVALS_ENGINE_PROVIDER_BASE_URL: 'not a url' });
    const { code, rest } = await process.finish();
    expect(code).toBe(2);
    expect(rest).toEqual([]);
    expect(process.stderr.join('\n')).toContain('EVALS_ENGINE_PROVIDER_BASE_URL');
  });
});

describe('evals-engine (drop-in for Attest SDKs)', () => {
  it('answers requests sent one at a time that reuse id 1, in order, writing only responses to stdout', async () => {
    const process = EngineProcess.start('node', [EVALS_ENGINE, '--log-level=debug']);
    started.push(process);
    const first = await process.request(1, 'initialize', INITIALIZE_PARAMS);
    const second = await process.request(1, 'evaluate_batch', { trace: TRACE, assertions: [COST_CHECK] });
    expect(first.result?.protocol_version).toBe(1);
    expect(second).toMatchObject({ id: 1, result: { results: [{ assertion_id: 'cost', status: 'pass' }] } });
    expect((await process.request(2, 'shutdown', {})).result).toBeDefined();
    expect(await process.finish()).toEqual({ code: 0, rest: [] });
    expect(process.stderr.length).toBeGreaterThan(0);
    for (const line of process.stderr) expect(JSON.parse(line)).toMatchObject({ logger: 'engine' });
  });

  it('answers pipelined requests with the same id in request order', async () => {
    const process = EngineProcess.start('node', [EVALS_ENGINE]);
    started.push(process);
    process.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INITIALIZE_PARAMS });
    process.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'evaluate_batch',
      params: { trace: TRACE, assertions: [COST_CHECK] },
    });
    process.send({ jsonrpc: '2.0', id: 1, method: 'validate_trace_tree', params: { trace: TRACE } });
    const replies = [await process.next(), await process.next(), await process.next()];
    expect(replies.map((reply) => Object.keys(reply.result ?? {}).sort()[0])).toEqual([
      'capabilities',
      'results',
      'agent_count',
    ]);
  });

  it.each([[['--stdio']], [['--log-level=info', '--config', 'x.yaml']], [['serve']]])(
    'refuses %j with usage and exit 2',
    async (args) => {
      const process = EngineProcess.start('node', [EVALS_ENGINE, ...args]);
      started.push(process);
      const { code, rest } = await process.finish();
      expect(code).toBe(2);
      expect(rest).toEqual([]);
      expect(process.stderr.join('\n')).toMatch(/usage: evals-engine/);
    },
  );

  // The Attest engine's command line (cmd/attest-engine/main.go:19-37, Go's flag package): one or two
  // dashes, a value after = or as the next argument, -debug, and the version and cache commands.
  it.each([
    [['-log-level=info']],
    [['--log-level', 'error']],
    [['-debug']],
    [['--debug', '--log-level=error']],
  ])('serves with %j on its command line', async (args) => {
    const process = EngineProcess.start('node', [EVALS_ENGINE, ...args]);
    started.push(process);
    expect((await process.request(1, 'initialize', { protocol_version: 1 })).result).toMatchObject({
      protocol_version: 1,
    });
    expect((await process.request(2, 'shutdown', {})).result).toBeDefined();
    expect((await process.finish()).code).toBe(0);
  });

  it('answers version and cache stats|clear as commands, touching nothing', async () => {
    const version = EngineProcess.start('node', [EVALS_ENGINE, 'version']);
    const missing = join(ROOT, 'no-such-cache-dir');
    const stats = EngineProcess.start('node', [EVALS_ENGINE, 'cache', 'stats'], {
      ATTEST_CACHE_DIR: missing,
    });
    const clear = EngineProcess.start('node', [EVALS_ENGINE, 'cache', 'clear'], { ATTEST_CACHE_DIR: ROOT });
    const bare = EngineProcess.start('node', [EVALS_ENGINE, 'cache']);
    started.push(version, stats, clear, bare);
    expect(await version.finish()).toEqual({
      code: 0,
      rest: [expect.stringMatching(/^evals-engine \d+\.\d+\.\d+/)],
    });
    expect(await stats.finish()).toEqual({ code: 0, rest: [`cache directory does not exist: ${missing}`] });
    const cleared = await clear.finish();
    expect(cleared.code).toBe(0);
    expect(cleared.rest.join('\n')).toMatch(/^nothing to clear in /);
    expect((await bare.finish()).code).toBe(1);
  });

  it('exits 1 when SIGTERM stops it, as the Attest engine does', async () => {
    const child = spawn('node', [EVALS_ENGINE], { stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocol_version: 1 } })}\n`,
    );
    await new Promise((resolve) => child.stdout.once('data', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(1);
  });

  // An Attest SDK's stop(): shutdown, then SIGTERM as soon as the reply is read (engine-manager.ts),
  // while the engine still waits for requests written behind shutdown. That is the session's clean
  // end: exit 0, for the bin and for `evals engine --stdio` (before shutdown: 1, and the signal's own end).
  it.each([
    ['evals-engine', 1, [EVALS_ENGINE]],
    ['evals engine --stdio', 'SIGTERM', [EVALS, 'engine', '--stdio']],
  ])('%s exits 0 on SIGTERM right after the shutdown reply (%s before it)', async (_name, before, args) => {
    const stop = async (shutDownFirst: boolean): Promise<number | string | null> => {
      const child = spawn('node', args, { stdio: ['pipe', 'pipe', 'pipe'] });
      const exited = new Promise<number | string | null>((resolve) =>
        child.on('exit', (code, signal) => {
          resolve(code ?? signal);
        }),
      );
      const replies = createInterface({ input: child.stdout });
      const reply = (): Promise<string> => new Promise((resolve) => replies.once('line', resolve));
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INITIALIZE_PARAMS })}\n`,
      );
      await reply();
      if (shutDownFirst) {
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'shutdown', params: {} })}\n`);
        expect(JSON.parse(await reply())).toMatchObject({ id: 2, result: {} });
      }
      child.kill('SIGTERM');
      return exited;
    };
    expect(await stop(true)).toBe(0);
    expect(await stop(false)).toBe(before);
  });

  // The Attest engine's code and words for it (cmd/attest-engine/main.go:50-52).
  it('refuses an unknown log level with exit 1', async () => {
    const process = EngineProcess.start('node', [EVALS_ENGINE, '--log-level=loud']);
    started.push(process);
    expect((await process.finish()).code).toBe(1);
    expect(process.stderr.join('\n')).toContain('invalid log level: loud');
  });
});
