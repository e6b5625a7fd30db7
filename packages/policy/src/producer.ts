// The producer side of the evaluate NDJSON protocol (`evals policy evaluate`): the handshake, then
// one reply per recognised input frame, in input order. Bundle headers get bundle_ack or
// bundle_error; rows get a response with decision + state_out, or a row error. Stdout carries
// protocol frames only; diagnostics go to the `diagnostics` callback (stderr).
import { once } from 'node:events';

import { canonicalDigest, duplicateKeyIssues, schemaDocument } from '@paperclip-evals/contract';
import { LineReader, writeFrames } from '@paperclip-evals/node';

import { BUNDLE_SCHEMA_ID, loadBundle } from './bundle.js';
import { DECISION_V1, decisionToJSON } from './decision.js';
import { evaluateEvent } from './engine.js';
import { eventFromJSON } from './event.js';
import {
  MAX_FRAME_BYTES,
  compactJson,
  frameSource,
  i64Of,
  loneSurrogateAt,
  memberSource,
} from './framing.js';
import { stateFromJSON, stateToJSON } from './state.js';

import type { Writable } from 'node:stream';

import type { LineEvent } from '@paperclip-evals/node';

import type { BundleLoad, LoadedBundle } from './bundle.js';
import type { RawSource } from './framing.js';

export const ENGINE_VERSION = '1.0.0';
export const PROTOCOL_VERSION = 1;
/** The version of the policy schemas (bundle v1, decision v1) this engine implements. */
export const SCHEMAS_VERSION = '1.0.0';

/** Row error codes (open strings on the wire). */
export const ROW_ERROR = {
  malformed: 'OL-1240',
  bundleRejected: 'OL-1241',
  noBundle: 'OL-1242',
  layoutMismatch: 'OL-1243',
  panicked: 'OL-1244',
} as const;

/**
 * Replies leave once this many characters are ready, not only at the end of an input chunk: the
 * consumer works on the first replies (and sends those sessions' next rows) while the rest of the
 * chunk is evaluated, instead of both sides taking turns.
 */
const EARLY_FLUSH_CHARS = 8192;

/** Only JSON whitespace makes a line blank (a line of U+00A0 or a BOM is not JSON: reported). */
const BLANK = /^[ \t\r]*$/;

/** The deepest nesting a frame may have (a bundle's predicate tree included); deeper is not a frame. */
const MAX_FRAME_DEPTH = 1024;

/** How many distinct row-override bundles stay compiled (derived from inputs only, never history). */
const OVERRIDE_CACHE_ENTRIES = 32;
/** Longer override texts are compiled for their row and not kept (the cache holds its keys' text). */
const OVERRIDE_CACHE_MAX_CHARS = 1024 * 1024;

export interface Handshake {
  readonly type: 'handshake';
  readonly engine_version: string;
  readonly client_version: string;
  readonly schemas_version: string;
  readonly protocol_version: number;
  readonly corpus_digest: string;
}

/** The first frame: corpus_digest is the RFC 8785 digest of the policy schemas the engine enforces. */
export function handshake(clientVersion: string): Handshake {
  return {
    type: 'handshake',
    engine_version: ENGINE_VERSION,
    client_version: clientVersion,
    schemas_version: SCHEMAS_VERSION,
    protocol_version: PROTOCOL_VERSION,
    corpus_digest: canonicalDigest([schemaDocument(BUNDLE_SCHEMA_ID), schemaDocument(DECISION_V1)]),
  };
}

/** The protocol state of one producer process: the active header bundle and the row error count. */
export class EvaluateSession {
  #active: LoadedBundle | undefined;
  #overrides = new Map<string, BundleLoad>();
  #lineNumber = 0;
  rowErrors = 0;

  /** `evaluate` is the zone evaluator; tests replace it to reach the OL-1244 path. */
  constructor(
    private readonly diagnostics: (message: string) => void,
    private readonly evaluate: typeof evaluateEvent = evaluateEvent,
  ) {}

