// Test support: `evals ARGS` without a process — the program the binary runs (createProgram +
// runProgram) in this test's process, in `cwd`, with everything it prints collected through
// print.ts's sink, shaped like spawnSync's result. For the rows of a table that only need the
// command's answer; what only a process shows (a crash, a signal, what reaches a pipe or a terminal)
// stays with the spawned binary. A document written to stdout (writeOutputFile streams it to
// process.stdout itself, not through the sink) is collected too. A command that calls process.exit, or leaves a signal listener
// behind, fails the test. `env` sets (a string) or unsets (undefined) variables for the run only.
import { vi } from 'vitest';

import { setOutputSink } from '../../src/print.ts';
import { createProgram, runProgram } from '../../src/program.ts';

export interface EvalsRun {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

let running = false;

/** A terminal the in-process program writes to: stderr always, stdout too when `stdout`; `columns` wide (unset: it does not say). */
export interface Terminal {
  readonly columns?: number;
  readonly stdout?: boolean;
}

export async function evalsInProcess(
  args: readonly string[],
  cwd: string,
  env: Readonly<Record<string, string | undefined>> = {},
  /** Whether stderr reads as a terminal (progress lines), and of what width; stdout only when the terminal says so. */
  stderrIsTerminal: boolean | Terminal = false,
): Promise<EvalsRun> {
  if (running) throw new Error('evalsInProcess: one run at a time (it owns cwd, env and the output sink)');
  running = true;
  const printed: Record<'stdout' | 'stderr', Buffer[]> = { stdout: [], stderr: [] };
  const savedCwd = process.cwd();
  const signalListeners = SIGNALS.map((signal) => process.listeners(signal).length);
  const previousSink = setOutputSink({
    write: (stream, text, done) => {
      printed[stream].push(Buffer.from(text));
      done?.();
    },
    isTerminal: (stream) =>
      stream === 'stderr'
        ? stderrIsTerminal !== false
        : typeof stderrIsTerminal === 'object' && stderrIsTerminal.stdout === true,
    columns: () => (typeof stderrIsTerminal === 'object' ? stderrIsTerminal.columns : undefined),
  });
  const direct = (['stdout', 'stderr'] as const).map((stream) =>
    vi
      .spyOn(process[stream], 'write')
      .mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
        printed[stream].push(Buffer.from(chunk));
        const done = rest.find((value) => typeof value === 'function') as (() => void) | undefined;
        if (done !== undefined) queueMicrotask(done);
        return true;
      }),
  );
  const exit = vi.spyOn(process, 'exit').mockImplementation((code) => {
    throw new Error(`evals called process.exit(${String(code)}) in-process; run it as a process`);
  });
  process.chdir(cwd);
  const savedEnv = Object.keys(env).map((name) => [name, process.env[name]] as const);
  for (const [name, value] of Object.entries(env)) setVariable(name, value);
  try {
    const status = await runProgram(['node', 'evals', ...args], createProgram());
    const leftListening = SIGNALS.filter(
      (signal, index) => process.listeners(signal).length !== signalListeners[index],
    );
    if (leftListening.length > 0)
      throw new Error(`evals ${args.join(' ')} left listeners for ${leftListening.join(', ')}`);
    const text = (stream: 'stdout' | 'stderr'): string => Buffer.concat(printed[stream]).toString('utf8');
    return { status, stdout: text('stdout'), stderr: text('stderr') };
  } finally {
    process.chdir(savedCwd);
    for (const [name, value] of savedEnv) setVariable(name, value);
    exit.mockRestore();
    for (const spy of direct) spy.mockRestore();
    setOutputSink(previousSink);
    running = false;
  }
}

function setVariable(name: string, value: string | undefined): void {
  if (value === undefined) Reflect.deleteProperty(process.env, name);
  else process.env[name] = value;
}

/**
 * `evals ARGS` for a file whose tests ask many commands many questions: the first run of each
 * command (its first argument, or what `commandOf` names, e.g. `publish --verify` apart from
 * `publish`) in the file is `spawned` (the real binary), every later one the program in-process, in
 * `cwd()` (with `env` set for the run, as `spawned` sets it for its process). So each command is
 * still seen once as a process.
 */
export function firstRunSpawned(
  spawned: (args: readonly string[]) => EvalsRun,
  cwd: () => string,
  env: Readonly<Record<string, string | undefined>> = {},
  commandOf: (args: readonly string[]) => string = (args) => args[0] ?? '',
): (args: readonly string[]) => Promise<EvalsRun> {
  const seen = new Set<string>();
  return (args) => {
    const command = commandOf(args);
    if (seen.has(command)) return evalsInProcess(args, cwd(), env);
    seen.add(command);
    return Promise.resolve(spawned(args));
  };
}

/** What `evals ARGS` answered in-process, in the current folder: its exit code and what it printed. */
export interface EvalsAnswer {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `evals ...args` in-process in the current working folder (evalsInProcess), stderr not a terminal. */
export async function evals(...args: string[]): Promise<EvalsAnswer> {
  const { status, stdout, stderr } = await evalsInProcess(args, process.cwd());
  return { code: status, stdout, stderr };
}

/** `evals ...args` in-process in the current working folder, stderr a terminal when `terminal`. */
export async function evalsOn(terminal: boolean, ...args: string[]): Promise<EvalsAnswer> {
  const { status, stdout, stderr } = await evalsInProcess(args, process.cwd(), {}, terminal);
  return { code: status, stdout, stderr };
}

/** `evals ...args` in-process in the current working folder, on `terminal` (stderr, and stdout when it says so). */
export async function evalsOnTerminal(terminal: Terminal, ...args: string[]): Promise<EvalsAnswer> {
  const { status, stdout, stderr } = await evalsInProcess(args, process.cwd(), {}, terminal);
  return { code: status, stdout, stderr };
}
