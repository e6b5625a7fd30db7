// Running a child with limits: the one bounded run behind every short-lived process Evals starts
// (runnerd `--build-metadata`, qualification's pnpm install, probe and eval-session run, the
// campaign's eval sessions through killable-run.ts). One core, startBoundedRun; runBounded and
// startKillableRun are thin entry points over it. No shell; the environment is exactly the one
// given (nothing of ours is inherited); stdin is /dev/null, or a pipe holding the given text, then
// closed; stdout is captured under a byte cap, or /dev/null when the child writes its output to a
// file; the child leads its own process group (a new session), registered with child-cleanup.ts
// (a SIGINT or SIGTERM to us kills it) unless the caller owns that decision. The kill rule, one for
// every caller:
//   - on timeout, once stdout passes its byte cap, or when the caller calls kill(), the whole group
//     gets SIGKILL and the output pipes are closed; the run is reported as soon as the child is
//     reaped, or after KILL_GRACE_MS when it is not (a process stuck in the kernel);
//   - when the leader exits, its group gets SIGKILL, so a straggler holding an output pipe open
//     cannot keep us waiting (what is already in the pipe is still read) and nothing it started
//     outlives it (a descendant that made its own session with setsid is out of reach);
//   - stderr never kills: its last `maxStderrBytes` bytes are kept (the end is where a failure says
//     what went wrong).
// POSIX only (process groups).
import { spawn } from 'node:child_process';

import { guardProcessGroup, killProcessGroup } from './child-cleanup.js';

import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

export interface BoundedRunOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** The child's whole environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** Most stdout bytes kept; past it the group is killed. */
  readonly maxStdoutBytes: number;
  /** Stderr bytes kept (the tail; default DEFAULT_MAX_STDERR_BYTES); stderr never kills. */
  readonly maxStderrBytes?: number;
  /** Written to the child's stdin, which is then closed (default: stdin is /dev/null). */
  readonly stdin?: string;
}

export interface StartBoundedRunOptions extends Omit<BoundedRunOptions, 'maxStdoutBytes'> {
  /** Most stdout bytes kept (past it the group is killed), or null: stdout is /dev/null. */
  readonly maxStdoutBytes: number | null;
  /**
   * Whether the group is registered with child-cleanup.ts while it runs (a SIGINT or SIGTERM to us
   * kills it). False when the caller decides what a signal does to its children (a campaign).
   */
  readonly registerCleanup: boolean;
}

export interface BoundedRunResult {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Empty when stdout was not captured. */
  readonly stdout: Buffer;
  /** The last maxStderrBytes bytes of stderr, as text. */
  readonly stderrTail: string;
  readonly timedOut: boolean;
  readonly stdoutOverflow: boolean;
  /** Killed because the caller called kill() before the run ended. */
  readonly killed: boolean;
  /** Set when the process could not be started (e.g. ENOENT): the spawn error. */
  readonly spawnError: NodeJS.ErrnoException | null;
}

export interface BoundedRun {
  /** How the run went; never rejects. */
  readonly result: Promise<BoundedRunResult>;
  /** SIGKILL to the whole group (the kill rule above); the result says killed. After the end: nothing. */
  readonly kill: () => void;
}

export const DEFAULT_MAX_STDERR_BYTES = 8192;
/** How long to wait for a killed process to be reaped before reporting anyway. */
export const KILL_GRACE_MS = 500;

/** Runs one process to completion under the bounds above, registered with child-cleanup. Never rejects. */
export function runBounded(options: BoundedRunOptions): Promise<BoundedRunResult> {
  return startBoundedRun({ ...options, registerCleanup: true }).result;
}

