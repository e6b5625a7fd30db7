// How the engine reads a request line: as the Attest engine's Go decoder (segmentio/encoding/json,
// server.go:124) reads one, so that a line the SDKs send and that engine evaluates is evaluated
// here too. Invalid UTF-8 and unpaired surrogate escapes become U+FFFD, a repeated key keeps its
// last value, and nesting is bounded only by what evaluation can hold (MAX_REQUEST_DEPTH). The
// strict reading of documents (contract's readJsonText) is for bundles, not for this protocol.
//
// It also keeps the line's text, so that a check can read a value as the request wrote it (the
// Attest engine evaluates the raw bytes of a non-string target: `1.0` contains "1.0"), and salvages
// the id of a line that is not JSON, so that the error still reaches the request that caused it.
import { isUtf8 } from 'node:buffer';

declare global {
  interface String {
    /** ES2024, in Node 20; TypeScript's ES2023 lib does not declare it. Unpaired surrogates as U+FFFD. */
    toWellFormed(): string;
  }
}

/**
 * Deepest nesting read. The Attest engine's decoder has no bound (a 10 MiB line may nest millions
 * deep); this engine's checks serialise values with JSON.stringify, which V8 bounds at about 4,000
 * levels, so a line nested deeper is answered -32700 (its id echoed) rather than failing midway.
 */
export const MAX_REQUEST_DEPTH = 3000;

export type RequestText =
  | {
      readonly ok: true;
      readonly value: Record<string, unknown>;
      /** The line as read (invalid UTF-8 replaced), for sourceText. */
      readonly text: string;
    }
  | {
      readonly ok: false;
      readonly problem: 'syntax' | 'too_deep' | 'not_object';
      readonly message: string;
      /** The line's top-level id, when it could be read before the problem. */
      readonly id?: { readonly value: string | number | null; readonly token: string };
    };

/** Reads one request line as the Attest engine's decoder does. Never throws. */
export function readRequestText(line: Uint8Array | string): RequestText {
  const text = typeof line === 'string' ? line : decodeAsGo(line);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      problem: 'syntax',
      message: error instanceof Error ? error.message : String(error),
      ...salvagedId(text),
    };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, problem: 'not_object', message: 'a request is one JSON object' };
  }
  const walk = walkValue(value);
  if (walk.depth > MAX_REQUEST_DEPTH) {
    return {
      ok: false,
      problem: 'too_deep',
      message: `the request nests deeper than ${MAX_REQUEST_DEPTH} levels`,
      ...salvagedId(text),
    };
  }
  const repaired = walk.loneSurrogates ? (wellFormedValue(value) as Record<string, unknown>) : value;
  return { ok: true, value: repaired as Record<string, unknown>, text };
}

/** UTF-8 bytes to text, each byte of an invalid sequence one U+FFFD, as Go's decoder coerces them. */
function decodeAsGo(bytes: Uint8Array): string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isUtf8(bytes)) return buffer.toString('utf8');
  const out: number[] = [];
  for (let index = 0; index < bytes.length;) {
    const length = validSequenceLength(bytes, index);
    if (length === 0) {
      out.push(0xef, 0xbf, 0xbd);
      index++;
    } else {
      for (let offset = 0; offset < length; offset++) out.push(bytes[index + offset] ?? 0);
      index += length;
    }
  }
  return Buffer.from(out).toString('utf8');
}

