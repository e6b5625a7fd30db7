// The one place the campaign starts a child: one eval-session process, no shell, the environment it
// is given and nothing else, in its own process group (so a Ctrl-C at the terminal reaches `evals
// run` only, which decides), killed as a whole group on its timeout or when asked. Output is kept
// as a bounded tail of stderr (the artifact goes to a file). To be replaced by packages/node's
// bounded child runner once it lands on main; nothing else here spawns.
import { spawn } from 'node:child_process';

import { killProcessGroup } from '@paperclip-evals/contract';

const STDERR_TAIL_BYTES = 8192;

export interface SessionProcessOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
}

export interface SessionProcessResult {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  /** Killed because the caller asked (a second Ctrl-C, SIGTERM). */
  readonly killed: boolean;
  readonly spawnError: string | null;
  readonly stderrTail: string;
  readonly durationMs: number;
}

export interface RunningSession {
  readonly done: Promise<SessionProcessResult>;
  /** SIGKILL to the whole group; the result says killed. */
  kill(): void;
}

/** Starts one session; `done` never rejects. */
export function startSessionProcess(options: SessionProcessOptions): RunningSession {
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
  const done = new Promise<SessionProcessResult>((resolve) => {
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
