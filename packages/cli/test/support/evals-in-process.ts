// Test support: `evals ARGS` without a process — the binary's own main() (argv → createProgram() →
// one command → exit code) run in this test's process, in `cwd`, with its stdout and stderr captured
// and its exit code read from process.exitCode, shaped like spawnSync's result. For the rows of a
// mutation table that only need the command's answer; what only a process shows (a crash, a signal,
// what reaches a pipe or a terminal) stays with the spawned binary. A command that calls
// process.exit, or listens for signals it does not stop listening to, fails the test.
import { main } from '../../src/main.ts';

export interface EvalsRun {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

type Write = typeof process.stdout.write;

/** A write that keeps the text and calls the callback, as a pipe that is always ready would. */
function capture(into: string[]): Write {
  return ((chunk: string | Uint8Array, encoding?: unknown, callback?: unknown): boolean => {
    into.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') queueMicrotask(() => (done as (error?: Error) => void)());
    return true;
  }) as Write;
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

let running = false;

export async function evalsInProcess(args: readonly string[], cwd: string): Promise<EvalsRun> {
  if (running) throw new Error('evalsInProcess: one run at a time (it owns cwd, stdout and exit code)');
  running = true;
  const out: string[] = [];
  const err: string[] = [];
  const saved = {
    cwd: process.cwd(),
    stdoutWrite: process.stdout.write,
    stderrWrite: process.stderr.write,
    exit: process.exit,
    exitCode: process.exitCode,
    stdoutErrorListeners: process.stdout.listeners('error'),
    signalListeners: SIGNALS.map((signal) => process.listeners(signal)),
  };
  process.exitCode = undefined;
  process.chdir(cwd);
  process.stdout.write = capture(out);
  process.stderr.write = capture(err);
  process.exit = ((code?: number) => {
    throw new Error(`evals called process.exit(${String(code)}) in-process; run it as a process`);
  }) as typeof process.exit;
  try {
    await main(['node', 'evals', ...args]);
    const exitCode = process.exitCode as number | string | undefined;
    const leftListening = SIGNALS.filter(
      (signal, index) => process.listeners(signal).length !== saved.signalListeners[index]?.length,
    );
    if (leftListening.length > 0)
      throw new Error(`evals ${args.join(' ')} left listeners for ${leftListening.join(', ')}`);
    return { status: Number(exitCode ?? 0), stdout: out.join(''), stderr: err.join('') };
  } finally {
    process.chdir(saved.cwd);
    process.stdout.write = saved.stdoutWrite;
    process.stderr.write = saved.stderrWrite;
    process.exit = saved.exit;
    process.exitCode = saved.exitCode;
    // main() listens for EPIPE on stdout on every run.
    for (const listener of process.stdout.listeners('error'))
      if (!saved.stdoutErrorListeners.includes(listener))
        process.stdout.removeListener('error', listener as (error: Error) => void);
    running = false;
  }
}
