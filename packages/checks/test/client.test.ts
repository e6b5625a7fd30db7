// EngineClient against real engine processes: the checks engine itself (built dist), and a fake
// engine that hangs, lies about ids, answers the wrong assertions or writes garbage; and the engine's
// whole process group killed when SIGTERM or SIGINT stops the client's process.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

import { goneWithin } from '@paperclip-evals/test-kit/processes';

import { EngineClient } from '../src/client.ts';
import { ChecksError } from '../src/errors.ts';

import type { EngineClientOptions } from '../src/client.ts';

const CHECKS_DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const checksModule = (file: string): string => JSON.stringify(`${CHECKS_DIST}${file}`);
const FAKE_ENGINE = fileURLToPath(new URL('./support/fake-engine.mjs', import.meta.url));
const REAL_ENGINE_SOURCE = `
  import { EngineServer, serveStdio } from ${checksModule('index.js')};
  await serveStdio({ server: new EngineServer(), input: process.stdin, output: process.stdout });
  process.exit(0);
`;
const INITIALIZE = {
  sdk_name: 'client-test',
  sdk_version: '1.1.0',
  protocol_version: 1,
  required_capabilities: ['layers_1_4'],
  preferred_encoding: 'json',
} as const;
const TRACE = {
  schema_version: 1,
  trace_id: 'fast',
  output: { message: 'done' },
  metadata: { cost_usd: 0.001 },
};
const COST = {
  assertion_id: 'cost',
  type: 'constraint',
  spec: { field: 'metadata.cost_usd', operator: 'lt', value: 0.01 },
};

const clients: EngineClient[] = [];
function client(options: Partial<EngineClientOptions> & { args: string[] }): EngineClient {
  const created = new EngineClient({
    command: process.execPath,
    env: { PATH: process.env.PATH ?? '' },
    ...options,
  });
  clients.push(created);
  return created;
}
afterEach(async () => {
  await Promise.all(clients.splice(0).map((created) => created.close()));
});

describe('EngineClient with the real checks engine', () => {
  it('initializes, evaluates, and relays engine errors as the ChecksError of their wire code', async () => {
    const engine = client({ args: ['--input-type=module', '-e', REAL_ENGINE_SOURCE] });
    expect(await engine.initialize(INITIALIZE)).toMatchObject({ protocol_version: 1, compatible: true });
    const reply = await engine.evaluateBatch({ trace: TRACE, assertions: [COST] });
    expect(reply.results).toMatchObject([{ assertion_id: 'cost', status: 'pass' }]);
    const refused = engine.evaluateBatch({ trace: { ...TRACE, trace_id: '' }, assertions: [COST] });
    await expect(refused).rejects.toBeInstanceOf(ChecksError);
    await expect(refused).rejects.toMatchObject({ code: 'invalid_trace', retryable: false });
    await expect(refused).rejects.toHaveProperty('detail', expect.stringMatching(/./));
  });
});

