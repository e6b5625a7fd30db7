// The consumer side of the evaluate protocol: one producer process, driven fail-closed. Stdin is
// fed while stdout and stderr are drained. Every header and row is tracked in order; each reply is
// checked (shape, kind, echoed id) against the oldest outstanding request, and the process exit is
// reconciled with the row errors seen. Any breach kills the process group and fails the job with a
// PolicyError; a missing result is never turned into an allow.
import { duplicateKeyIssues } from '@paperclip-evals/contract';
import { ChildTransport } from '@paperclip-evals/node';

import { jobFailed } from './errors.js';
import { compactJson, findMembers, lastMember, loneSurrogateAt, memberSpansFor } from './framing.js';
import { stateOutProblem, trailingStateOut } from './state.js';

import type { ChildExit, LineEvent } from '@paperclip-evals/node';

import type { PolicyError } from './errors.js';

export const DEFAULT_REPLY_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_STDERR_BYTES = 16 * 1024 * 1024;
/** The longest reply frame the consumer reads, in bytes: a longer one fails the job (frame_too_large). */
export const MAX_REPLY_FRAME_BYTES = 8 * 1024 * 1024;
/**
 * The longest state_out kept, in characters: each session holds one to send back as its next
 * state_in, so a producer growing it would grow the consumer without bound (state_too_large).
 */
export const MAX_STATE_OUT_CHARS = 256 * 1024;
/** The form of a bundle digest (the seed: `sha256:` + lowercase hexadecimal SHA-256). */
const BUNDLE_DIGEST = /^sha256:[0-9a-f]{64}$/;
const STDERR_TAIL_BYTES = 2048;
/** How long a producer whose stdout ended may take to exit before it is failed as still running. */
const STDOUT_END_GRACE_MS = 1000;
const HANDSHAKE_ID = -1;
const STATE_OUT_KEYS = ['state_out'] as const;
const stateOutSpans = memberSpansFor(STATE_OUT_KEYS);
const DECISION_KEYS = ['decision'] as const;
const decisionSpans = memberSpansFor(DECISION_KEYS);

/**
 * A success's whole Decision as the JSON text the producer sent (compacted): every field, unfamiliar
 * ones included, every number as written. Found in the frame only when asked (replay into the
 * Evalbook, a report): walking the frame is a cost the protocol's hot path does not pay.
 */
export function decisionJsonOf(reply: Extract<RowReply, { readonly ok: true }>): string {
  findMembers(reply.frame, 0, reply.frame.length, DECISION_KEYS, decisionSpans);
  return compactJson(reply.frame.slice(decisionSpans[0] ?? 0, decisionSpans[1] ?? 0));
}

/** The raw state_out of a response (already known to have an object there), compacted. */
function stateOutText(text: string): string {
  // The producer writes state_out last: found from the end without walking the decision.
  const last = lastMember(text, 'state_out');
  if (last !== undefined) return compactJson(text.slice(last.start, last.end));
  findMembers(text, 0, text.length, STATE_OUT_KEYS, stateOutSpans);
  return compactJson(text.slice(stateOutSpans[0] ?? 0, stateOutSpans[1] ?? 0));
}

export interface ProducerCommand {
  /** The executable to run (already verified: see resolvePolicyBinary). */
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd?: string;
}

export interface ClientOptions {
  /**
   * A required reply (the handshake, a bundle reply, a row response) that takes longer than this
   * fails the job, whatever else the producer writes meanwhile (unknown frames, stderr).
   */
  readonly replyTimeoutMs?: number;
  /** Stderr beyond this many bytes fails the job: a producer should diagnose, not flood. */
  readonly maxStderrBytes?: number;
  /** Told when a producer's handshake arrived (a terminal's waiting line then says a reply is awaited, not the handshake). */
  readonly onHandshake?: () => void;
}

export interface SkippedItem {
  readonly kind: string;
  readonly id: string;
  readonly reason: string;
}

export type BundleReply =
  | { readonly ok: true; readonly digest: string; readonly skipped: readonly SkippedItem[] }
  | { readonly ok: false; readonly code: string; readonly message: string };