  /** The reply frame for one input line (without its newline), or undefined when none is due. */
  handle(line: LineEvent): string | undefined {
    this.#lineNumber++;
    if (line.kind !== 'line') {
      const what = line.kind === 'not_utf8' ? 'not UTF-8' : 'longer than the frame limit';
      this.diagnostics(`line ${this.#lineNumber}: ${what} (${line.byteLength} bytes); skipped`);
      return undefined;
    }
    const { text } = line;
    if (text.charCodeAt(0) !== 0x7b && BLANK.test(text)) return undefined;
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch (error) {
      this.diagnostics(
        `line ${this.#lineNumber}: not JSON (${error instanceof Error ? error.message : String(error)}); skipped`,
      );
      return undefined;
    }
    if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) {
      this.diagnostics(`line ${this.#lineNumber}: not a JSON object; skipped`);
      return undefined;
    }
    // Strict reading, as the consumer reads our replies (the contract's one reader): JSON.parse keeps
    // the last of a repeated key, so `"id":"d","id":"e"` would be answered as e. A repeated key makes
    // the line no valid frame (I-JSON, RFC 7493): reported and skipped without a reply, as invalid
    // JSON is, so the caller sees the reply missing (a job error) instead of a guess.
    const repeated = duplicateKeyIssues(text, frame, MAX_FRAME_DEPTH);
    if (repeated.length > 0) {
      const [first] = repeated;
      this.diagnostics(
        first?.code === 'json_duplicate_key'
          ? `line ${this.#lineNumber}: not valid JSON (the key at ${first.path === '' || first.path === undefined ? '(root)' : first.path} is repeated: ambiguous, never read as its last value); skipped`
          : `line ${this.#lineNumber}: not valid JSON (${first?.message ?? 'refused by the strict reader'}); skipped`,
      );
      return undefined;
    }
    const lone = loneSurrogateAt(text, () => frame);
    if (lone !== undefined) {
      this.diagnostics(
        `line ${this.#lineNumber}: not valid JSON (an unpaired UTF-16 surrogate escape at ${lone === '' ? '(root)' : lone}: no Unicode character, not I-JSON); skipped`,
      );
      return undefined;
    }
    const fields = frame as Record<string, unknown>;
    if (fields.type === 'bundle') return this.#header(fields.bundle, text);
    if (fields.type === 'row') return this.#row(fields, text);
    return undefined; // a missing, non-string or unknown type is ignored without a reply
  }

  /** `text`: the header frame, whose bundle member's text the loader reads number tokens from. */
  #header(document: unknown, text: string): string {
    const span = document === undefined ? undefined : memberSource(frameSource(text), 'bundle').locate();
    const load = loadBundle(
      document === undefined ? null : document,
      span === undefined ? undefined : text.slice(span.start, span.end),
    );
    if (!load.ok) {
      this.#active = undefined;
      this.diagnostics(`line ${this.#lineNumber}: ${load.message}`);
      return JSON.stringify({
        type: 'bundle_error',
        error: { code: ROW_ERROR.bundleRejected, message: load.message },
      });
    }
    this.#active = load.bundle;
    return JSON.stringify({
      type: 'bundle_ack',
      bundle_digest: load.bundle.digest,
      skipped: load.bundle.skipped,
    });
  }

  #row(fields: Record<string, unknown>, text: string): string {
    const row = frameSource(text);
    const id = echoedId(fields.id, row);
    let bundle = this.#active;
    if (fields.bundle !== undefined && fields.bundle !== null) {
      const span = memberSource(row, 'bundle').locate();
      const override = this.#override(
        fields.bundle,
        span === undefined ? '' : text.slice(span.start, span.end),
      );
      if (!override.ok)
        return this.#rowError(
          id,
          null,
          ROW_ERROR.bundleRejected,
          `row bundle override rejected: ${override.message}`,
        );
      bundle = override.bundle;
    }
    if (bundle === undefined)
      return this.#rowError(
        id,
        null,
        ROW_ERROR.noBundle,
        'no bundle is loaded: send a bundle header or a row bundle',
      );
    const event = eventFromJSON(fields.event, memberSource(row, 'event'));
    if (typeof event === 'string') return this.#rowError(id, bundle.digest, ROW_ERROR.malformed, event);
    const nowMs = i64Of(fields.now_ms, memberSource(row, 'now_ms'));
    if (nowMs === undefined)
      return this.#rowError(
        id,
        bundle.digest,
        ROW_ERROR.malformed,
        'now_ms must be a signed 64-bit integer (no fraction, no exponent)',
      );
    const state = stateFromJSON(fields.state_in, memberSource(row, 'state_in'), bundle.layout);
    if (state.kind !== 'ok') {
      const code = state.kind === 'mismatch' ? ROW_ERROR.layoutMismatch : ROW_ERROR.malformed;
      return this.#rowError(id, bundle.digest, code, state.message);
    }
    let body: string;
    try {
      const { decision, registers } = this.evaluate(bundle, event, nowMs, state.registers);
      body = `"decision":${decisionToJSON(decision)},"state_out":${stateToJSON(registers)}`;
    } catch (error) {
      return this.#rowError(
        id,
        bundle.digest,
        ROW_ERROR.panicked,
        `evaluation failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    return `{"type":"response","id":${id},"engine_version":"${ENGINE_VERSION}","bundle_digest":"${bundle.digest}",${body}}`;
  }

  /** Override bundles are compiled once per distinct text (a bounded cache of input-derived data). */
  #override(document: unknown, key: string): BundleLoad {
    let load = this.#overrides.get(key);
    if (load === undefined) {
      load = loadBundle(document, key === '' ? undefined : key);
      if (key.length > OVERRIDE_CACHE_MAX_CHARS) return load;
      if (this.#overrides.size >= OVERRIDE_CACHE_ENTRIES)
        this.#overrides.delete(this.#overrides.keys().next().value ?? '');
      this.#overrides.set(key, load);
    }
    return load;
  }

  #rowError(id: string, digest: string | null, code: string, message: string): string {
    this.rowErrors++;
    return `{"type":"response","id":${id},"engine_version":"${ENGINE_VERSION}","bundle_digest":${JSON.stringify(digest)},"error":${JSON.stringify({ code, message })}}`;
  }
}

export interface RunEvaluateOptions {
  readonly input: AsyncIterable<Buffer>;
  readonly output: Writable;
  readonly diagnostics: (message: string) => void;
  readonly clientVersion: string;
}

/**
 * Runs the producer over a byte stream: handshake first, then replies in order, written whenever
 * EARLY_FLUSH_CHARS of them are ready and at the end of each input chunk (whole lines only).
 * Resolves to the exit code: 0 no row errors, 1 at least one.
 */
export async function runEvaluate(options: RunEvaluateOptions): Promise<0 | 1> {
  const { output } = options;
  await writeFrames(output, `${JSON.stringify(handshake(options.clientVersion))}\n`);
  const session = new EvaluateSession(options.diagnostics);
  const reader = new LineReader(MAX_FRAME_BYTES);
  let batch = '';
  let drained = true;
  const collect = (line: LineEvent): void => {
    const reply = session.handle(line);
    if (reply === undefined) return;
    batch += `${reply}\n`;
    if (batch.length >= EARLY_FLUSH_CHARS) {
      drained = output.write(batch) && drained;
      batch = '';
    }
  };
  for await (const chunk of options.input) {
    reader.push(chunk, collect);
    if (batch !== '') {
      drained = output.write(batch) && drained;
      batch = '';
    }
    // Backpressure per input chunk: at most one chunk's replies wait in memory.
    if (!drained) {
      await once(output, 'drain');
      drained = true;
    }
  }
  reader.finish(collect); // a last line without its newline is still a frame
  if (batch !== '') await writeFrames(output, batch);
  return session.rowErrors > 0 ? 1 : 0;
}

/**
 * The id's raw text, echoed verbatim (an object or array compacted); null when absent. In a plain
 * frame a string, a safe integer, a boolean or null is written exactly as its token was.
 */
function echoedId(id: unknown, row: RawSource): string {
  if (id === undefined) return 'null';
  if (row.exact) {
    if (typeof id === 'string') {
      const quoted = JSON.stringify(id);
      if (!quoted.includes('\\')) return quoted; // a lone surrogate is escaped: use the token
    } else if (typeof id === 'number') {
      if (Number.isSafeInteger(id) && !Object.is(id, -0)) return String(id);
    } else if (typeof id === 'boolean' || id === null) return String(id);
  }
  const span = memberSource(row, 'id').locate();
  if (span === undefined) return 'null';
  const raw = row.text.slice(span.start, span.end);
  const first = raw.charCodeAt(0);
  return first === 0x7b || first === 0x5b ? compactJson(raw) : raw;
}
