// The one bounded run: stdout and the exit code with exactly the environment given, stdin a given
// text (or /dev/null), and the one kill rule — the whole group SIGKILLed on timeout, on oversized
// output and once the leader exits, so nothing it started survives — and a command that cannot start.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runBounded, runFailure } from '../src/bounded-run.ts';
import { isRunning } from './support/processes.ts';

describe('runBounded', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'node-bounded-run-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const sh = (script: string, timeoutMs = 5000, maxStdoutBytes = 1024) =>
    runBounded({ command: '/bin/sh', args: ['-c', script], cwd: dir, env: {}, timeoutMs, maxStdoutBytes });

  it('returns stdout and the exit code, with an empty environment', async () => {
    const result = await sh('printf "%s|%s" "${HOME:-none}" "$PWD"; exit 3');
    expect(result.stdout.toString()).toBe(`none|${dir}`);
    expect(runFailure(result, 5000)).toBe('exited with code 3');
  });

  it('writes the given stdin and closes it; without one, stdin is at its end at once', async () => {
    const echoed = await runBounded({
      command: '/bin/cat',
      args: [],
      cwd: dir,
      env: {},
      timeoutMs: 5000,
      maxStdoutBytes: 1024,
      stdin: 'nonce\n',
    });
    expect(echoed.stdout.toString()).toBe('nonce\n');
    expect((await sh('cat; echo end')).stdout.toString()).toBe('end\n');
  });

  it('kills the whole group on timeout, so nothing it started survives', async () => {
    const pids = join(dir, 'pids');
    const result = await sh(`/bin/sleep 30 & echo $! > ${pids}; /bin/sleep 30`, 300);
    expect(result.timedOut).toBe(true);
    const background = Number((await readFile(pids, 'utf8')).trim());
    await new Promise((done) => setTimeout(done, 100));
    expect(await isRunning(background)).toBe(false);
  });

  it('kills what the leader left in its group once it exits, even a child holding stdout open', async () => {
    const started = Date.now();
    const result = await sh('/bin/sleep 30 & echo $!; exit 0');
    expect(Date.now() - started).toBeLessThan(5000); // not the 30 s the straggler would hold stdout
    expect(runFailure(result, 5000)).toBeNull();
    const straggler = Number(result.stdout.toString().trim());
    await new Promise((done) => setTimeout(done, 100));
    expect(await isRunning(straggler)).toBe(false);
  });

  it('keeps the end of stderr, never more than its cap, and stderr never kills', async () => {
    const result = await runBounded({
      command: '/bin/sh',
      args: ['-c', 'i=0; while [ $i -lt 500 ]; do printf 0123456789 >&2; i=$((i+1)); done; printf END >&2'],
      cwd: dir,
      env: {},
      timeoutMs: 5000,
      maxStdoutBytes: 10,
      maxStderrBytes: 100,
    });
    expect(runFailure(result, 5000)).toBeNull();
    expect(result.stderrTail).toHaveLength(100);
    expect(result.stderrTail.endsWith('789END')).toBe(true);
  });

  it('kills a process that prints more than its cap', async () => {
    const result = await sh('while :; do echo 0123456789; done', 5000, 4096);
    expect(result.stdoutOverflow).toBe(true);
    expect(runFailure(result, 5000)).toMatch(/output limit/);
  });

  it('reports a command that cannot start', async () => {
    const result = await runBounded({
      command: join(dir, 'no-such-command'),
      args: [],
      cwd: dir,
      env: {},
      timeoutMs: 1000,
      maxStdoutBytes: 10,
    });
    expect(runFailure(result, 1000)).toMatch(/could not be started/);
  });
});
