// `evals policy evaluate` as a real process: the golden transcript (regenerated from the process on
// every run and compared with the stored file; refresh with EVALS_UPDATE_TRANSCRIPT=1 after
// review), the standalone flags and exit codes, and its isolation: no files written, no network,
// no input-named path opened, the same output whatever the environment.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { bundleOf, denyRm, writeRate } from '@paperclip-evals/test-kit/policy-bundles';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(REPO, 'packages/cli/bin/evals.js');
const GOLDEN = fileURLToPath(new URL('./golden/evaluate-transcript.json', import.meta.url));

/** The fields of a reply frame these tests read. */
interface Reply {
  type?: string;
  id?: unknown;
  skipped?: unknown[];
  error?: { code?: string };
  decision?: { verdict?: string };
  state_out?: { c?: unknown };
}

function evaluate(args: string[], input = '', env: NodeJS.ProcessEnv = process.env, cwd = REPO) {
  return spawnSync(process.execPath, [EVALS, 'policy', 'evaluate', ...args], {
    input,
    encoding: 'utf8',
    env,
    cwd,
  });
}

/** Runs the producer interactively: each frame is written only after the previous reply was read. */
async function transcript(): Promise<unknown> {
  const describeRun = evaluate(['--describe']);
  const child = spawn(process.execPath, [EVALS, 'policy', 'evaluate'], { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<string> => {
    const line = await lines.next();
    if (line.done === true) throw new Error('the producer closed stdout early');
    return line.value;
  };
  const exchanges: { in: string; out: string }[] = [];
  const exchange = async (frame: string): Promise<Record<string, unknown>> => {
    child.stdin.write(`${frame}\n`);
    const out = await next();
    exchanges.push({ in: frame, out });
    return JSON.parse(out) as Record<string, unknown>;
  };
  const handshake = await next();
  const bundle = bundleOf(
    denyRm,
    writeRate,
    { kind: 't3_future', id: 'from-a-newer-engine', version: 1, body: {} },
    { ...denyRm, id: 'broken-regex', body: { ...denyRm.body, when: { field: 'tool_name', regex: '(' } } },
  );
  await exchange(JSON.stringify({ type: 'bundle', bundle }));
  const zeroed = '{"c":[0],"f":[false],"t":[0,0,0],"a":[],"run":null}';
  const first = await exchange(
    `{"type":"row","id":"w1","event":{"tool_name":"Write"},"state_in":${zeroed},"now_ms":1757000000000}`,
  );
  const lastGood = JSON.stringify(first.state_out);
  await exchange(
    `{"type":"row","id":"w2","event":{"tool_name":"Write"},"state_in":${lastGood},"now_ms":1757000001000.5}`,
  );
  await exchange(
    `{"type":"row","id":"w3","event":{"tool_name":"Write"},"state_in":${lastGood},"now_ms":1757000002000}`,
  );
  await exchange(
    `{"type":"row","id":"rm","event":{"tool_name":"Bash","tool_input":{"command":"rm -rf build"}},"state_in":null,"now_ms":1757000003000}`,
  );
  child.stdin.end();
  const exitCode = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return {
    note: 'Generated from the real `evals policy evaluate` process by packages/cli/test/policy-evaluate.e2e.test.ts. Never edit by hand; after reviewing a producer change run EVALS_UPDATE_TRANSCRIPT=1 npx vitest run packages/cli/test/policy-evaluate.e2e.test.ts',
    describe: { args: ['--describe'], exitCode: describeRun.status, stdout: describeRun.stdout },
    stream: { handshake, exchanges, exitCode },
  };
}

describe('the golden transcript', () => {
  it('matches the real process output exactly', async () => {
    // Frames are stored as exact strings, so comparing the parsed file still compares every byte
    // the process wrote, while the file's own layout (a formatter's business) does not matter.
    const actual = await transcript();
    if (process.env.EVALS_UPDATE_TRANSCRIPT === '1')
      await writeFile(GOLDEN, `${JSON.stringify(actual, null, 2)}\n`);
    expect(actual).toEqual(JSON.parse(await readFile(GOLDEN, 'utf8')));
  });

  it('shows what the protocol requires: skipped artifacts, a success, a row error, then a success threaded from the last good state', async () => {
    const golden = JSON.parse(await readFile(GOLDEN, 'utf8')) as {
      stream: { exchanges: { in: string; out: string }[] };
    };
    const [ack, w1, w2, w3] = golden.stream.exchanges.map((exchange) => JSON.parse(exchange.out) as Reply);
    expect(ack?.skipped).toHaveLength(2);
    expect(w1?.state_out).toBeDefined();
    expect(w2?.error?.code).toBe('OL-1240');
    expect((JSON.parse(golden.stream.exchanges[3]!.in) as { state_in: unknown }).state_in).toEqual(
      w1?.state_out,
    );
    expect(w3?.state_out?.c).toEqual([2]);
  });
});

describe('standalone flags', () => {
  it('--describe writes exactly the handshake line and exits 0 without reading stdin', async () => {
    // stdin stays an open pipe that never ends: a producer that read it would never exit.
    const child = spawn(process.execPath, [EVALS, 'policy', 'evaluate', '--describe'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const status = await new Promise<number | null>((resolve) => child.once('close', resolve));
    child.stdin.destroy();
    expect(status).toBe(0);
    expect(stdout.split('\n')).toHaveLength(2);
    expect(JSON.parse(stdout)).toMatchObject({
      type: 'handshake',
      protocol_version: 1,
      engine_version: expect.any(String) as unknown,
      corpus_digest: expect.stringMatching(/^sha256:/) as unknown,
    });
    expect(stderr).toBe('');
  });

  it('--listen is refused on stderr with exit 2 and no stdout', () => {
    const run = evaluate(['--listen', '/tmp/evals.sock'], '{"type":"row"}\n');
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/reserved and not implemented/);
  });

  it('--listen conflicts with --describe at parsing (exit 2, no stdout)', () => {
    const run = evaluate(['--describe', '--listen', '/tmp/evals.sock']);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/cannot be used with/);
  });
});

describe('exit codes', () => {
  const header = JSON.stringify({ type: 'bundle', bundle: bundleOf(denyRm) });
  it('0 for a zero-row load check, even after a bundle_error', () => {
    const run = evaluate([], `${header}\n{"type":"bundle","bundle":{}}\n`);
    expect(run.status).toBe(0);
    expect(
      run.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as Reply).type),
    ).toEqual(['handshake', 'bundle_ack', 'bundle_error']);
  });

  it('1 when any row error was reported, with later rows still answered', () => {
    const run = evaluate(
      [],
      `${header}\n{"type":"row","id":1,"event":{}}\nnot json\n{"type":"row","id":2,"event":{},"now_ms":5}\n`,
    );
    expect(run.status).toBe(1);
    const replies = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Reply);
    expect(replies.map((reply) => [reply.id, reply.error?.code, reply.decision?.verdict])).toEqual([
      [undefined, undefined, undefined],
      [undefined, undefined, undefined],
      [1, 'OL-1240', undefined],
      [2, undefined, 'allow'],
    ]);
    expect(run.stderr).toMatch(/line 3: not JSON/);
  });

  // A consumer that exits (or closes its end of the pipe) while rows are still coming: the producer
  // has no one to answer, stops, says so on stderr — its stdout, not an input, is what failed — and
  // exits 2, never 0 (replies were lost) and never a stack trace.
  it('2 when the reader closes stdout mid-stream: said on stderr as stdout closed, not an unreadable input', async () => {
    const child = spawn(process.execPath, [EVALS, 'policy', 'evaluate'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.stdin.on('error', () => undefined); // it stops reading once its stdout is gone
    const exit = new Promise<number | null>((done) =>
      child.on('close', (code) => {
        done(code);
      }),
    );
    // read the handshake, then close the read end while far more rows than a pipe holds are sent
    await new Promise<void>((done) =>
      child.stdout.once('data', () => {
        done();
      }),
    );
    child.stdout.destroy();
    const row = '{"type":"row","id":"r","event":{},"now_ms":1}\n';
    child.stdin.write(`${header}\n`);
    for (let index = 0; index < 20; index++) child.stdin.write(row.repeat(2000));
    child.stdin.end();
    expect(await exit).toBe(2);
    expect(stderr).toMatch(/^evals policy evaluate: stdout is closed \(EPIPE\)/);
    expect(stderr).not.toMatch(/name a file or folder|input_unreadable|\n\s+at /);
  });
});

describe('isolation', () => {
  let sandbox: string;
  const sentinel = () => join(sandbox, 'home/secret.txt');
  const input = () =>
    [
      JSON.stringify({ type: 'bundle', bundle: bundleOf(denyRm, writeRate) }),
      JSON.stringify({
        type: 'row',
        id: 1,
        event: {
          tool_name: 'Write',
          tool_input: { path: sentinel(), url: 'http://127.0.0.1:9/' },
          env: { home: join(sandbox, 'home'), cwd: sentinel() },
        },
        now_ms: 1,
      }),
      JSON.stringify({
        type: 'row',
        id: 2,
        event: { tool_name: 'Bash', tool_input: { command: `rm ${sentinel()}` } },
        now_ms: 2,
        bundle: bundleOf(denyRm),
      }),
      '',
    ].join('\n');

  beforeAll(async () => {
    sandbox = await mkdtemp(join(tmpdir(), 'evals-policy-isolation-'));
    await import('node:fs/promises').then(({ mkdir }) => mkdir(join(sandbox, 'home')));
    await writeFile(sentinel(), 'sentinel');
  });
  afterAll(async () => {
    await rm(sandbox, { recursive: true, force: true });
  });

  it('writes no file and leaves the sentinel untouched, with the same output under a different environment', async () => {
    const before = await stat(sentinel());
    const runs = [
      evaluate([], input(), { PATH: process.env.PATH ?? '' }, sandbox),
      evaluate(
        [],
        input(),
        {
          PATH: process.env.PATH ?? '',
          HOME: join(sandbox, 'home'),
          TMPDIR: sandbox,
          TZ: 'Pacific/Kiritimati',
          LANG: 'tr_TR.UTF-8',
          HTTP_PROXY: 'http://127.0.0.1:9',
          EVALS_POLICY_SENTINEL: '1',
        },
        sandbox,
      ),
    ];
    expect(runs[0]!.stdout).toBe(runs[1]!.stdout);
    expect(runs[0]!.stdout.split('\n')).toHaveLength(5);
    expect((await readdir(sandbox, { recursive: true })).sort()).toEqual([
      'home',
      join('home', 'secret.txt'),
    ]);
    const after = await stat(sentinel());
    expect([after.mtimeMs, after.size, await readFile(sentinel(), 'utf8')]).toEqual([
      before.mtimeMs,
      before.size,
      'sentinel',
    ]);
  });

  const strace = spawnSync('strace', ['-V']).status === 0;
  it.skipIf(!strace)(
    'makes no network, write or process syscalls and opens no path named by the input (strace)',
    async () => {
      const log = join(tmpdir(), `evals-policy-strace-${process.pid}.txt`);
      const run = spawnSync(
        'strace',
        [
          '-f',
          '-qq',
          '-o',
          log,
          '-e',
          'trace=network,openat,creat,unlink,unlinkat,rename,renameat,renameat2,mkdir,mkdirat,truncate,ftruncate,execve,fork,vfork',
          process.execPath,
          EVALS,
          'policy',
          'evaluate',
        ],
        { input: input(), encoding: 'utf8', cwd: sandbox },
      );
      const calls = await readFile(log, 'utf8');
      await rm(log, { force: true });
      expect(run.status).toBe(0);
      const offending = calls
        .split('\n')
        .filter(
          (line) =>
            /openat\(.*(O_WRONLY|O_RDWR|O_CREAT)|\b(socket|connect|bind|sendto|sendmsg|unlink|unlinkat|rename\w*|mkdir\w*|creat|truncate|ftruncate|vfork|fork)\(/.test(
              line,
            ) || line.includes(sandbox),
        );
      expect(offending).toEqual([]);
      expect(calls.match(/execve\(/g)).toHaveLength(1); // node itself, nothing else
    },
  );
});
