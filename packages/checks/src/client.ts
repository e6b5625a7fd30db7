// A client for any engine speaking this protocol over stdio: it spawns the engine, correlates
// replies by id, and on a timeout kills and restarts the engine, failing every pending request — so
// a late reply can never become another request's verdict (ids are never reused, and the old
// process's output is no longer read). Evaluation replies must answer exactly the assertions asked.
// Each engine runs through @paperclip-evals/node's ChildTransport: its own process group, killed as
// a whole when it is given up on and when a SIGINT or SIGTERM stops us, and its stdout read by the
// one line framer (a reply line over MAX_REPLY_LINE_BYTES, or not UTF-8, is a protocol violation).
import { ChildTransport, LineReader } from '@paperclip-evals/node';

import { MAX_REQUEST_LINE_BYTES } from './engine-server.js';
import { ChecksError, fromWireError } from './errors.js';

import type { LineEvent } from '@paperclip-evals/node';

import type { Assertion, AssertionResult } from './assertion-types.js';
import type { ChecksErrorCode } from './errors.js';

export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** The longest reply line read from an engine, in bytes: as long as the longest request line. */
export const MAX_REPLY_LINE_BYTES = MAX_REQUEST_LINE_BYTES;
/** The longest engine stderr line handed to onStderr whole; a longer one is reported by its size. */
const MAX_STDERR_LINE_BYTES = 64 * 1024;

export interface EngineClientOptions {
  /** The engine executable and its arguments, e.g. ['node', ['evals.js', 'engine', '--stdio']]. */
  readonly command: string;
  readonly args?: readonly string[];
  /** The engine's whole environment (nothing is inherited unless passed here). */
  readonly env?: Readonly<Record<string, string>>;
  readonly requestTimeoutMs?: number;
  /** The longest reply line read, in bytes (default MAX_REPLY_LINE_BYTES); a longer one is a protocol violation. */
  readonly maxReplyLineBytes?: number;
  /** Engine stderr lines (its log), and replies that answer no pending request. */
  readonly onStderr?: (line: string) => void;
  readonly onStrayReply?: (reply: unknown) => void;
}

export interface InitializeParams {
  readonly sdk_name: string;
  readonly sdk_version: string;
  readonly protocol_version: number;
  readonly required_capabilities: readonly string[];
  readonly preferred_encoding: 'json';
}

export interface EvaluateBatchParams {
  readonly trace: unknown;
  readonly assertions: readonly Assertion[];
  readonly budget?: { readonly max_judge_calls?: number; readonly max_cost_usd?: number };
}

export interface EvaluateBatchReply {
  readonly results: AssertionResult[];
  readonly total_cost: number;
  readonly total_duration_ms: number;
  /** false for engine-produced results (simulation mode included). */
  readonly simulated?: boolean;
  readonly usage: Readonly<Record<string, number>>;
  /** Present when the engine has a session soft-failure budget: whether it is exceeded. */
  readonly budget_exceeded?: boolean;
}

interface Pending {
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

interface Running {
  readonly child: ChildTransport;
  readonly pending: Map<number, Pending>;
  /** Resolves once the engine process has exited. */
  readonly exited: Promise<void>;
}

export class EngineClient {
  #engine: Running | undefined;
  #nextId = 1;
  #initializeParams: InitializeParams | undefined;
  /** How many times the engine was started (a restart after a timeout adds one). */
  starts = 0;

  constructor(private readonly options: EngineClientOptions) {}

  get #maxReplyLineBytes(): number {
    return this.options.maxReplyLineBytes ?? MAX_REPLY_LINE_BYTES;
  }

  async initialize(params: InitializeParams): Promise<Record<string, unknown>> {
    this.#initializeParams = params;
    return (await this.request('initialize', params)) as Record<string, unknown>;
  }

  /** evaluate_batch, refusing a reply whose assertion ids are not exactly the request's. */
  async evaluateBatch(params: EvaluateBatchParams): Promise<EvaluateBatchReply> {
    const reply = (await this.request('evaluate_batch', params)) as EvaluateBatchReply;
    const asked = params.assertions.map((assertion) => assertion.assertion_id).sort();
    const answered = Array.isArray(reply.results)
      ? reply.results.map((result) => result.assertion_id).sort()
      : [];
    if (JSON.stringify(asked) !== JSON.stringify(answered)) {
      throw new ChecksError(
        'reply_mismatch',
        `evaluate_batch answered assertions ${JSON.stringify(answered)}, asked ${JSON.stringify(asked)}`,
      );
    }
    return reply;
  }

