// Drives an engine over its pipes, for conformance tests: write request lines to its stdin, read
// response lines from its stdout one at a time (no sleeps: each read waits for a line). EngineProcess
// is a real process; an EngineConnection over in-process streams drives the same engine code without
// one (packages/cli/test/support/engine-in-process.ts), for the rows that need no process.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

import type { Readable, Writable } from 'node:stream';

export interface Reply {
  jsonrpc: string;
  id: unknown;
  result?: Record<string, unknown>;
  error?: {
    code: number;
    message: string;
    data?: { error_type: string; retryable: boolean; detail: string };
  };
}

const LINE_WAIT_MS = 30_000;

/** The engine's end of the pipes: what a connection writes to, reads from, and how it ends. */
export interface EnginePipes {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** The exit code once the engine has ended. */
  readonly exited: Promise<number | null>;
  /** Ends the engine at once. */
  readonly kill: () => void;
}

export class EngineConnection {
  readonly stderr: string[] = [];
  readonly #lines: string[] = [];
  readonly #waiters: ((line: string | undefined) => void)[] = [];
  #ended = false;
  readonly exited: Promise<number | null>;

  constructor(readonly pipes: EnginePipes) {
    createInterface({ input: pipes.stdout }).on('line', (line) => {
      const waiter = this.#waiters.shift();
      if (waiter === undefined) this.#lines.push(line);
      else waiter(line);
    });
    pipes.stdout.on('end', () => {
      this.#ended = true;
      for (const waiter of this.#waiters.splice(0)) waiter(undefined);
    });
    createInterface({ input: pipes.stderr }).on('line', (line) => {
      this.stderr.push(line);
    });
    this.exited = pipes.exited;
  }

  /** Writes one line: a message (as JSON) or raw text. */
  send(message: object | string): void {
    this.pipes.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  }

  /** The next stdout line, or undefined once stdout has ended. */
  nextLine(): Promise<string | undefined> {
    const queued = this.#lines.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.#ended) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`no stdout line in ${LINE_WAIT_MS} ms; stderr: ${this.stderr.join('\n')}`));
      }, LINE_WAIT_MS);
      this.#waiters.push((line) => {
        clearTimeout(timer);
        resolve(line);
      });
    });
  }

  async next(): Promise<Reply> {
    const line = await this.nextLine();
    if (line === undefined) throw new Error(`stdout ended; stderr: ${this.stderr.join('\n')}`);
    return JSON.parse(line) as Reply;
  }

  async request(id: unknown, method: string, params?: unknown): Promise<Reply> {
    this.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    return this.next();
  }

  /** Ends stdin and waits for the exit code; the remaining stdout lines are returned. */
  async finish(): Promise<{ code: number | null; rest: string[] }> {
    this.pipes.stdin.end();
    const rest: string[] = [];
    for (let line = await this.nextLine(); line !== undefined; line = await this.nextLine()) rest.push(line);
    return { code: await this.exited, rest };
  }

  kill(): void {
    this.pipes.kill();
  }
}

/** A real engine process: `command args` with only PATH and `env` in its environment. */
export class EngineProcess extends EngineConnection {
  static start(command: string, args: readonly string[], env: Record<string, string> = {}): EngineProcess {
    const child = spawn(command, [...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'pipe' });
    return new EngineProcess({
      stdin: child.stdin,
      stdout: child.stdout,
      stderr: child.stderr,
      exited: new Promise((resolve) => {
        child.on('exit', (code) => {
          resolve(code);
        });
      }),
      kill: () => {
        child.kill('SIGKILL');
      },
    });
  }
}

export const INITIALIZE_PARAMS = {
  sdk_name: 'conformance-test',
  sdk_version: '1.1.0',
  protocol_version: 1,
  required_capabilities: ['layers_1_4'],
  preferred_encoding: 'json',
};
