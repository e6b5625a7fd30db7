// A bounded child the caller can kill: one process, no shell, the environment it is given and
// nothing else, in its own process group, killed as a whole group on its timeout or when the caller
// asks; stderr kept as a bounded tail (its output goes to a file). Unlike runBounded it is NOT
// registered with child-cleanup: a Ctrl-C at the terminal reaches only the parent (the child's group
// is not the foreground one), and the parent decides (a campaign lets running sessions finish on the
// first Ctrl-C and kills them on the second). Used by the campaign's eval sessions.
import { spawn } from 'node:child_process';

import { killProcessGroup } from './child-cleanup.js';

const STDERR_TAIL_BYTES = 8192;

export interface KillableRunOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
}

export interface KillableRunResult {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  /** Killed because the caller asked (a second Ctrl-C, SIGTERM). */
  readonly killed: boolean;
  readonly spawnError: string | null;
  readonly stderrTail: string;
  readonly durationMs: number;
}

export interface KillableRun {
  readonly done: Promise<KillableRunResult>;
  /** SIGKILL to the whole group; the result says killed. */
  kill(): void;
}

/** Starts the child; `done` never rejects. */
export function startKillableRun(options: KillableRunOptions): KillableRun {
  const started = performance.now();
  const child = spawn(options.command, [...options.args], {
    cwd: options.cwd,
    env: { ...options.env },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
    shell: false,
  });
  let stderr = Buffer.alloc(0);
  let timedOut = false;
  let killed = false;
  let spawnError: string | null = null;
  const timer = setTimeout(() => {
    timedOut = true;
    killProcessGroup(child.pid);
  }, options.timeoutMs);
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = Buffer.concat([stderr, chunk]);
    if (stderr.byteLength > STDERR_TAIL_BYTES)
      stderr = stderr.subarray(stderr.byteLength - STDERR_TAIL_BYTES);
  });
  child.on('error', (error) => {
    spawnError = error.message;
  });
  const done = new Promise<KillableRunResult>((resolve) => {
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      killProcessGroup(child.pid); // whatever it started and left behind
      resolve({
        exitCode,
        signal,
        timedOut,
        killed,
        spawnError,
        stderrTail: stderr.toString('utf8'),
        durationMs: Math.round(performance.now() - started),
      });
    });
  });
  return {
    done,
    kill: () => {
      killed = true;
      killProcessGroup(child.pid);
    },
  };
}