/** Length of the well-formed UTF-8 sequence at `index` (Unicode table 3-7), or 0. */
function validSequenceLength(bytes: Uint8Array, index: number): number {
  const first = bytes[index] ?? 0;
  if (first < 0x80) return 1;
  const cont = (offset: number, low = 0x80, high = 0xbf): boolean => {
    const byte = bytes[index + offset];
    return byte !== undefined && byte >= low && byte <= high;
  };
  if (first >= 0xc2 && first <= 0xdf) return cont(1) ? 2 : 0;
  if (first >= 0xe0 && first <= 0xef) {
    const [low, high] = first === 0xe0 ? [0xa0, 0xbf] : first === 0xed ? [0x80, 0x9f] : [0x80, 0xbf];
    return cont(1, low, high) && cont(2) ? 3 : 0;
  }
  if (first >= 0xf0 && first <= 0xf4) {
    const [low, high] = first === 0xf0 ? [0x90, 0xbf] : first === 0xf4 ? [0x80, 0x8f] : [0x80, 0xbf];
    return cont(1, low, high) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

/** One iterative walk (deep input cannot overflow it): depth and lone surrogates. */
function walkValue(root: object): { depth: number; loneSurrogates: boolean } {
  let depth = 0;
  let loneSurrogates = false;
  const pending: [unknown, number][] = [[root, 1]];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const [value, level] = item;
    if (level > depth) {
      depth = level;
      if (depth > MAX_REQUEST_DEPTH) break;
    }
    const children = Array.isArray(value) ? (value as unknown[]) : Object.values(value as object);
    if (!Array.isArray(value)) {
      for (const key in value as object) if (!key.isWellFormed()) loneSurrogates = true;
    }
    for (const child of children) {
      if (typeof child === 'string') loneSurrogates ||= !child.isWellFormed();
      else if (typeof child === 'object' && child !== null) pending.push([child, level + 1]);
    }
  }
  return { depth, loneSurrogates };
}

/** The value with every unpaired surrogate (in strings and keys) replaced by U+FFFD; last key wins. */
function wellFormedValue(value: unknown): unknown {
  if (typeof value === 'string') return value.toWellFormed();
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(wellFormedValue);
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    Object.defineProperty(out, key.toWellFormed(), {
      value: wellFormedValue(child),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

// --- Spans of values in the text (a narrow scanner; the text is JSON unless said otherwise). ---

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

function skipWhitespace(text: string, from: number): number {
  let index = from;
  for (let code = text.charCodeAt(index); code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;) {
    code = text.charCodeAt(++index);
  }
  return index;
}

/** Index of the quote that closes a string whose content starts at `from`, or -1 (native scans). */
function closingQuote(text: string, from: number): number {
  for (
    let candidate = text.indexOf('"', from);
    candidate !== -1;
    candidate = text.indexOf('"', candidate + 1)
  ) {
    let backslashes = 0;
    while (text.charCodeAt(candidate - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return candidate;
  }
  return -1;
}

/**
 * End (exclusive) of the value starting at `start`, or -1 when none reads there. With `ends`, the
 * end of every container passed on the way is remembered (by its start), so that reading into a
 * value already skipped costs no second scan.
 */
function valueEnd(text: string, start: number, ends?: Map<number, number>): number {
  const first = text.charCodeAt(start);
  if (first === QUOTE) {
    const close = closingQuote(text, start + 1);
    return close === -1 ? -1 : close + 1;
  }
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    const known = ends?.get(start);
    if (known !== undefined) return known;
    // Only the characters between strings are visited; a string is jumped over (closingQuote).
    const open: number[] = [];
    for (let index = start; index < text.length; index++) {
      const code = text.charCodeAt(index);
      if (code === QUOTE) {
        index = closingQuote(text, index + 1);
        if (index === -1) return -1;
      } else if (code === OPEN_BRACE || code === OPEN_BRACKET) open.push(index);
      else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
        const opened = open.pop();
        if (opened === undefined) return -1;
        ends?.set(opened, index + 1);
        if (open.length === 0) return index + 1;
      }
    }
    return -1;
  }
  NUMBER.lastIndex = start;
  const number = NUMBER.exec(text);
  if (number !== null) return start + number[0].length;
  for (const word of ['true', 'false', 'null']) if (text.startsWith(word, start)) return start + word.length;
  return -1;
}

interface Span {
  readonly start: number;
  readonly end: number;
}

/**
 * The members (or elements) of the object (array) at `open`, in order, as far as they read: a
 * member's key as JSON.parse decodes it (unpaired surrogates as U+FFFD) and its value's span.
 */
function entriesAt(
  text: string,
  open: number,
  ends?: Map<number, number>,
): { key: string | number; span: Span }[] {
  const isObject = text.charCodeAt(open) === OPEN_BRACE;
  const closing = isObject ? CLOSE_BRACE : CLOSE_BRACKET;
  const entries: { key: string | number; span: Span }[] = [];
  let index = skipWhitespace(text, open + 1);
  if (text.charCodeAt(index) === closing) return entries;
  for (let position = 0; ; position++) {
    let key: string | number = position;
    if (isObject) {
      if (text.charCodeAt(index) !== QUOTE) return entries;
      const close = closingQuote(text, index + 1);
      if (close === -1) return entries;
      try {
        key = (JSON.parse(text.slice(index, close + 1)) as string).toWellFormed();
      } catch {
        return entries;
      }
      index = skipWhitespace(text, close + 1);
      if (text.charCodeAt(index) !== COLON) return entries;
      index++;
    }
    const start = skipWhitespace(text, index);
    const end = valueEnd(text, start, ends);
    if (end === -1) return entries;
    entries.push({ key, span: { start, end } });
    index = skipWhitespace(text, end);
    if (text.charCodeAt(index) !== COMMA) return entries;
    index = skipWhitespace(text, index + 1);
  }
}

/**
 * The id of a line that is not (readable) JSON, when a top-level `id` member with a number, string
 * or null value reads before the problem: the reply can then still reach its request.
 */
function salvagedId(text: string): { id?: { value: string | number | null; token: string } } {
  const open = skipWhitespace(text, 0);
  if (text.charCodeAt(open) !== OPEN_BRACE) return {};
  let found: { value: string | number | null; token: string } | undefined;
  for (const { key, span } of entriesAt(text, open)) {
    if (key !== 'id') continue;
    const token = text.slice(span.start, span.end);
    try {
      const value: unknown = JSON.parse(token);
      if (value === null || typeof value === 'string' || typeof value === 'number') {
        found = { value: typeof value === 'string' ? value.toWellFormed() : value, token };
      } else found = undefined;
    } catch {
      found = undefined;
    }
  }
  return found === undefined ? {} : { id: found };
}

/** The token of the last top-level `id` member of a JSON object text (the one JSON.parse keeps). */
export function lastIdToken(text: string): string | undefined {
  const open = skipWhitespace(text, 0);
  if (text.charCodeAt(open) !== OPEN_BRACE) return undefined;
  let token: string | undefined;
  for (const { key, span } of entriesAt(text, open))
    if (key === 'id') token = text.slice(span.start, span.end);
  return token;
}

interface Source {
  readonly text: string;
  /** Where the registered value sits in the text. */
  readonly path: readonly (string | number)[];
  /** Entries of containers already scanned, by their start offset. */
  readonly scanned: Map<number, Map<string | number, Span>>;
  /** Ends of containers already skipped, by their start offset. */
  readonly ends: Map<number, number>;
}

const SOURCES = new WeakMap<object, Source>();

/** Remembers that `value` was read from `text` at `path` (keys and indexes from the top level). */
export function rememberSource(value: object, text: string, path: readonly (string | number)[]): void {
  SOURCES.set(value, { text, path, scanned: new Map(), ends: new Map() });
}

/**
 * The text a value below `root` had in its request line (`at`: keys and indexes from `root`), or
 * undefined when `root` was not read from a line (an in-process trace).
 */
export function sourceText(root: object, at: readonly (string | number)[]): string | undefined {
  const span = sourceSpan(root, at);
  return span === undefined ? undefined : (SOURCES.get(root)?.text ?? '').slice(span.start, span.end);
}

/**
 * Where a value below `root` sits in its request line (offsets into the line's text), or undefined
 * when `root` was not read from a line or the value is not there.
 */
export function sourceSpan(
  root: object,
  at: readonly (string | number)[],
): { readonly start: number; readonly end: number } | undefined {
  const source = SOURCES.get(root);
  if (source === undefined) return undefined;
  const { text, scanned, ends } = source;
  let span: Span = { start: skipWhitespace(text, 0), end: text.length };
  for (const step of [...source.path, ...at]) {
    let entries = scanned.get(span.start);
    if (entries === undefined) {
      const opener = text.charCodeAt(span.start);
      if (opener !== OPEN_BRACE && opener !== OPEN_BRACKET) return undefined;
      // Later members replace earlier ones, as JSON.parse keeps the last of a repeated key.
      entries = new Map(entriesAt(text, span.start, ends).map(({ key, span: value }) => [key, value]));
      scanned.set(span.start, entries);
    }
    const next = entries.get(step);
    if (next === undefined) return undefined;
    span = next;
  }
  return span;
}

// --- Member names as Go matches struct fields: exactly, else case-insensitively (segmentio
// json/decode.go:1202-1205). A later member wins over an earlier one either way. ---

/** The fields of the Attest engine's structs the engine reads (pkg/types), by struct. */
export const GO_STRUCT_FIELDS = {
  request: ['jsonrpc', 'id', 'method', 'params'],
  initialize: ['sdk_name', 'sdk_version', 'protocol_version', 'required_capabilities', 'preferred_encoding'],
  evaluate_batch: ['trace', 'assertions'],
  assertion: ['assertion_id', 'type', 'spec', 'request_id'],
  validate_trace_tree: ['trace'],
  submit_plugin_result: ['trace_id', 'plugin_name', 'assertion_id', 'result'],
  plugin_result: ['status', 'score', 'explanation', 'metadata'],
  query_drift: ['assertion_id', 'static_threshold', 'window_size'],
  trace: [
    'schema_version',
    'trace_id',
    'agent_id',
    'input',
    'steps',
    'output',
    'metadata',
    'parent_trace_id',
  ],
  step: [
    'type',
    'name',
    'args',
    'result',
    'sub_trace',
    'metadata',
    'started_at_ms',
    'ended_at_ms',
    'agent_id',
    'agent_role',
  ],
  trace_metadata: [
    'total_tokens',
    'cost_usd',
    'latency_ms',
    'model',
    'timestamp',
    'aggregate_tokens',
    'aggregate_cost_usd',
    'aggregate_latency_ms',
    'agent_count',
  ],
} as const satisfies Record<string, readonly string[]>;

const FIELD_SETS = new WeakMap<readonly string[], ReadonlySet<string>>();

/**
 * `value` with each member whose name matches one of `fields` only case-insensitively renamed to
 * that field (the same object when none does); any other value as it is.
 */
export function foldStructKeys<T>(value: T, fields: readonly string[]): T {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  let names = FIELD_SETS.get(fields);
  if (names === undefined) {
    names = new Set(fields);
    FIELD_SETS.set(fields, names);
  }
  const known = names;
  const renamed = (key: string): string => {
    if (known.has(key)) return key;
    // segmentio folds each rune with unicode.SimpleFold (decode.go appendToLower): of the letters
    // that fold to ASCII, JavaScript's toLowerCase misses only ſ (U+017F), which is s there.
    const lower = key.toLowerCase().replace(/\u017f/g, 's');
    return known.has(lower) ? lower : key;
  };
  const keys = Object.keys(value);
  // The common case: every name exact (or not a field at all): the object as it is.
  if (keys.every((key) => renamed(key) === key)) return value;
  // A later member replaces an earlier one and takes its place last, as a later member does.
  const members = new Map<string, unknown>();
  for (const key of keys) {
    const name = renamed(key);
    members.delete(name);
    members.set(name, (value as Record<string, unknown>)[key]);
  }
  const out: Record<string, unknown> = {};
  for (const [name, member] of members) {
    Object.defineProperty(out, name, { value: member, enumerable: true, writable: true, configurable: true });
  }
  return out as T;
}

/** A trace with its own, its steps' and its metadata's member names folded, sub-traces too. */
export function foldTraceKeys<T>(trace: T): T {
  const folded = foldStructKeys(trace, GO_STRUCT_FIELDS.trace) as unknown;
  if (typeof folded !== 'object' || folded === null || Array.isArray(folded)) return trace;
  const record = folded as Record<string, unknown>;
  const steps = record.steps;
  const metadata = foldStructKeys(record.metadata, GO_STRUCT_FIELDS.trace_metadata);
  const foldedSteps = Array.isArray(steps)
    ? steps.map((step: unknown) => {
        const foldedStep = foldStructKeys(step, GO_STRUCT_FIELDS.step);
        if (typeof foldedStep !== 'object' || foldedStep === null) return foldedStep;
        const sub = (foldedStep as Record<string, unknown>).sub_trace;
        const foldedSub = foldTraceKeys(sub);
        return foldedSub === sub ? foldedStep : { ...foldedStep, sub_trace: foldedSub };
      })
    : steps;
  const stepsChanged =
    Array.isArray(steps) && (foldedSteps as unknown[]).some((step, index) => step !== steps[index]);
  if (folded === trace && metadata === record.metadata && !stepsChanged) return trace;
  return {
    ...record,
    ...(metadata === record.metadata ? {} : { metadata }),
    ...(stepsChanged ? { steps: foldedSteps } : {}),
  } as T;
}
