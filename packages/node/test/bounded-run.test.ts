// The one bounded run (startBoundedRun and its entry points runBounded and startKillableRun):
// stdout and the exit code with exactly the environment given, stdin a given text (or /dev/null),
// and the one kill rule — the whole group SIGKILLed on timeout, on oversized output, on the
// caller's kill() and once the leader exits, so nothing it started survives — the one stderr tail,
// cleanup registration on or off, and a command that cannot start. The rules every caller shares
// run as one table over both entry points.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DEFAULT_MAX_STDERR_BYTES, runBounded, runFailure, startBoundedRun } from '../src/bounded-run.ts';
import { guardedCounts } from '../src/child-cleanup.ts';
import { startKillableRun } from '../src/killable-run.ts';
import { goneWithin } from '@paperclip-evals/test-kit/processes';

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
    expect(await goneWithin(background)).toBe(true);
  });

  it('kills what the leader left in its group once it exits, even a child holding stdout open', async () => {
    const started = Date.now();
    const result = await sh('/bin/sleep 30 & echo $!; exit 0');
    expect(Date.now() - started).toBeLessThan(5000); // not the 30 s the straggler would hold stdout
    expect(runFailure(result, 5000)).toBeNull();
    const straggler = Number(result.stdout.toString().trim());
    expect(await goneWithin(straggler)).toBe(true);
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

/** What both entry points report (the killable run's spawn error is its message). */
interface Outcome {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  readonly killed: boolean;
  readonly stderrTail: string;
}
interface EntryPoint {
  readonly name: string;
  /** Whether the group is registered with child-cleanup while it runs. */
  readonly registers: boolean;
  start(script: string, cwd: string, timeoutMs: number): { result: Promise<Outcome>; kill: () => void };
}
const ENTRY_POINTS: readonly EntryPoint[] = [
  {
    name: 'startBoundedRun as runBounded runs it (stdout captured, registered)',
    registers: true,
    start: (script, cwd, timeoutMs) =>
      startBoundedRun({
        command: '/bin/sh',
        args: ['-c', script],
        cwd,
        env: {},
        timeoutMs,
        maxStdoutBytes: 1024,
        registerCleanup: true,
      }),
  },
  {
    name: 'startKillableRun (stdout to /dev/null, not registered)',
    registers: false,
    start: (script, cwd, timeoutMs) => {
      const run = startKillableRun({ command: '/bin/sh', args: ['-c', script], cwd, env: {}, timeoutMs });
      return { result: run.done, kill: run.kill };
    },
  },
];

/** The pid a script wrote to `path`, once it is there. */
async function pidIn(path: string): Promise<number> {
  for (let tries = 0; tries < 200; tries += 1) {
    const text = await readFile(path, 'utf8').catch(() => '');
    if (text.endsWith('\n')) return Number(text.trim());
    await new Promise((done) => setTimeout(done, 25));
  }
  throw new Error(`no pid in ${path}`);
}

// A grandchild: the leader's child shell starts a sleep of its own and waits on it.
const GRANDCHILD = (pids: string) => `/bin/sh -c '/bin/sleep 30 & echo $! > ${pids}; wait' & /bin/sleep 30`;

describe.each(ENTRY_POINTS)('the one kill rule: $name', (entry) => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'node-bounded-run-rule-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a timeout kills the whole group, a grandchild too', async () => {
    const pids = join(dir, 'timeout-pids');
    const outcome = await entry.start(GRANDCHILD(pids), dir, 1500).result;
    expect(outcome).toMatchObject({ timedOut: true, killed: false, exitCode: null });
    const grandchild = await pidIn(pids);
    expect(await goneWithin(grandchild)).toBe(true);
  });

  it("the caller's kill() kills the whole group at once, a grandchild too, and the result says killed", async () => {
    const pids = join(dir, 'kill-pids');
    const run = entry.start(GRANDCHILD(pids), dir, 30_000);
    const grandchild = await pidIn(pids);
    const asked = Date.now();
    run.kill();
    const outcome = await run.result;
    expect(Date.now() - asked).toBeLessThan(5000); // not the 30 s timeout
    expect(outcome).toMatchObject({ timedOut: false, killed: true });
    expect(await goneWithin(grandchild)).toBe(true);
  });

  it('kill() after the end changes nothing', async () => {
    const run = entry.start('exit 4', dir, 5000);
    const outcome = await run.result;
    run.kill();
    expect(outcome).toMatchObject({ exitCode: 4, killed: false, timedOut: false });
  });

  it('the leader exiting ends the run, even with a straggler holding stderr open, and kills it', async () => {
    const started = Date.now();
    const outcome = await entry.start('/bin/sleep 30 & echo $! >&2; exit 0', dir, 20_000).result;
    expect(Date.now() - started).toBeLessThan(10_000); // not the 20 s timeout, nor the straggler's 30 s
    expect(outcome).toMatchObject({ exitCode: 0, timedOut: false, killed: false });
    const straggler = Number(outcome.stderrTail.trim());
    expect(await goneWithin(straggler)).toBe(true);
  });

  it(`keeps the last ${DEFAULT_MAX_STDERR_BYTES} bytes of stderr by default, and stderr never kills`, async () => {
    const script =
      'i=0; while [ $i -lt 2000 ]; do printf 0123456789 >&2; i=$((i+1)); done; printf END >&2; exit 0';
    const outcome = await entry.start(script, dir, 10_000).result;
    expect(outcome).toMatchObject({ exitCode: 0, timedOut: false, killed: false });
    expect(outcome.stderrTail).toHaveLength(DEFAULT_MAX_STDERR_BYTES);
    expect(outcome.stderrTail.endsWith('789END')).toBe(true);
  });

  it(`is ${entry.registers ? '' : 'not '}registered with child-cleanup while it runs, and never after`, async () => {
    const before = guardedCounts().processGroups;
    const run = entry.start('/bin/sleep 30', dir, 30_000);
    expect(guardedCounts().processGroups).toBe(before + (entry.registers ? 1 : 0));
    run.kill();
    await run.result;
    expect(guardedCounts().processGroups).toBe(before);
  });
});