  /**
   * One request; resolves with its result, rejects with a ChecksError: a wire code (the engine's
   * error reply, fromWireError) or a client code (request_timeout, engine_restarted, …).
   */
  async request(
    method: string,
    params: unknown,
    timeoutMs = this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
  ): Promise<unknown> {
    const engine = await this.running(method);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(
          new ChecksError(
            'request_timeout',
            `${method}: no reply in ${timeoutMs} ms; the engine is restarted`,
          ),
        );
        engine.pending.delete(id);
        this.stop(engine, 'engine_restarted', `the engine was restarted after ${method} timed out`);
      }, timeoutMs);
      engine.pending.set(id, { resolve, reject, timer });
      engine.child.send(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  /** Sends shutdown (if the engine runs), then ends stdin and waits for the process to exit. */
  async close(): Promise<void> {
    const engine = this.#engine;
    if (engine === undefined) return;
    try {
      await this.request('shutdown', {}, 5_000);
    } catch {
      // A failed shutdown still ends in stop() below.
    }
    engine.child.end();
    const killTimer = setTimeout(() => {
      engine.child.kill();
    }, 5_000);
    await engine.exited;
    clearTimeout(killTimer);
    this.stop(engine, 'connection_closed', 'the client was closed');
  }

  /** The running engine, started (and re-initialized after a restart) when there is none. */
  private async running(method: string): Promise<Running> {
    if (this.#engine !== undefined) return this.#engine;
    const engine = this.start();
    if (method !== 'initialize' && this.#initializeParams !== undefined) {
      await this.request('initialize', this.#initializeParams);
    }
    return engine;
  }

  private start(): Running {
    let markExited: () => void = () => undefined;
    const exited = new Promise<void>((resolve) => {
      markExited = resolve;
    });
    const stderrLines = new LineReader(MAX_STDERR_LINE_BYTES);
    const onStderrLine = (line: LineEvent): void => this.options.onStderr?.(stderrText(line));
    // The callbacks fire only once the transport exists and `slot` holds it (events are asynchronous).
    const slot: { engine?: Running } = {};
    const withEngine = (act: (engine: Running) => void): void => {
      if (slot.engine !== undefined) act(slot.engine);
    };
    let child: ChildTransport;
    try {
      child = new ChildTransport({
        command: this.options.command,
        args: this.options.args ?? [],
        env: this.options.env ?? {},
        maxLineBytes: this.#maxReplyLineBytes,
        onLine: (line) => {
          withEngine((engine) => {
            this.onLine(engine, line);
          });
        },
        onStderr: (chunk) => {
          stderrLines.push(chunk, onStderrLine);
        },
        onError: (cause) => {
          withEngine((engine) => {
            this.stop(engine, 'spawn_failed', `engine process failed: ${cause.message}`);
          });
        },
        onExit: ({ code, signal }) => {
          withEngine((engine) => {
            this.stop(engine, 'connection_closed', `engine exited (${signal ?? String(code)})`);
          });
          markExited();
        },
        onClose: () => {
          stderrLines.finish(onStderrLine);
          markExited(); // a process that never started has no exit, only its close
        },
      });
    } catch (cause) {
      throw new ChecksError('spawn_failed', `cannot start ${this.options.command}`, [], { cause });
    }
    const engine: Running = { child, pending: new Map(), exited };
    slot.engine = engine;
    this.starts++;
    this.#engine = engine;
    return engine;
  }

  private onLine(engine: Running, event: LineEvent): void {
    if (this.#engine !== engine) return; // output of an engine already given up on
    if (event.kind !== 'line') {
      const what =
        event.kind === 'too_large' ? `over the ${this.#maxReplyLineBytes}-byte reply line cap` : 'not UTF-8';
      this.stop(engine, 'protocol_violation', `engine wrote a line of ${event.byteLength} bytes ${what}`);
      return;
    }
    const line = event.text;
    let reply: { id?: unknown; result?: unknown; error?: unknown };
    try {
      reply = JSON.parse(line) as typeof reply;
    } catch {
      this.stop(engine, 'protocol_violation', `engine wrote a line that is not JSON: ${line.slice(0, 200)}`);
      return;
    }
    const pending = typeof reply.id === 'number' ? engine.pending.get(reply.id) : undefined;
    if (pending === undefined) {
      this.options.onStrayReply?.(reply);
      return;
    }
    engine.pending.delete(reply.id as number);
    clearTimeout(pending.timer);
    if (reply.error !== undefined) {
      pending.reject(fromWireError(reply.error));
    } else {
      pending.resolve(reply.result);
    }
  }

  /** Forgets an engine: kills it, and fails each of its pending requests with `code`. */
  private stop(engine: Running, code: ChecksErrorCode, message: string): void {
    if (this.#engine === engine) this.#engine = undefined;
    for (const pending of engine.pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(new ChecksError(code, message));
    }
    engine.pending.clear();
    engine.child.kill();
  }
}

/** An engine stderr line as text: a line too long or not UTF-8 is described, never replaced. */
function stderrText(line: LineEvent): string {
  if (line.kind === 'line') return line.text;
  return line.kind === 'too_large'
    ? `(a stderr line of ${line.byteLength} bytes, over ${MAX_STDERR_LINE_BYTES}, left out)`
    : line.bytes.toString('utf8');
}