export type RowReply =
  | {
      readonly ok: true;
      readonly bundleDigest: string | null;
      /** Kept opaquely, unfamiliar fields included. */
      readonly decision: Readonly<Record<string, unknown>>;
      /** The response frame as received: decisionJsonOf finds the exact decision in it, when asked. */
      readonly frame: string;
      /** The state_out JSON text exactly as sent (64-bit integers intact), for the next state_in. */
      readonly stateOut: string;
    }
  | {
      readonly ok: false;
      readonly bundleDigest: string | null;
      readonly code: string;
      readonly message: string;
    };

export interface RowRequest {
  /** The event object as JSON text. */
  readonly event: string;
  readonly nowMs: bigint;
  /** JSON text of state_in; null for unavailable state. */
  readonly stateIn: string | null;
}

interface Pending {
  readonly kind: 'handshake' | 'bundle' | 'row';
  /** Sequence number; the wire id of a row is `r<seq>`. */
  readonly seq: number;
  readonly resolve: (reply: unknown) => void;
  readonly reject: (error: PolicyError) => void;
}

/** One producer process. start() resolves after a valid handshake. */
export class EvaluateClient {
  readonly #child: ChildTransport;
  readonly #replyTimeoutMs: number;
  readonly #maxStderrBytes: number;
  readonly #pending: Pending[] = [];
  #head = 0;
  #nextSeq = 0;
  #lastAnsweredSeq = -1;
  #rowErrors = 0;
  #failure: PolicyError | undefined;
  #failureListeners: ((error: PolicyError) => void)[] = [];
  #exit: ChildExit | undefined;
  #timer: NodeJS.Timeout | undefined;
  #lastProgressMs = 0;
  #stderrBytes = 0;
  #stderrTail = '';
  #outbox = '';
  #handshake: Record<string, unknown> | undefined;
  readonly #exited: Promise<ChildExit>;

