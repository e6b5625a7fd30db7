// Test support: `evals ARGS` without a process — the binary's own main() (argv → createProgram() →
// one command → exit code) run in this test's process, in `cwd`, with its stdout and stderr captured
// and its exit code read from process.exitCode, shaped like spawnSync's result. For the rows of a
// mutation table that only need the command's answer; what only a process shows (a crash, a signal,
// what reaches a pipe or a terminal) stays with the spawned binary. A command that calls
// process.exit, or listens for signals it does not stop listening to, fails the test.
import { vi } from 'vitest';

import { main } from '../../src/main.ts';

export interface EvalsRun {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** What a write to a pipe that is always ready does: keep the text, call the callback. */
function captured(into: string[]) {
  return (chunk: string | Uint8Array, encoding?: unknown, callback?: unknown): boolean => {
    into.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function')
      queueMicrotask(() => {
        (done as (error?: Error) => void)();
      });
    return true;
  };
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

let running = false;

export async function evalsInProcess(args: readonly string[], cwd: string): Promise<EvalsRun> {
  if (running) throw new Error('evalsInProcess: one run at a time (it owns cwd, stdout and exit code)');
  running = true;
  const out: string[] = [];
  const err: string[] = [];
  const savedCwd = process.cwd();
  const savedExitCode = process.exitCode;
  const stdoutErrorListeners = process.stdout.listeners('error');
  const signalListeners = SIGNALS.map((signal) => process.listeners(signal).length);
  const spies = [
    vi.spyOn(process.stdout, 'write').mockImplementation(captured(out)),
    vi.spyOn(process.stderr, 'write').mockImplementation(captured(err)),
    vi.spyOn(process, 'exit').mockImplementation((code) => {
      throw new Error(`evals called process.exit(${String(code)}) in-process; run it as a process`);
    }),
  ];
  process.exitCode = undefined;
  process.chdir(cwd);
  try {
    await main(['node', 'evals', ...args]);
    const exitCode = process.exitCode as number | string | undefined;
    const leftListening = SIGNALS.filter(
      (signal, index) => process.listeners(signal).length !== signalListeners[index],
    );
    if (leftListening.length > 0)
      throw new Error(`evals ${args.join(' ')} left listeners for ${leftListening.join(', ')}`);
    return { status: Number(exitCode ?? 0), stdout: out.join(''), stderr: err.join('') };
  } finally {
    process.chdir(savedCwd);
    for (const spy of spies) spy.mockRestore();
    process.exitCode = savedExitCode;
    // main() listens for EPIPE on stdout on every run.
    for (const listener of process.stdout.listeners('error'))
      if (!stdoutErrorListeners.includes(listener))
        process.stdout.removeListener('error', listener as (error: Error) => void);
    running = false;
  }
}
