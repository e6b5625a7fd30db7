// Drives a real engine process over its pipes, for conformance tests: write request lines to its
// stdin, read response lines from its stdout one at a time (no sleeps: each read waits for a line).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

import type { ChildProcessWithoutNullStreams } from 'node:child_process';

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

export class EngineProcess {
  readonly stderr: string[] = [];
  readonly #lines: string[] = [];
  readonly #waiters: ((line: string | undefined) => void)[] = [];
  #ended = false;
  readonly exited: Promise<number | null>;

  private constructor(readonly child: ChildProcessWithoutNullStreams) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const waiter = this.#waiters.shift();
      if (waiter === undefined) this.#lines.push(line);
      else waiter(line);
    });
    child.stdout.on('end', () => {
      this.#ended = true;
      for (const waiter of this.#waiters.splice(0)) waiter(undefined);
    });
    createInterface({ input: child.stderr }).on('line', (line) => {
      this.stderr.push(line);
    });
    this.exited = new Promise((resolve) => {
      child.on('exit', (code) => {
        resolve(code);
      });
    });
  }

  static start(command: string, args: readonly string[], env: Record<string, string> = {}): EngineProcess {
    return new EngineProcess(
      spawn(command, [...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'pipe' }),
    );
  }

  /** Writes one line: a message (as JSON) or raw text. */
  send(message: object | string): void {
    this.child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
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
    this.child.stdin.end();
    const rest: string[] = [];
    for (let line = await this.nextLine(); line !== undefined; line = await this.nextLine()) rest.push(line);
    return { code: await this.exited, rest };
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }
}

export const INITIALIZE_PARAMS = {
  sdk_name: 'conformance-test',
  sdk_version: '1.1.0',
  protocol_version: 1,
  required_capabilities: ['layers_1_4'],
  preferred_encoding: 'json',
};