  private constructor(command: ProducerCommand, options: ClientOptions) {
    this.#replyTimeoutMs = options.replyTimeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS;
    this.#maxStderrBytes = options.maxStderrBytes ?? DEFAULT_MAX_STDERR_BYTES;
    // No shell, an empty environment, its own process group (killed as a whole on a breach and, by
    // node's child-cleanup, on a SIGINT or SIGTERM to us); released once it closed.
    let resolveExit: (exit: ChildExit) => void = () => undefined;
    this.#exited = new Promise((resolve) => {
      resolveExit = resolve;
    });
    this.#child = new ChildTransport({
      command: command.file,
      args: command.args,
      env: {},
      ...(command.cwd === undefined ? {} : { cwd: command.cwd }),
      maxLineBytes: MAX_REPLY_FRAME_BYTES,
      onLine: (line) => {
        this.#onLine(line);
      },
      onStderr: (chunk) => {
        this.#onStderr(chunk);
      },
      onError: (error) => {
        this.#fail(jobFailed('spawn_failed', `the producer could not run: ${error.message}`));
      },
      onClose: (exit) => {
        this.#exit = exit;
        if (this.#stdoutGrace !== undefined) clearTimeout(this.#stdoutGrace);
        this.#onClose();
        resolveExit(exit);
      },
    });
    void this.#child.stdoutEnded.then(() => {
      this.#onStdoutEnd();
    });
  }

  /** Set while a producer whose stdout ended is given STDOUT_END_GRACE_MS to exit and say how. */
  #stdoutGrace: ReturnType<typeof setTimeout> | undefined;

  /**
   * Stdout ended. A producer ending normally or dying exits at once, and its exit says what happened
   * (#onClose); one that closed its stdout and keeps running can never answer again, so the replies
   * due are missing now, not when the reply timeout has run out.
   */
  #onStdoutEnd(): void {
    if (this.#failure !== undefined || this.#exit !== undefined) return;
    this.#stdoutGrace = setTimeout(() => {
      if (this.#failure !== undefined || this.#exit !== undefined) return;
      const due = this.#outstanding();
      if (due === 0 && this.#child.partialBytes === 0) return; // nothing due: its exit is reconciled later
      this.#fail(
        jobFailed(
          this.#child.partialBytes > 0 ? 'output_truncated' : 'reply_missing',
          `the producer closed its stdout while still running, with ${this.#child.partialBytes > 0 ? `a frame cut short (${this.#child.partialBytes} bytes without a newline) and ` : ''}${replies(due)} missing: nothing more can arrive${this.#stderrNote()}`,
          'stdout closed, process running',
        ),
      );
    }, STDOUT_END_GRACE_MS);
    this.#stdoutGrace.unref();
  }

  /** Spawns the producer and waits for its handshake frame. */
  static async start(command: ProducerCommand, options: ClientOptions = {}): Promise<EvaluateClient> {
    const client = new EvaluateClient(command, options);
    await client.#expect<undefined>('handshake', HANDSHAKE_ID);
    options.onHandshake?.();
    return client;
  }

  /** The handshake's fields, kept as provenance (never a compatibility gate). */
  get handshake(): Readonly<Record<string, unknown>> {
    return this.#handshake ?? {};
  }

  get stderrTail(): string {
    return this.#stderrTail;
  }

  /** Called once if the job fails (a breach, a timeout, a dead producer). */
  onFailure(listener: (error: PolicyError) => void): void {
    if (this.#failure !== undefined) listener(this.#failure);
    else this.#failureListeners.push(listener);
  }

  /** Sends a bundle header (the complete inline document as JSON text). */
  loadBundle(bundleJson: string): Promise<BundleReply> {
    const seq = this.#nextSeq++;
    // A frame is one line: a pretty-printed or newline-ended bundle is compacted (whitespace outside
    // strings only, so 64-bit integers in bodies are never re-read as doubles).
    this.#send(`{"type":"bundle","bundle":${compactJson(bundleJson)}}\n`);
    return this.#expect('bundle', seq);
  }

  evaluate(row: RowRequest): Promise<RowReply> {
    return new Promise((resolve, reject) => {
      this.submit(row, resolve, reject);
    });
  }

  /**
   * evaluate() without a promise per row: `onReply` gets the row's reply, or `onFailure` the job
   * error (at once when the job has already failed). Both are called at most once, from the stdout
   * handler; neither may throw.
   */
  submit(row: RowRequest, onReply: (reply: RowReply) => void, onFailure: (error: PolicyError) => void): void {
    if (this.#failure !== undefined) {
      onFailure(this.#failure);
      return;
    }
    const seq = this.#nextSeq++;
    this.#send(
      `{"type":"row","id":"r${seq}","event":${row.event},"state_in":${row.stateIn ?? 'null'},"now_ms":${row.nowMs}}\n`,
    );
    this.#pending.push({ kind: 'row', seq, resolve: onReply as (reply: unknown) => void, reject: onFailure });
    this.#armTimer();
  }

  /**
   * Ends stdin and reconciles: every request answered, no partial frame, and an exit code that
   * agrees with the row errors seen (0: none, 1: some). Throws the job error otherwise.
   */
  async finish(): Promise<{ rowErrors: number }> {
    this.#throwIfFailed();
    this.#flush();
    this.#child.end();
    const [, exit] = await Promise.all([this.#child.stdoutEnded, this.#exited]);
    this.#throwIfFailed(); // a truncated frame or a missing reply was found when the process closed
    const expected = this.#rowErrors > 0 ? 1 : 0;
    if (exit.code !== expected) {
      const how = this.#exitDescription();
      throw this.#fail(
        jobFailed(
          'exit_mismatch',
          `the producer ended with ${how}, but ${this.#rowErrors} row errors were reported (expected exit ${expected})${this.#stderrNote()}`,
          how,
        ),
      );
    }
    return { rowErrors: this.#rowErrors };
  }

  /** Kills the producer's process group (used when another part of the job failed). */
  kill(): void {
    this.#killGroup();
  }

  #send(frame: string): void {
    this.#throwIfFailed();
    // Frames sent in one tick leave in one write.
    if (this.#outbox === '') process.nextTick(this.#flush);
    this.#outbox += frame;
  }

  readonly #flush = (): void => {
    const frames = this.#outbox;
    this.#outbox = '';
    if (frames !== '' && this.#failure === undefined) this.#child.send(frames);
  };

  #expect<T>(kind: Pending['kind'], seq: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.#failure !== undefined) {
        reject(this.#failure);
        return;
      }
      this.#pending.push({ kind, seq, resolve: resolve as (reply: unknown) => void, reject });
      this.#armTimer();
    });
  }

  #outstanding(): number {
    return this.#pending.length - this.#head;
  }

  #onLine(line: LineEvent): void {
    if (this.#failure !== undefined) return;
    if (line.kind !== 'line') {
      this.#fail(
        line.kind === 'too_large'
          ? jobFailed(
              'frame_too_large',
              `stdout frame of ${line.byteLength} bytes is over the ${MAX_REPLY_FRAME_BYTES}-byte frame cap`,
              `${line.byteLength} bytes`,
            )
          : jobFailed('frame_invalid', `stdout frame of ${line.byteLength} bytes is not UTF-8`),
      );
      return;
    }
    // A response whose state_out comes last as stateToJSON writes it: JSON.parse reads the rest.
    const trailing = trailingStateOut(line.text);
    let frame: unknown;
    try {
      frame = JSON.parse(trailing === undefined ? line.text : trailing.head);
    } catch {
      this.#fail(
        jobFailed('frame_invalid', 'stdout carried a line that is not JSON', line.text.slice(0, 200)),
      );
      return;
    }
    if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) {
      this.#fail(
        jobFailed(
          'frame_invalid',
          'stdout carried a frame that is not a JSON object',
          line.text.slice(0, 200),
        ),
      );
      return;
    }
    const fields = frame as Record<string, unknown>;
    // Strict reading: JSON.parse keeps the last of a repeated key, so `"verdict":"deny","verdict":
    // "allow"` would read as allow. No frame may repeat a key anywhere (a state_out split off by
    // trailingStateOut repeats one when the rest of the frame has another).
    const repeated = duplicateKeyIssues(trailing === undefined ? line.text : trailing.head, frame);
    if (repeated.length > 0 || (trailing !== undefined && 'state_out' in fields)) {
      const where = repeated[0]?.path ?? '/state_out';
      this.#fail(
        jobFailed(
          repeated[0]?.code === 'json_too_deep' ? 'frame_invalid' : 'reply_duplicate_key',
          repeated[0]?.code === 'json_too_deep'
            ? `stdout carried a frame nested deeper than the frame limit (${repeated[0].message})`
            : `stdout carried a frame that repeats the key at ${where === '' ? '(root)' : where}: a repeated key is ambiguous, never read as its last value`,
          line.text.slice(0, 200),
        ),
      );
      return;
    }
    // Unicode text only (as the producer reads our frames): an unpaired surrogate escape is no
    // character, so no decision, state or id may carry one. A trailing state_out is checked too.
    const inState =
      trailing === undefined ? undefined : loneSurrogateAt(trailing.text, () => JSON.parse(trailing.text));
    const lone =
      loneSurrogateAt(trailing === undefined ? line.text : trailing.head, () => frame) ??
      (inState === undefined ? undefined : `/state_out${inState}`);
    if (lone !== undefined) {
      this.#fail(
        jobFailed(
          'frame_invalid',
          `stdout carried a frame that is not valid JSON: an unpaired UTF-16 surrogate escape at ${lone === '' ? '(root)' : lone} (no Unicode character, not I-JSON)`,
          line.text.slice(0, 200),
        ),
      );
      return;
    }
    const head = this.#pending[this.#head];
    if (head?.kind === 'handshake') {
      if (fields.type !== 'handshake') {
        this.#fail(
          jobFailed('handshake_invalid', 'the first frame is not a handshake', line.text.slice(0, 200)),
        );
        return;
      }
      this.#handshake = fields;
      this.#settle(head, undefined);
      return;
    }
    switch (fields.type) {
      case 'bundle_ack':
      case 'bundle_error':
        this.#onBundleReply(fields, line.text);
        return;
      case 'response':
        this.#onResponse(fields, line.text, trailing?.text);
        return;
      case 'handshake':
        this.#fail(jobFailed('reply_unexpected', 'a second handshake frame'));
        return;
      default:
        return; // unknown frame types occupy no position and are ignored
    }
  }

  #onBundleReply(fields: Record<string, unknown>, text: string): void {
    const head = this.#pending[this.#head];
    if (head?.kind !== 'bundle') {
      this.#fail(
        jobFailed(
          'reply_unexpected',
          `a ${String(fields.type)} frame when ${head === undefined ? 'nothing' : 'a row response'} was due`,
          text.slice(0, 200),
        ),
      );
      return;
    }
    if (fields.type === 'bundle_ack') {
      const skipped = fields.skipped;
      const validSkipped =
        Array.isArray(skipped) &&
        skipped.every((item: unknown) => {
          const s = item as Record<string, unknown> | null;
          return (
            typeof s === 'object' &&
            s !== null &&
            typeof s.kind === 'string' &&
            typeof s.id === 'string' &&
            typeof s.reason === 'string'
          );
        });
      if (
        typeof fields.bundle_digest !== 'string' ||
        !BUNDLE_DIGEST.test(fields.bundle_digest) ||
        !validSkipped
      ) {
        this.#fail(
          jobFailed(
            'reply_malformed',
            'bundle_ack needs bundle_digest ("sha256:" + 64 lowercase hex digits) and skipped[] of {kind, id, reason} strings',
            text.slice(0, 200),
          ),
        );
        return;
      }
      this.#settle(head, { ok: true, digest: fields.bundle_digest, skipped: skipped as SkippedItem[] });
      return;
    }
    const error = wireError(fields.error);
    if (error === undefined) {
      this.#fail(
        jobFailed('reply_malformed', 'bundle_error needs error {code, message} strings', text.slice(0, 200)),
      );
      return;
    }
    this.#settle(head, { ok: false, ...error });
  }

  /** `trailingText`: the state_out text when trailingStateOut found it (then it is not in `fields`). */
  #onResponse(fields: Record<string, unknown>, text: string, trailingText: string | undefined): void {
    const head = this.#pending[this.#head];
    const seq = sequenceOf(fields.id);
    if (head?.kind !== 'row') {
      const why = seq !== undefined && seq <= this.#lastAnsweredSeq ? 'reply_duplicate' : 'reply_unexpected';
      this.#fail(
        jobFailed(
          why,
          `a response (id ${JSON.stringify(fields.id)}) when ${head === undefined ? 'no reply' : 'a bundle reply'} was due`,
          fields.id,
        ),
      );
      return;
    }
    if (seq !== head.seq) {
      const expectedId = `r${head.seq}`;
      if (seq !== undefined && seq <= this.#lastAnsweredSeq)
        this.#fail(
          jobFailed(
            'reply_duplicate',
            `a second response for id ${JSON.stringify(fields.id)} (expected ${expectedId})`,
            fields.id,
          ),
        );
      else if (
        seq !== undefined &&
        seq < this.#nextSeq &&
        this.#pending.some((p, i) => i > this.#head && p.seq === seq)
      )
        this.#fail(
          jobFailed(
            'reply_missing',
            `no response for id ${expectedId}: the next response is for ${JSON.stringify(fields.id)}`,
            fields.id,
          ),
        );
      else
        this.#fail(
          jobFailed(
            'id_mismatch',
            `response id ${JSON.stringify(fields.id)} does not echo the request id ${expectedId}`,
            fields.id,
          ),
        );
      return;
    }
    const digest = fields.bundle_digest;
    if (typeof digest !== 'string' && digest !== null) {
      this.#fail(
        jobFailed(
          'reply_malformed',
          `response ${expectedIdOf(head)} needs bundle_digest (a string or null)`,
          text.slice(0, 200),
        ),
      );
      return;
    }
    const hasDecision = 'decision' in fields;
    const hasState = trailingText !== undefined || 'state_out' in fields;
    if ('error' in fields) {
      const error = wireError(fields.error);
      if (error === undefined || hasDecision || hasState) {
        this.#fail(
          jobFailed(
            'reply_malformed',
            `row error ${expectedIdOf(head)} needs error {code, message} and neither decision nor state_out`,
            text.slice(0, 200),
          ),
        );
        return;
      }
      this.#rowErrors++;
      this.#settle(head, { ok: false, bundleDigest: digest, ...error });
      return;
    }
    const decision = fields.decision;
    if (!isObject(decision) || (trailingText === undefined && !isObject(fields.state_out))) {
      this.#fail(
        jobFailed(
          'reply_malformed',
          `response ${expectedIdOf(head)} needs a decision object and a state_out object`,
          text.slice(0, 200),
        ),
      );
      return;
    }
    // An undecided success is never a decision (and never an allow): the verdict must be given.
    // A verdict Evals does not know is the producer's to define (kept, compared with nothing).
    if (typeof decision.verdict !== 'string' || decision.verdict === '') {
      this.#fail(
        jobFailed(
          'reply_undecided',
          `response ${expectedIdOf(head)} carries a decision without a verdict (expected a non-empty string, received ${describeVerdict(decision)})`,
          text.slice(0, 200),
        ),
      );
      return;
    }
    const stateOut = trailingText ?? stateOutText(text);
    if (stateOut.length > MAX_STATE_OUT_CHARS) {
      this.#fail(
        jobFailed(
          'state_too_large',
          `response ${expectedIdOf(head)} carries a state_out of ${stateOut.length} characters, over the ${MAX_STATE_OUT_CHARS}-character state cap`,
          `${stateOut.length} characters`,
        ),
      );
      return;
    }
    // Threaded on as the session's next state_in: it must be a register file, as state_in must.
    const stateProblem = stateOutProblem(stateOut, trailingText !== undefined);
    if (stateProblem !== undefined) {
      this.#fail(
        jobFailed(
          'reply_malformed',
          `response ${expectedIdOf(head)} carries a state_out that is not a register file: ${stateProblem}`,
          stateOut.slice(0, 200),
        ),
      );
      return;
    }
    this.#settle(head, {
      ok: true,
      bundleDigest: digest,
      decision,
      frame: text,
      stateOut,
    });
  }

  #settle(head: Pending, reply: unknown): void {
    this.#head++;
    this.#lastProgressMs = Date.now(); // the timeout runs per required reply
    if (head.seq !== HANDSHAKE_ID) this.#lastAnsweredSeq = head.seq;
    if (this.#head > 1024 && this.#head * 2 > this.#pending.length) {
      this.#pending.splice(0, this.#head);
      this.#head = 0;
    }
    head.resolve(reply);
    this.#armTimer();
  }

  #onStderr(chunk: Buffer): void {
    // Stderr is drained, never progress: a producer chattering on it still owes its replies in time.
    this.#stderrBytes += chunk.byteLength;
    this.#stderrTail = (
      this.#stderrTail + chunk.toString('utf8', Math.max(0, chunk.byteLength - STDERR_TAIL_BYTES))
    ).slice(-STDERR_TAIL_BYTES);
    if (this.#stderrBytes > this.#maxStderrBytes)
      this.#fail(
        jobFailed(
          'stderr_overflow',
          `the producer wrote more than ${this.#maxStderrBytes} bytes to stderr`,
          `${this.#stderrBytes} bytes`,
        ),
      );
  }

  #armTimer(): void {
    if (this.#outstanding() === 0 || this.#failure !== undefined) {
      if (this.#timer !== undefined) clearTimeout(this.#timer);
      this.#timer = undefined;
      return;
    }
    if (this.#timer !== undefined) return;
    this.#lastProgressMs = Date.now();
    const check = (): void => {
      this.#timer = undefined;
      if (this.#outstanding() === 0 || this.#failure !== undefined) return;
      const idle = Date.now() - this.#lastProgressMs;
      if (idle >= this.#replyTimeoutMs) {
        this.#fail(
          jobFailed(
            'reply_timeout',
            `no required reply from the producer for ${this.#replyTimeoutMs} ms with ${replies(this.#outstanding())} due (other output does not count)${this.#pending[this.#head]?.kind === 'handshake' ? `: no handshake line ever arrived from it. Is the binary an evaluate producer (its first stdout line is the handshake)? Are its arguments right (a runtime such as node given no script reads stdin as one and never answers)?` : ''}`,
          ),
        );
        return;
      }
      this.#timer = setTimeout(check, this.#replyTimeoutMs - idle);
      this.#timer.unref();
    };
    this.#timer = setTimeout(check, this.#replyTimeoutMs);
    this.#timer.unref();
  }

  /** Records the first failure, kills the process group, rejects everything outstanding. */
  #fail(error: PolicyError): PolicyError {
    if (this.#failure !== undefined) return this.#failure;
    this.#failure = error;
    this.#killGroup();
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    const outstanding = this.#pending.slice(this.#head);
    this.#pending.length = 0;
    this.#head = 0;
    for (const request of outstanding) request.reject(error);
    const listeners = this.#failureListeners;
    this.#failureListeners = [];
    for (const listener of listeners) listener(error);
    return error;
  }

  /** The process is gone and its stdout closed: whatever is still due will never come. */
  #onClose(): void {
    if (this.#failure !== undefined) return;
    const how = this.#exitDescription();
    if (this.#child.partialBytes > 0)
      this.#fail(
        jobFailed(
          'output_truncated',
          `stdout ended inside a frame (${this.#child.partialBytes} bytes without a newline); the producer ended with ${how}${this.#stderrNote()}`,
          how,
        ),
      );
    else if (this.#outstanding() > 0)
      this.#fail(
        jobFailed(
          'reply_missing',
          `the producer ended with ${how} ${this.#pending[this.#head]?.kind === 'handshake' ? 'before its handshake' : `and ${replies(this.#outstanding())} missing`}${this.#stderrNote()}`,
          how,
        ),
      );
  }

  #exitDescription(): string {
    const exit = this.#exit;
    if (exit === undefined) return 'no exit yet';
    return exit.signal === null ? `exit code ${String(exit.code)}` : `signal ${exit.signal}`;
  }

  #throwIfFailed(): void {
    if (this.#failure !== undefined) throw this.#failure;
  }

  #killGroup(): void {
    this.#child.kill();
  }

  /**
   * The end of stderr, for a message; when the first line naming an error (a stack trace's
   * `Error: Cannot find module …`) is further back than that, it is quoted first.
   */
  #stderrNote(): string {
    const tail = this.#stderrTail.trim();
    if (tail === '') return '';
    const end = tail.length > STDERR_NOTE_CHARS ? `…${tail.slice(-STDERR_NOTE_CHARS)}` : tail;
    const errorLine = ERROR_LINE.exec(tail)?.[0].trim();
    return errorLine !== undefined && !end.includes(errorLine)
      ? `; stderr says ${errorLine} and ends: ${end}`
      : `; stderr ends: ${end}`;
  }
}