describe('startBoundedRun', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'node-bounded-run-core-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('the stderr tail is the last min(length, cap) bytes, whatever the length and the cap', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: fc.constantFrom('a', 'b', 'c', '\n'), maxLength: 3000 }),
        fc.integer({ min: 1, max: 2000 }),
        fc.boolean(),
        async (text, maxStderrBytes, registerCleanup) => {
          const { result } = startBoundedRun({
            command: '/bin/sh',
            args: ['-c', 'printf %s "$1" >&2', 'sh', text],
            cwd: dir,
            env: {},
            timeoutMs: 10_000,
            maxStdoutBytes: registerCleanup ? 16 : null,
            maxStderrBytes,
            registerCleanup,
          });
          const outcome = await result;
          expect(runFailure(outcome, 10_000)).toBeNull();
          expect(outcome.stderrTail).toBe(text.slice(Math.max(0, text.length - maxStderrBytes)));
        },
      ),
      { numRuns: 12 },
    );
  });

  it('with no stdout cap, stdout is /dev/null: any amount is fine and nothing is kept', async () => {
    const { result } = startBoundedRun({
      command: '/bin/sh',
      args: ['-c', 'i=0; while [ $i -lt 20000 ]; do echo 0123456789; i=$((i+1)); done'],
      cwd: dir,
      env: {},
      timeoutMs: 10_000,
      maxStdoutBytes: null,
      registerCleanup: false,
    });
    const outcome = await result;
    expect(runFailure(outcome, 10_000)).toBeNull();
    expect(outcome.stdoutOverflow).toBe(false);
    expect(outcome.stdout.byteLength).toBe(0);
  });

  it("names the caller's kill as the failure", async () => {
    const run = startBoundedRun({
      command: '/bin/sleep',
      args: ['30'],
      cwd: dir,
      env: {},
      timeoutMs: 30_000,
      maxStdoutBytes: 16,
      registerCleanup: true,
    });
    run.kill();
    expect(runFailure(await run.result, 30_000)).toBe('was stopped by its caller (killed)');
  });
});

describe('startKillableRun', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'node-killable-run-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reports the exit code, the stderr tail and the duration, with an empty environment', async () => {
    const run = startKillableRun({
      command: '/bin/sh',
      args: ['-c', 'printf "%s" "${HOME:-none}" >&2; /bin/sleep 0.2; exit 2'],
      cwd: dir,
      env: {},
      timeoutMs: 5000,
    });
    const outcome = await run.done;
    expect(outcome).toMatchObject({ exitCode: 2, signal: null, stderrTail: 'none', spawnError: null });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(150);
  });

  it('reports a command that cannot start, as its message', async () => {
    const outcome = await startKillableRun({
      command: join(dir, 'no-such-command'),
      args: [],
      cwd: dir,
      env: {},
      timeoutMs: 1000,
    }).done;
    expect(outcome.spawnError).toMatch(/ENOENT/);
    expect(outcome).toMatchObject({ exitCode: null, timedOut: false, killed: false });
  });
});
