// A child transport for stdio protocols: the one way a long-lived peer process is started and
// talked to over NDJSON (the policy producer behind `policy replay`, a checks engine). No shell;
// the environment is exactly the one given; the child leads its own process group, registered with
// child-cleanup.ts while it may run (a SIGINT or SIGTERM to us kills it); the group is SIGKILLed once
// the leader exits and released once its stdio closed, so nothing it started outlives it. Stdout is split into
// lines by the one LineReader (byte cap, strict UTF-8; bytes after the last newline when stdout
// ends are a truncated frame, never handed on as a line: partialBytes counts them); stderr is
// handed on as it comes (stderr
// never kills here: each protocol says what too much of it means). Frames are written to stdin
// with send(); a write to a peer that died is reported by its exit, never as an EPIPE throw.
import { spawn } from 'node:child_process';

import { guardProcessGroup, killProcessGroup } from './child-cleanup.js';
import { LineReader } from './line-framing.js';

import type { ChildProcessWithoutNullStreams } from 'node:child_process';

import type { LineEvent } from './line-framing.js';

export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface ChildTransportOptions {
  readonly command: string;
  readonly args: readonly string[];
  /** The child's whole environment (nothing of ours is inherited). */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** The longest stdout line accepted, in bytes; a longer one is reported as too_large. */
  readonly maxLineBytes: number;
  /** Each stdout line, in order. */
  readonly onLine: (line: LineEvent) => void;
  /** Each stderr chunk, as it comes. */
  readonly onStderr?: (chunk: Buffer) => void;
  /** The child could not be started or failed as a process (spawn's 'error'). */
  readonly onError?: (error: Error) => void;
  /** The leader exited (its stdio may still hold data). */
  readonly onExit?: (exit: ChildExit) => void;
  /** The child is gone and its stdio closed; its group has been killed and released. */
  readonly onClose?: (exit: ChildExit) => void;
}

/** One peer process and its stdio. */
export class ChildTransport {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #reader: LineReader;
  /** Resolves when stdout has ended (or failed): every complete line has been handed on. */
  readonly stdoutEnded: Promise<void>;
  /** Resolves once the child is gone and its stdio closed. */
  readonly closed: Promise<ChildExit>;

  /** Spawns the child. Throws only what spawn throws synchronously (bad arguments). */
  constructor(options: ChildTransportOptions) {
    this.#reader = new LineReader(options.maxLineBytes);
    this.#child = spawn(options.command, [...options.args], {
      shell: false,
      env: { ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true, // its own process group: killed as a whole
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    });
    const child = this.#child;
    const releaseGroup = guardProcessGroup(child.pid);
    this.closed = new Promise((resolve) => {
      child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
        releaseGroup(); // whatever it started and left behind is killed with it
        const exit = { code, signal };
        options.onClose?.(exit);
        resolve(exit);
      });
    });
    child.once('error', (error) => options.onError?.(error));
    child.once('exit', (code: number | null, signal: NodeJS.Signals | null) => {
      // The leader is gone: what it left in its group is killed now (bounded-run.ts's rule), so a
      // straggler holding stdout open cannot keep us waiting; what is in the pipe is still read.
      killProcessGroup(child.pid);
      options.onExit?.({ code, signal });
    });
    child.stdin.on('error', () => undefined); // a dead peer's EPIPE: its exit says what happened
    child.stderr.on('data', (chunk: Buffer) => options.onStderr?.(chunk));
    this.stdoutEnded = new Promise((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        this.#reader.push(chunk, options.onLine);
      });
      child.stdout.once('end', resolve);
      child.stdout.once('error', () => {
        resolve();
      });
    });
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Bytes received after stdout's last newline (a truncated frame, if stdout ends there). */
  get partialBytes(): number {
    return this.#reader.partialBytes;
  }

  /** True while the leader has not exited. */
  get running(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** Writes frames to stdin; false when its buffer is full (wait for drained()). */
  send(frames: string): boolean {
    return this.#child.stdin.write(frames);
  }

  /** Resolves when stdin's buffer has drained (at once when it is not full). */
  drained(): Promise<void> {
    const stdin = this.#child.stdin;
    if (!stdin.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        stdin.off('drain', done);
        stdin.off('close', done);
        resolve();
      };
      stdin.on('drain', done);
      stdin.on('close', done);
    });
  }

  /** Ends stdin: the peer reads its end of input. */
  end(): void {
    this.#child.stdin.end();
  }

  /** SIGKILLs the whole process group while the leader runs (a breach, a timeout, giving up). */
  kill(): void {
    if (this.running) killProcessGroup(this.#child.pid);
  }
}