/** How much of stderr's end a message quotes, and the line that names an error in it. */
const STDERR_NOTE_CHARS = 600;
const ERROR_LINE = /^.*\b[A-Za-z]*Error\b.*$/m;

function replies(count: number): string {
  return count === 1 ? '1 reply' : `${count} replies`;
}

/** The sequence number in a row id we sent (`r<seq>`), or undefined for any other value. */
function sequenceOf(id: unknown): number | undefined {
  if (typeof id !== 'string' || id.length < 2 || id.length > 16 || id.charCodeAt(0) !== 0x72)
    return undefined;
  if (id.charCodeAt(1) === 0x30 && id.length > 2) return undefined; // r07 is not what we sent as r7
  let seq = 0;
  for (let at = 1; at < id.length; at++) {
    const digit = id.charCodeAt(at) - 0x30;
    if (digit < 0 || digit > 9) return undefined;
    seq = seq * 10 + digit;
  }
  return seq;
}

function expectedIdOf(head: Pending): string {
  return `r${head.seq}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeVerdict(decision: Record<string, unknown>): string {
  if (!('verdict' in decision)) return 'no verdict';
  const verdict = decision.verdict;
  return verdict === ''
    ? 'an empty string'
    : verdict === null
      ? 'null'
      : Array.isArray(verdict)
        ? 'an array'
        : typeof verdict;
}

function wireError(value: unknown): { code: string; message: string } | undefined {
  if (!isObject(value) || typeof value.code !== 'string' || typeof value.message !== 'string')
    return undefined;
  return { code: value.code, message: value.message };
}