describe('EngineClient with a misbehaving engine', () => {
  it('times out, fails every pending request, restarts the engine and re-initializes it', async () => {
    const engine = client({ args: [FAKE_ENGINE, 'hang-on-slow'] });
    await engine.initialize(INITIALIZE);
    // Only the request that will hang gets a short timeout: startup on a busy machine must not race it.
    const slow = engine.request(
      'evaluate_batch',
      { trace: { ...TRACE, trace_id: 'slow' }, assertions: [COST] },
      1_000,
    );
    const queued = engine.request('query_drift', { assertion_id: 'cost' }, 60_000);
    await expect(slow).rejects.toMatchObject({ name: 'ChecksError', code: 'request_timeout' });
    await expect(queued).rejects.toMatchObject({ name: 'ChecksError', code: 'engine_restarted' });
    const after = (await engine.request('query_drift', { assertion_id: 'cost' })) as { method: string };
    expect(after.method).toBe('query_drift');
    expect(engine.starts).toBe(2);
  });

  it('never resolves a request with a reply to another id', async () => {
    const strays: unknown[] = [];
    const engine = client({ args: [FAKE_ENGINE, 'stray'], onStrayReply: (reply) => strays.push(reply) });
    expect(await engine.request('query_drift', {})).toMatchObject({ method: 'query_drift' });
    expect(strays).toEqual([{ jsonrpc: '2.0', id: 999_999, result: { stray: true } }]);
  });

  it('rejects an evaluation reply whose assertion ids differ from the request', async () => {
    const engine = client({ args: [FAKE_ENGINE, 'mismatch'] });
    const reply = engine.evaluateBatch({ trace: TRACE, assertions: [COST] });
    await expect(reply).rejects.toBeInstanceOf(ChecksError);
    await expect(reply).rejects.toThrowCode('reply_mismatch');
  });

  it('refuses an error reply whose code the protocol does not define, as a protocol violation', async () => {
    const engine = client({ args: [FAKE_ENGINE, 'undefined-error'] });
    const refused = engine.request('query_drift', {});
    await expect(refused).rejects.toMatchObject({ name: 'ChecksError', code: 'protocol_violation' });
    await expect(refused).rejects.toThrow(/-32000/);
  });

  it('gives up on an engine that writes a line that is not JSON', async () => {
    const engine = client({ args: [FAKE_ENGINE, 'garbage'] });
    await expect(engine.request('query_drift', {})).rejects.toThrowCode('protocol_violation');
  });

  it('reads a reply line up to the cap, and refuses one line over it as a protocol violation', async () => {
    const within = client({ args: [FAKE_ENGINE, 'padded', '4096'], maxReplyLineBytes: 4096 });
    const reply = (await within.request('query_drift', {})) as { padding: string };
    expect(reply.padding.length).toBeGreaterThan(4000);
    const over = client({ args: [FAKE_ENGINE, 'padded', '4097'], maxReplyLineBytes: 4096 });
    const refused = over.request('query_drift', {});
    await expect(refused).rejects.toThrowCode('protocol_violation');
    await expect(refused).rejects.toThrow(/4097 bytes over the 4096-byte reply line cap/);
  });

  it('refuses a reply line that is not UTF-8 instead of reading it with replacement characters', async () => {
    const engine = client({ args: [FAKE_ENGINE, 'not-utf8'] });
    const refused = engine.request('query_drift', {});
    await expect(refused).rejects.toThrowCode('protocol_violation');
    await expect(refused).rejects.toThrow(/not UTF-8/);
  });

  it('fails pending requests with connection_closed when the engine exits', async () => {
    const engine = client({ args: ['-e', 'process.stdin.once("data", () => process.exit(3))'] });
    await expect(engine.request('initialize', INITIALIZE)).rejects.toMatchObject({
      code: 'connection_closed',
    });
  });

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)(
    'kills the engine and what it started when %s stops its user (exit %i)',
    async (signal, exitCode) => {
      // A user of the client in its own process: an engine that starts a grandchild and never answers.
      const pidsFile = join(mkdtempSync(join(tmpdir(), 'engine-client-signal-')), 'pids');
      const engineSource = `const { spawn } = require('node:child_process');
        const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
        require('node:fs').writeFileSync(${JSON.stringify(pidsFile)}, process.pid + ' ' + grandchild.pid);
        setInterval(() => {}, 1000);`;
      const userSource = `import { EngineClient } from ${checksModule('client.js')};
        const client = new EngineClient({ command: process.execPath, args: ['-e', ${JSON.stringify(engineSource)}] });
        client.request('query_drift', {}).catch(() => undefined);`;
      const user = spawn(process.execPath, ['--input-type=module', '-e', userSource], { stdio: 'ignore' });
      const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
        user.on('close', (code, sig) => {
          resolve({ code, signal: sig });
        });
      });
      try {
        const deadline = Date.now() + 10_000;
        while (!/^\d+ \d+$/.test(existsSync(pidsFile) ? readFileSync(pidsFile, 'utf8') : '')) {
          if (Date.now() > deadline) throw new Error('the engine never started');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        const pids = readFileSync(pidsFile, 'utf8').split(' ').map(Number);
        user.kill(signal);
        expect(await exited).toEqual({ code: exitCode, signal: null });
        expect(await goneWithin(pids), `pids ${pids.join(', ')} still run`).toBe(true);
      } finally {
        user.kill('SIGKILL');
        for (const pid of existsSync(pidsFile) ? readFileSync(pidsFile, 'utf8').split(' ').map(Number) : [])
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // gone
          }
        rmSync(join(pidsFile, '..'), { recursive: true, force: true });
      }
    },
  );
});
