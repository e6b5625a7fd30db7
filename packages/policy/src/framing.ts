// The frames of the evaluate protocol, shared by the producer and the consumer: the longest frame
// either side accepts (the lines themselves come from @paperclip-evals/node's LineReader: UTF-8
// checked, each line bounded), and the raw text of chosen members of an object, so 64-bit integers
// (`now_ms`, registers, `state_out`) and echoed ids never pass through a double.

import { pointer } from '@paperclip-evals/contract';

/** The longest frame either side accepts, in bytes (the newline excluded). */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

/**
 * Where chosen members of a JSON object are: `spans[2i]`, `spans[2i + 1]` is `[start, end)` of the
 * value of `keys[i]` (its last occurrence, as in JSON.parse), or -1, -1 when the key is absent.
 * Allocation-free: each caller keeps its own `spans` (length 2 × keys.length) and reads it before
 * the next call.
 */
export type MemberSpans = Int32Array;

export function memberSpansFor(keys: readonly string[]): MemberSpans {
  return new Int32Array(keys.length * 2);
}

/**
 * Fills `spans` for `keys` from the object in `text[from, to)`. The text must already be known to
 * be valid JSON with an object there (JSON.parse accepted it): this only finds boundaries, it
 * does not validate. Returns false when there is no object at `from`.
 */
export function findMembers(
  text: string,
  from: number,
  to: number,
  keys: readonly string[],
  spans: MemberSpans,
): boolean {
  spans.fill(-1);
  let at = skipSpace(text, from, to);
  if (text.charCodeAt(at) !== 0x7b) return false;
  at = skipSpace(text, at + 1, to);
  while (at < to && text.charCodeAt(at) === 0x22) {
    const keyEnd = endOfString(text, at);
    const index = keyIndex(text, at, keyEnd, keys);
    at = skipSpace(text, skipSpace(text, keyEnd, to) + 1, to); // past the colon
    const end = endOfValue(text, at, to);
    if (index !== -1) {
      spans[2 * index] = at;
      spans[2 * index + 1] = end;
    }
    at = skipSpace(text, end, to);
    if (text.charCodeAt(at) === 0x2c) at = skipSpace(text, at + 1, to);
  }
  return true;
}

/** The index in `keys` of the key whose quoted text is `text[start, end)`, or -1. */
function keyIndex(text: string, start: number, end: number, keys: readonly string[]): number {
  const length = end - start - 2;
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] ?? '';
    if (key.length === length && text.startsWith(key, start + 1)) return index;
  }
  for (let at = start + 1; at < end - 1; at++) {
    if (text.charCodeAt(at) === 0x5c) return keys.indexOf(JSON.parse(text.slice(start, end)) as string);
  }
  return -1; // no escapes: the raw key is the key, and it is none of ours
}

/**
 * The span of the value of the last member of the object that makes up `text`, when that member's
 * key is written as `"key"` (no escapes) and its value is an object or array; undefined otherwise.
 * The last member is the occurrence JSON.parse keeps, so no forward walk is needed to trust it.
 * `text` must already be known to be valid JSON holding an object.
 */
export function lastMember(text: string, key: string): Span | undefined {
  const close = skipSpaceBack(text, text.length) - 1;
  if (text.charCodeAt(close) !== 0x7d) return undefined;
  const valueEnd = skipSpaceBack(text, close);
  const lastCode = text.charCodeAt(valueEnd - 1);
  if (lastCode !== 0x7d && lastCode !== 0x5d) return undefined;
  let depth = 0;
  let at = valueEnd - 1;
  for (; at >= 0; at--) {
    const code = text.charCodeAt(at);
    if (code === 0x22) at = startOfString(text, at);
    else if (code === 0x7d || code === 0x5d) depth++;
    else if ((code === 0x7b || code === 0x5b) && --depth === 0) break;
  }
  if (at < 0) return undefined;
  const colon = skipSpaceBack(text, at) - 1;
  if (text.charCodeAt(colon) !== 0x3a) return undefined;
  const keyEnd = skipSpaceBack(text, colon);
  const keyStart = keyEnd - key.length - 2;
  if (
    keyStart < 1 ||
    text.charCodeAt(keyStart) !== 0x22 ||
    text.charCodeAt(keyEnd - 1) !== 0x22 ||
    !text.startsWith(key, keyStart + 1)
  )
    return undefined;
  // The quote must open the key: outside a string it follows `{` or `,` (an escaped one would not).
  const before = text.charCodeAt(skipSpaceBack(text, keyStart) - 1);
  return before === 0x7b || before === 0x2c ? { start: at, end: valueEnd } : undefined;
}

