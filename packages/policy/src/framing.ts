// NDJSON framing shared by the producer and the consumer: bytes → complete lines (UTF-8 checked,
// each line bounded), and the raw text of an object's top-level members, so 64-bit integers
// (`now_ms`, registers, `state_out`) and echoed ids never pass through a double.
import { isUtf8 } from 'node:buffer';

/** The longest frame either side accepts, in bytes (the newline excluded). */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

export type LineEvent =
  | { readonly kind: 'line'; readonly text: string }
  | { readonly kind: 'not_utf8'; readonly byteLength: number }
  | { readonly kind: 'too_large'; readonly byteLength: number };

/**
 * Splits a byte stream into `\n`-terminated lines. A line longer than `maxLineBytes` is dropped as
 * it arrives (never buffered whole) and reported once as too_large when its newline comes.
 */
export class LineReader {
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #oversizedBytes: number | undefined;

  constructor(readonly maxLineBytes: number = MAX_FRAME_BYTES) {}

  /** Bytes received after the last newline: a truncated frame if the stream ends now. */
  get partialBytes(): number {
    return this.#oversizedBytes ?? this.#pendingBytes;
  }

  push(chunk: Buffer, emit: (event: LineEvent) => void): void {
    let start = 0;
    for (let newline = chunk.indexOf(10, start); newline !== -1; newline = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, newline);
      start = newline + 1;
      if (this.#oversizedBytes !== undefined) {
        emit({ kind: 'too_large', byteLength: this.#oversizedBytes + piece.byteLength });
        this.#oversizedBytes = undefined;
        continue;
      }
      let line = piece;
      if (this.#pendingBytes > 0) {
        this.#pending.push(piece);
        line = Buffer.concat(this.#pending, this.#pendingBytes + piece.byteLength);
        this.#pending = [];
        this.#pendingBytes = 0;
      }
      if (line.byteLength > this.maxLineBytes) emit({ kind: 'too_large', byteLength: line.byteLength });
      else if (!isUtf8(line)) emit({ kind: 'not_utf8', byteLength: line.byteLength });
      else emit({ kind: 'line', text: line.toString('utf8') });
    }
    this.#keep(chunk.subarray(start));
  }

  /** End of stream: bytes after the last newline are handed on as one more line. */
  finish(emit: (event: LineEvent) => void): void {
    if (this.partialBytes > 0) this.push(Buffer.from('\n'), emit);
  }

  #keep(rest: Buffer): void {
    if (rest.byteLength === 0) return;
    if (this.#oversizedBytes !== undefined) {
      this.#oversizedBytes += rest.byteLength;
    } else if (this.#pendingBytes + rest.byteLength > this.maxLineBytes) {
      this.#oversizedBytes = this.#pendingBytes + rest.byteLength;
      this.#pending = [];
      this.#pendingBytes = 0;
    } else {
      this.#pending.push(rest);
      this.#pendingBytes += rest.byteLength;
    }
  }
}

/** `[start, end)` of a member's value inside the text it was found in. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/**
 * The raw value text of every top-level member of the JSON object in `text[from, to)`, by key
 * (the last occurrence wins, as in JSON.parse). The text must already be known to be valid JSON
 * with an object there (JSON.parse accepted it): this only finds boundaries, it does not validate.
 */
export function memberSpans(text: string, from = 0, to = text.length): Map<string, Span> {
  const spans = new Map<string, Span>();
  let at = skipSpace(text, from, to);
  if (text.charCodeAt(at) !== 0x7b) return spans; // not an object
  at = skipSpace(text, at + 1, to);
  while (at < to && text.charCodeAt(at) === 0x22) {
    const keyEnd = endOfString(text, at);
    const rawKey = text.slice(at, keyEnd);
    const key = rawKey.includes('\\') ? (JSON.parse(rawKey) as string) : rawKey.slice(1, -1);
    at = skipSpace(text, skipSpace(text, keyEnd, to) + 1, to); // past the colon
    const end = endOfValue(text, at, to);
    spans.set(key, { start: at, end });
    at = skipSpace(text, end, to);
    if (text.charCodeAt(at) === 0x2c) at = skipSpace(text, at + 1, to);
  }
  return spans;
}

/** The raw number tokens of a JSON array of numbers in `text[span)` (already known valid). */
export function arrayNumberTokens(text: string, span: Span): string[] {
  const inner = text.slice(span.start + 1, span.end - 1).trim();
  return inner === '' ? [] : inner.split(',').map((token) => token.trim());
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