/** Starts one process under the bounds above; the caller may kill it. */
export function startBoundedRun(options: StartBoundedRunOptions): BoundedRun {
  const maxStderrBytes = options.maxStderrBytes ?? DEFAULT_MAX_STDERR_BYTES;
  const { maxStdoutBytes } = options;
  // stderr is a pipe whatever stdin and stdout are (the typings cannot see it through the choice).
  const child = spawn(options.command, [...options.args], {
    cwd: options.cwd,
    env: { ...options.env },
    stdio: [
      options.stdin === undefined ? 'ignore' : 'pipe',
      maxStdoutBytes === null ? 'ignore' : 'pipe',
      'pipe',
    ],
    detached: true, // setsid(): the child leads a new process group, killed as a whole
    shell: false,
  }) as ChildProcessByStdio<Writable | null, Readable | null, Readable>;
  // The release SIGKILLs whatever the child started and left behind, registered or not.
  const releaseGroup = options.registerCleanup
    ? guardProcessGroup(child.pid)
    : () => {
        killProcessGroup(child.pid);
      };
  const stdoutChunks: Buffer[] = [];
  let stdoutBytes = 0;
  let stderr = Buffer.alloc(0);
  let timedOut = false;
  let stdoutOverflow = false;
  let killed = false;
  let spawnError: NodeJS.ErrnoException | null = null;
  let settled = false;
  let graceTimer: NodeJS.Timeout | undefined;
  let resolveResult: (result: BoundedRunResult) => void = () => undefined;
  const result = new Promise<BoundedRunResult>((resolve) => {
    resolveResult = resolve;
  });

  const finish = (exitCode: number | null, signal: NodeJS.Signals | null): void => {
    if (settled) return;
    settled = true;
    clearTimeout(deadline);
    clearTimeout(graceTimer);
    releaseGroup();
    resolveResult({
      exitCode,
      signal,
      stdout: Buffer.concat(stdoutChunks),
      stderrTail: stderr.toString('utf8'),
      timedOut,
      stdoutOverflow,
      killed,
      spawnError,
    });
  };
  const stop = (): void => {
    if (graceTimer !== undefined || settled) return;
    killProcessGroup(child.pid);
    child.stdout?.destroy();
    child.stderr.destroy();
    // SIGKILL is reaped at once, except for a process stuck in the kernel: do not wait on it forever.
    graceTimer = setTimeout(() => {
      finish(null, null);
    }, KILL_GRACE_MS);
  };
  const deadline = setTimeout(() => {
    timedOut = true;
    stop();
  }, options.timeoutMs);

  child.stdout?.on('data', (chunk: Buffer) => {
    if (stdoutOverflow || maxStdoutBytes === null) return;
    stdoutBytes += chunk.byteLength;
    if (stdoutBytes > maxStdoutBytes) {
      stdoutOverflow = true;
      stop();
      return;
    }
    stdoutChunks.push(chunk);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = Buffer.concat([stderr, chunk]);
    if (stderr.byteLength > maxStderrBytes) stderr = stderr.subarray(stderr.byteLength - maxStderrBytes);
  });
  if (child.stdin !== null) {
    child.stdin.on('error', () => {
      // the child exited without reading it all; its exit says what happened
    });
    child.stdin.end(options.stdin);
  }
  // The leader is gone: whatever it left in its group is killed now.
  child.on('exit', () => {
    killProcessGroup(child.pid);
  });
  child.on('error', (error: NodeJS.ErrnoException) => {
    spawnError = error;
    if (child.pid === undefined) finish(null, null); // never started: no 'close' is owed
  });
  child.on('close', (exitCode: number | null, signal: NodeJS.Signals | null) => {
    finish(exitCode, signal);
  });
  return {
    result,
    kill: () => {
      if (settled) return;
      killed = true;
      stop();
    },
  };
}

/** One line saying how a run went wrong, or null when it exited 0 within its bounds. */
export function runFailure(result: BoundedRunResult, timeoutMs: number): string | null {
  if (result.spawnError !== null) return `could not be started: ${result.spawnError.message}`;
  if (result.timedOut) return `did not finish within ${timeoutMs} ms (killed)`;
  if (result.killed) return 'was stopped by its caller (killed)';
  if (result.stdoutOverflow) return 'printed more than its output limit (killed)';
  if (result.signal !== null) return `was killed by ${result.signal}`;
  if (result.exitCode !== 0) return `exited with code ${String(result.exitCode)}`;
  return null;
}