/** The raw number tokens of a JSON array of numbers at `span` (already known valid). */
export function arrayNumberTokens(text: string, span: Span): string[] {
  const inner = text.slice(span.start + 1, span.end - 1).trim();
  return inner === '' ? [] : inner.split(',').map((token) => token.trim());
}

/** True when `text[start, end)` holds no `.`, `e` or `E`: every number token in it is an integer literal. */
export function hasNoFraction(text: string, start: number, end: number): boolean {
  for (let at = start; at < end; at++) {
    const code = text.charCodeAt(at);
    if (code === 0x2e || code === 0x65 || code === 0x45) return false;
  }
  return true;
}

/**
 * A `\uD800`-`\uDFFF` escape: in a line already known to be UTF-8, the only way a string of its
 * JSON can hold an unpaired surrogate (an escaped backslash before `u` also matches: then the walk
 * below finds nothing).
 */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * The JSON pointer of the first string or member name of a frame that holds an unpaired UTF-16
 * surrogate, or undefined. `text` is the frame, `value()` what JSON.parse read of it (called only
 * when `text` has a surrogate escape at all: the common frame pays one scan). Both sides refuse such
 * a frame as invalid JSON: the seed's frames are UTF-8 text, and an unpaired surrogate is no
 * character (not I-JSON, RFC 7493 §2.1; the contract's strict reader says json_lone_surrogate). The
 * walk's depth is the frame's, already bounded by the caller's strict read.
 */
export function loneSurrogateAt(text: string, value: () => unknown): string | undefined {
  return SURROGATE_ESCAPE.test(text) ? loneSurrogateIn(value(), '') : undefined;
}

function loneSurrogateIn(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.isWellFormed() ? undefined : path;
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = loneSurrogateIn(value[index], `${path}/${index}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, child] of Object.entries(value)) {
    const childPath = path + pointer(key);
    if (!key.isWellFormed()) return childPath;
    const found = loneSurrogateIn(child, childPath);
    if (found !== undefined) return found;
  }
  return undefined;
}

export const I64_MIN = -(2n ** 63n);
export const I64_MAX = 2n ** 63n - 1n;
const INTEGER_TOKEN = /^-?(?:0|[1-9][0-9]*)$/;

/**
 * A JSON number token as a signed 64-bit integer, or undefined: `1.0`, `1e3`, `-0.5` and anything
 * out of range are refused, so no value is ever coerced from a float.
 */
export function parseI64(token: string): bigint | undefined {
  if (!INTEGER_TOKEN.test(token)) return undefined;
  const value = BigInt(token);
  return value < I64_MIN || value > I64_MAX ? undefined : value;
}

/** `[start, end)` of a value inside the text it was found in. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/**
 * The raw text behind a value JSON.parse read, located only when it is needed. `exact` says that
 * every safe integer read from this frame is exactly its token (no fraction or exponent anywhere,
 * see plainFrame), so the text need not be consulted for it.
 */
export interface RawSource {
  readonly text: string;
  readonly exact: boolean;
  /** Where the value is in `text`; undefined when it is absent. */
  locate(): Span | undefined;
}

/** Frames longer than this are never checked by the one-pass pattern below (its backtrack stack). */
const PLAIN_CHECK_MAX_CHARS = 65_536;
/** A digit followed by `.`, `e` or `E` anywhere: without one, no number has a fraction or exponent. */
const DIGIT_THEN_FRACTION = /[0-9][.eE]/;
/** A number with a fraction or an exponent outside strings, in a text whose strings hold no escapes. */
const FRACTION_OUTSIDE_STRINGS = /^(?:[^"]|"[^"]*")*?[0-9][.eE]/;

/**
 * True when `text` (already known to be valid JSON) has no backslash and no number with a fraction
 * or exponent: each number token in it is then an integer literal, so a safe integer JSON.parse
 * read is exact as it is, and each string token is what JSON.stringify writes for its value.
 */
export function plainFrame(text: string): boolean {
  if (text.includes('\\')) return false;
  if (!DIGIT_THEN_FRACTION.test(text)) return true; // the common case: one scan, no string tracking
  return text.length <= PLAIN_CHECK_MAX_CHARS && !FRACTION_OUTSIDE_STRINGS.test(text);
}

/** The whole of `text` as the source of its top-level value. */
export function frameSource(text: string): RawSource {
  return new FrameSource(text);
}

class FrameSource implements RawSource {
  readonly exact: boolean;
  readonly #whole: Span;

  constructor(readonly text: string) {
    this.exact = plainFrame(text);
    this.#whole = { start: 0, end: text.length };
  }

  locate(): Span {
    return this.#whole;
  }
}

const oneSpan = memberSpansFor(['']);

/** The source of `key`'s value in the object `parent` locates (found on first use, then kept). */
export function memberSource(parent: RawSource, key: string): RawSource {
  return new MemberSource(parent, key);
}

class MemberSource implements RawSource {
  readonly text: string;
  readonly exact: boolean;
  #found: Span | null | undefined = null;

  constructor(
    readonly parent: RawSource,
    readonly key: string,
  ) {
    this.text = parent.text;
    this.exact = parent.exact;
  }

  locate(): Span | undefined {
    if (this.#found !== null) return this.#found;
    const object = this.parent.locate();
    this.#found = undefined;
    if (object !== undefined && findMembers(this.text, object.start, object.end, [this.key], oneSpan)) {
      const start = oneSpan[0] ?? -1;
      if (start >= 0) this.#found = { start, end: oneSpan[1] ?? start };
    }
    return this.#found;
  }
}

/**
 * The number JSON.parse read from `source` as a signed 64-bit integer, or undefined. A safe
 * integer is exact as it is when the frame is plain, or when its token has no fraction or
 * exponent; anything else is read from its token.
 */
export function i64Of(value: unknown, source: RawSource): bigint | undefined {
  if (typeof value !== 'number') return undefined;
  if (source.exact && Number.isSafeInteger(value)) return BigInt(value);
  const span = source.locate();
  if (span === undefined) return undefined;
  if (Number.isSafeInteger(value) && hasNoFraction(source.text, span.start, span.end)) return BigInt(value);
  return parseI64(source.text.slice(span.start, span.end));
}

/** The spans of the elements of the JSON array at `span` (the text already known to be valid JSON). */
export function arrayElements(text: string, span: Span): Span[] {
  const elements: Span[] = [];
  const close = span.end - 1;
  let at = skipSpace(text, span.start + 1, close);
  while (at < close) {
    const end = endOfValue(text, at, close);
    elements.push({ start: at, end });
    at = skipSpace(text, end, close);
    if (text.charCodeAt(at) === 0x2c) at = skipSpace(text, at + 1, close);
  }
  return elements;
}

/** The number tokens of the JSON text at `span`, outside strings (the text already known to be valid). */
export function numberTokens(text: string, span: Span): string[] {
  const tokens: string[] = [];
  for (let at = span.start; at < span.end;) {
    const code = text.charCodeAt(at);
    if (code === 0x22) at = endOfString(text, at);
    else if (code === 0x2d || (code >= 0x30 && code <= 0x39)) {
      const end = endOfValue(text, at, span.end);
      tokens.push(text.slice(at, end));
      at = end;
    } else at++;
  }
  return tokens;
}

/** Compact JSON text of a raw slice: whitespace outside strings removed (ids are echoed verbatim). */
export function compactJson(raw: string): string {
  if (!/[\s]/.test(raw)) return raw;
  let out = '';
  for (let at = 0; at < raw.length; at++) {
    const code = raw.charCodeAt(at);
    if (code === 0x22) {
      const end = endOfString(raw, at);
      out += raw.slice(at, end);
      at = end - 1;
    } else if (!isSpace(code)) out += raw[at] ?? '';
  }
  return out;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

function skipSpace(text: string, at: number, to: number): number {
  while (at < to && isSpace(text.charCodeAt(at))) at++;
  return at;
}

function skipSpaceBack(text: string, at: number): number {
  while (at > 0 && isSpace(text.charCodeAt(at - 1))) at--;
  return at;
}

/**
 * Index of the opening quote of the string whose closing quote is at `at`, or -1: inside a string
 * every quote is escaped (an odd run of backslashes before it), and the opening one is not.
 */
function startOfString(text: string, at: number): number {
  for (let from = at - 1; from >= 0;) {
    const quote = text.lastIndexOf('"', from);
    if (quote === -1) return -1;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote;
    from = quote - 1;
  }
  return -1;
}

/** Index just past the string whose opening quote is at `at` (indexOf: strings are most of a frame). */
function endOfString(text: string, at: number): number {
  for (let from = at + 1; ;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** Index just past the value starting at `at`. */
function endOfValue(text: string, at: number, to: number): number {
  const first = text.charCodeAt(at);
  if (first === 0x22) return endOfString(text, at);
  if (first !== 0x7b && first !== 0x5b) {
    let index = at;
    while (index < to) {
      const code = text.charCodeAt(index);
      if (code === 0x2c || code === 0x7d || code === 0x5d || isSpace(code)) break;
      index++;
    }
    return index;
  }
  let depth = 0;
  for (let index = at; index < to; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x22) index = endOfString(text, index) - 1;
    else if (code === 0x7b || code === 0x5b) depth++;
    else if ((code === 0x7d || code === 0x5d) && --depth === 0) return index + 1;
  }
  return to;
}
