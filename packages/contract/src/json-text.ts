// Strict reading of untrusted JSON text: UTF-8 only, no BOM, size and nesting bounds, no duplicate
// keys, no lone surrogates, and truncation told apart from other syntax errors.
//
// The common case is fast: JSON.parse (V8's parser does not recurse, so deep input cannot overflow
// it), then one walk of the result that counts keys, bounds the depth and notes unsafe numbers,
// building no paths. Duplicate keys are found by counting the members the text writes: JSON.parse
// keeps one key per name, so a repeated key leaves the text with more members than the value has
// keys (membersInText). Escaped colons (\u003a) would upset the counts, so their presence sends the
// text down the slow path too. Only when something is wrong do the slow passes run, to say where:
// a walk that builds JSON pointers, and a recursive-descent reader.
import { isUtf8 } from 'node:buffer';

import { ContractError, isContractError, pointer } from './errors.js';
import './well-formed-strings.js';

import type { Issue } from './errors.js';

export const DEFAULT_MAX_INPUT_BYTES = 64 * 1024 * 1024;
export const DEFAULT_MAX_JSON_DEPTH = 64;

export interface JsonTextLimits {
  /** Largest accepted input, in bytes. */
  readonly maxBytes?: number;
  /** Deepest accepted nesting of objects and arrays. */
  readonly maxDepth?: number;
}

export type JsonTextResult =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly issues: Issue[] };

const textEncoder = new TextEncoder();

/** Parses one JSON text under the strict rules above. Never throws for bad input. */
export function readJsonText(input: Uint8Array | string, limits: JsonTextLimits = {}): JsonTextResult {
  return readStrictly(input, limits, false);
}

/**
 * readJsonText without its shortcuts: the exact finders (the recursive-descent reader for repeated
 * keys, the walks for lone surrogates and unsafe numbers) run on every text, whatever the counts and
 * scans say. The reference the fast path is tested against (same verdict, same issues); slower.
 */
export function readJsonTextExact(input: Uint8Array | string, limits: JsonTextLimits = {}): JsonTextResult {
  return readStrictly(input, limits, true);
}

function readStrictly(input: Uint8Array | string, limits: JsonTextLimits, exact: boolean): JsonTextResult {
  const maxBytes = limits.maxBytes ?? DEFAULT_MAX_INPUT_BYTES;
  const maxDepth = limits.maxDepth ?? DEFAULT_MAX_JSON_DEPTH;
  const bytes = typeof input === 'string' ? textEncoder.encode(input) : input;

  if (bytes.byteLength > maxBytes) {
    return fail('input_too_large', `input is ${bytes.byteLength} bytes, over the ${maxBytes}-byte limit`, {
      expected: `at most ${maxBytes} bytes`,
      received: `${bytes.byteLength} bytes`,
    });
  }
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return fail('text_bom', 'input starts with a UTF-8 byte order mark', {
      expected: 'JSON text without a byte order mark (RFC 8259 §8.1)',
      received: 'EF BB BF',
    });
  }
  // buffer.isUtf8 (simdutf) then toString is several times faster than a fatal TextDecoder.
  if (typeof input !== 'string' && !isUtf8(bytes)) {
    const offset = firstInvalidUtf8Offset(bytes);
    return fail('text_not_utf8', `input is not valid UTF-8 (bad sequence at byte offset ${offset})`, {
      expected: 'UTF-8 text',
      received: `byte 0x${(bytes[offset] ?? 0).toString(16).padStart(2, '0')} at offset ${offset}`,
    });
  }
  const text =
    typeof input === 'string'
      ? input
      : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');

  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    if (text.trim() === '') {
      return fail('json_empty', 'input is empty', { expected: 'one JSON object', received: 'no JSON text' });
    }
    // Too deep wins over a syntax error, and keeps the recursive reader within its bound.
    if (maxDepthOfText(text, maxDepth) > maxDepth) return tooDeep(maxDepth);
    const located = new SlowReader(text).read().issues.filter((issue) => issue.code !== 'json_duplicate_key');
    if (located.length > 0) return { ok: false, issues: located };
    // Never "invalid with no reason": should the two readers ever disagree, report JSON.parse's own.
    return fail('json_syntax', 'input is not valid JSON', {
      expected: 'valid JSON (RFC 8259)',
      received: cause instanceof Error ? cause.message : String(cause),
    });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return fail('json_not_object', 'the JSON text is not an object', {
      expected: 'a JSON object',
      received: value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value,
    });
  }

  const tally: Tally = { keys: 0, leadingColons: 0, unsafeNumber: false };
  if (!tallyValue(value, maxDepth, tally)) return tooDeep(maxDepth);
  const issues: Issue[] = [];
  // One scan for any \u escape (most texts have none) spares the three below.
  const escapes = exact || text.includes('\\u');
  // Decoding bytes was fatal, so there an unpaired surrogate can only come from a \uD8xx-\uDFxx
  // escape; a string given as it is may hold one raw (isWellFormed: one native scan).
  const rawSurrogate = typeof input === 'string' && !input.isWellFormed();
  if (exact || rawSurrogate || (escapes && (text.includes('\\ud') || text.includes('\\uD'))))
    findLoneSurrogates(value, '', issues);
  if (exact || tally.unsafeNumber) findUnsafeNumbers(value, '', issues);
  if (exact || (escapes && hasEscapedColon(text)) || membersInText(text, value, tally) !== tally.keys)
    issues.push(...new SlowReader(text).read().issues);
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value };
}

/**
 * The repeated keys of a JSON text JSON.parse already read as `value` (it keeps the last of each):
 * none, or a json_duplicate_key issue per repeat, with its pointer (json_too_deep past `maxDepth`).
 * The same counting as readJsonText, for callers that parse the text themselves (the policy
 * replay's frames, a hot path): only a count that does not add up runs the slow reader.
 */
export function duplicateKeyIssues(
  text: string,
  value: unknown,
  maxDepth: number = DEFAULT_MAX_JSON_DEPTH,
): Issue[] {
  if (typeof value !== 'object' || value === null) return [];
  const tally: Tally = { keys: 0, leadingColons: 0, unsafeNumber: false };
  if (!tallyValue(value, maxDepth, tally)) return tooDeepIssues(maxDepth);
  if (!hasEscapedColon(text) && membersInText(text, value, tally) === tally.keys) return [];
  return new SlowReader(text).read().issues.filter((issue) => issue.code === 'json_duplicate_key');
}

function tooDeepIssues(maxDepth: number): Issue[] {
  const result = tooDeep(maxDepth);
  return result.ok ? [] : result.issues;
}

function tooDeep(maxDepth: number): JsonTextResult {
  return fail('json_too_deep', `JSON nests deeper than ${maxDepth} levels`, {
    expected: `at most ${maxDepth} levels of nesting`,
    received: `more than ${maxDepth} levels`,
  });
}

function fail(
  code: string,
  message: string,
  detail: { expected: unknown; received: unknown },
): JsonTextResult {
  return { ok: false, issues: [{ code, message, path: '', ...detail }] };
}

const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;
const BACKSLASH = 92;
const QUOTE = 34;

/** Nesting depth of a (possibly invalid) text, outside strings; stops counting past `limit`. */
function maxDepthOfText(text: string, limit: number): number {
  let depth = 0;
  let maxDepth = 0;
  let position = 0;
  while (position < text.length) {
    const quote = text.indexOf('"', position);
    const end = quote === -1 ? text.length : quote;
    for (let index = position; index < end; index++) {
      const code = text.charCodeAt(index);
      if (code === OPEN_BRACE || code === OPEN_BRACKET) {
        depth++;
        if (depth > maxDepth) maxDepth = depth;
        if (maxDepth > limit) return maxDepth;
      } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth--;
    }
    if (quote === -1) break;
    const close = closingQuote(text, quote + 1);
    if (close === -1) break; // an unterminated string: the reader reports it
    position = close + 1;
  }
  return maxDepth;
}

/** `\u003a` decodes to a colon the text does not show, so the colon count cannot be trusted. */
const hasEscapedColon = (text: string): boolean => text.includes('\\u003a') || text.includes('\\u003A');

interface Tally {
  keys: number;
  /** Keys and strings whose first character is a colon: their opening quote is followed by one. */
  leadingColons: number;
  /** A number beyond ±(2^53 − 1): JSON.parse rounded it (or made it Infinity). */
  unsafeNumber: boolean;
}

const COLON = 58;

/** Adds up keys and leading colons below `value`; false once nesting passes `depthLeft`. */
function tallyValue(value: object, depthLeft: number, tally: Tally): boolean {
  if (depthLeft === 0) return false;
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) {
      if (typeof item === 'string') {
        if (item.charCodeAt(0) === COLON) tally.leadingColons++;
      } else if (typeof item === 'number') tally.unsafeNumber ||= !isSafeMagnitude(item);
      else if (typeof item === 'object' && item !== null && !tallyValue(item, depthLeft - 1, tally))
        return false;
    }
    return true;
  }
  for (const key in value) {
    tally.keys++;
    if (key.charCodeAt(0) === COLON) tally.leadingColons++;
    const child = (value as Record<string, unknown>)[key];
    if (typeof child === 'string') {
      if (child.charCodeAt(0) === COLON) tally.leadingColons++;
    } else if (typeof child === 'number') tally.unsafeNumber ||= !isSafeMagnitude(child);
    else if (typeof child === 'object' && child !== null && !tallyValue(child, depthLeft - 1, tally))
      return false;
  }
  return true;
}

const isSafeMagnitude = (value: number): boolean =>
  value <= Number.MAX_SAFE_INTEGER && value >= -Number.MAX_SAFE_INTEGER;

/** Whitespace just before a colon: a member may be written `"key" : value` (four native scans). */
const hasSpacedColon = (text: string): boolean =>
  text.includes(' :') || text.includes('\n:') || text.includes('\t:') || text.includes('\r:');

/**
 * How many object members a text JSON.parse accepted writes (`value` is what it read). A member is
 * its key's closing quote, optional whitespace and a colon. When no colon in the text follows
 * whitespace, each member is an unescaped quote directly before a colon, and every other such quote
 * opens a key or string whose first character is a colon (a quote inside a string is escaped; a
 * value's closing quote is never followed by one): one native search per colon of the text, and a
 * look at each string's first character (tallyValue). Otherwise the colons of the text, less those
 * inside strings. Callers send a text with an escaped colon (\u003a) to the slow reader first: it
 * would be a leading colon of the value that the text does not show.
 */
function membersInText(text: string, value: object, tally: Tally): number {
  if (!hasSpacedColon(text)) return quotesBeforeColonIn(text) - tally.leadingColons;
  return colonsIn(text) - colonsInStrings(value);
}

/**
 * Quotes directly before a colon that no odd run of backslashes escapes. (A search for the colon
 * alone is native and fast; one for the two characters together took twice as long.)
 */
function quotesBeforeColonIn(text: string): number {
  let count = 0;
  for (let index = text.indexOf(':'); index !== -1; index = text.indexOf(':', index + 1)) {
    if (text.charCodeAt(index - 1) !== QUOTE) continue;
    let backslashes = 0;
    for (let at = index - 2; text.charCodeAt(at) === BACKSLASH; at--) backslashes++;
    if (backslashes % 2 === 0) count++;
  }
  return count;
}

/** Colons inside the keys and strings below `value` (nesting already bounded by tallyValue). */
function colonsInStrings(value: object): number {
  let count = 0;
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) {
      if (typeof item === 'string') count += colonsIn(item);
      else if (typeof item === 'object' && item !== null) count += colonsInStrings(item);
    }
    return count;
  }
  for (const key in value) {
    count += colonsIn(key);
    const child = (value as Record<string, unknown>)[key];
    if (typeof child === 'string') count += colonsIn(child);
    else if (typeof child === 'object' && child !== null) count += colonsInStrings(child);
  }
  return count;
}

function colonsIn(text: string): number {
  let count = 0;
  for (let index = text.indexOf(':'); index !== -1; index = text.indexOf(':', index + 1)) count++;
  return count;
}

/** Index of the quote closing a string whose content starts at `from`, or -1. */
function closingQuote(text: string, from: number): number {
  let searchFrom = from;
  for (;;) {
    const candidate = text.indexOf('"', searchFrom);
    if (candidate === -1) return -1;
    let backslashes = 0;
    for (let index = candidate - 1; text.charCodeAt(index) === BACKSLASH; index--) backslashes++;
    if (backslashes % 2 === 0) return candidate;
    searchFrom = candidate + 1;
  }
}

/** The slow path for unpaired surrogates: every string or key holding one, with its pointer. */
function findLoneSurrogates(value: unknown, path: string, issues: Issue[]): void {
  if (typeof value === 'string') {
    if (!value.isWellFormed()) issues.push(loneSurrogate(path, 'a string value'));
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      findLoneSurrogates(item, `${path}/${index}`, issues);
    });
    return;
  }
  for (const [key, child] of Object.entries(value)) {
    const childPath = path + pointer(key);
    if (!key.isWellFormed()) issues.push(loneSurrogate(childPath, 'an object key'));
    findLoneSurrogates(child, childPath, issues);
  }
}

/** How a parser's assert and issues functions are given their value. */
export interface JudgeOptions {
  /**
   * The value is readJsonText's own, unchanged since: the text reader held its numbers to the
   * number rule already, so unsafeNumberIssues does not walk them a second time (it would find
   * none).
   */
  readonly strictlyRead?: boolean;
}

/**
 * The number rule of the text reader, for a value that was never text (an API caller's object): every
 * number beyond ±(2^53 − 1), or not finite, is json_number_unsafe at its pointer. One allocation-free
 * pass; pointers are built only when there is something to report.
 */
export function unsafeNumberIssues(value: unknown): Issue[] {
  if (!hasUnsafeNumber(value)) return [];
  const issues: Issue[] = [];
  findUnsafeNumbers(value, '', issues);
  return issues;
}

function hasUnsafeNumber(value: unknown): boolean {
  if (typeof value === 'number') return !isSafeMagnitude(value);
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return (value as unknown[]).some(hasUnsafeNumber);
  for (const key in value) if (hasUnsafeNumber((value as Record<string, unknown>)[key])) return true;
  return false;
}

/** The slow path for numbers JSON.parse could not keep exactly: every one, with its pointer. */
function findUnsafeNumbers(value: unknown, path: string, issues: Issue[]): void {
  if (typeof value === 'number') {
    if (!isSafeMagnitude(value)) {
      issues.push({
        code: 'json_number_unsafe',
        message:
          'a number beyond ±(2^53 − 1) cannot be read exactly (it was rounded, or overflowed to Infinity)',
        path,
        expected: `a number from ${-Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}`,
        received: Number.isFinite(value) ? value.toString() : 'a number too large to represent',
      });
    }
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((item, index) => [String(index), item])
    : Object.entries(value);
  for (const [key, child] of entries) findUnsafeNumbers(child, path + pointer(key), issues);
}

function loneSurrogate(path: string, what: string): Issue {
  return {
    code: 'json_lone_surrogate',
    message: `${what} holds an unpaired UTF-16 surrogate escape (not I-JSON, cannot be canonicalised)`,
    path,
    expected: 'well-formed Unicode',
    received: 'an unpaired \\uD800-\\uDFFF escape',
  };
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPABLE = '"\\/bfnrtu';

/**
 * The slow path, taken only when something is wrong: a recursive-descent reader (RFC 8259) that
 * reports every repeated key with its pointer, or the first syntax error with its line and column
 * (an error at the very end of the input is a truncation).
 */
class SlowReader {
  #position = 0;
  readonly #issues: Issue[] = [];

  constructor(readonly text: string) {}

  read(): { issues: Issue[] } {
    try {
      this.#value('');
      this.#whitespace();
      if (this.#position < this.text.length) this.#fail('end of input');
    } catch (error) {
      // #fail's error, carrying its one issue; it never leaves read().
      if (!isContractError(error)) throw error;
      return { issues: [...error.issues] };
    }
    return { issues: this.#issues };
  }

  #syntaxIssue(offset: number, expected: string): Issue {
    const { text } = this;
    const before = text.slice(0, offset);
    const where = `line ${before.split('\n').length}, column ${offset - before.lastIndexOf('\n')}`;
    if (offset >= text.length) {
      return {
        code: 'json_truncated',
        message: `input ends before the JSON text does (${where})`,
        path: '',
        expected,
        received: 'end of input',
      };
    }
    return {
      code: 'json_syntax',
      message: `input is not valid JSON at ${where}`,
      path: '',
      expected,
      received: JSON.stringify(text.slice(offset, offset + 12)),
    };
  }

  /** Stops reading at the first syntax error: read() returns its one issue. */
  #fail(expected: string): never {
    const issue = this.#syntaxIssue(this.#position, expected);
    throw new ContractError('paperclip_contract_document_invalid', issue.message, [issue]);
  }

  #whitespace(): void {
    while (' \t\n\r'.includes(this.text.charAt(this.#position)) && this.#position < this.text.length)
      this.#position++;
  }

  #value(path: string): void {
    this.#whitespace();
    const char = this.text.charAt(this.#position);
    if (char === '{') this.#object(path);
    else if (char === '[') this.#array(path);
    else if (char === '"') this.#string();
    else if (char === 't' || char === 'f' || char === 'n')
      this.#literal(char === 't' ? 'true' : char === 'f' ? 'false' : 'null');
    else this.#number();
  }

  #object(path: string): void {
    this.#position++;
    const seen = new Set<string>();
    this.#whitespace();
    if (this.text.charAt(this.#position) === '}') {
      this.#position++;
      return;
    }
    for (;;) {
      this.#whitespace();
      if (this.text.charAt(this.#position) !== '"') this.#fail('a double-quoted key');
      const key = this.#string();
      if (seen.has(key)) {
        this.#issues.push({
          code: 'json_duplicate_key',
          message: `key ${JSON.stringify(key)} appears more than once in the object at ${path === '' ? 'the root' : path}`,
          path: path + pointer(key),
          expected: 'unique keys in every object',
          received: `duplicate key ${JSON.stringify(key)}`,
        });
      }
      seen.add(key);
      this.#whitespace();
      if (this.text.charAt(this.#position) !== ':') this.#fail("':' after the key");
      this.#position++;
      this.#value(path + pointer(key));
      this.#whitespace();
      const next = this.text.charAt(this.#position);
      if (next === '}') {
        this.#position++;
        return;
      }
      if (next !== ',') this.#fail("',' or '}'");
      this.#position++;
    }
  }

  #array(path: string): void {
    this.#position++;
    this.#whitespace();
    if (this.text.charAt(this.#position) === ']') {
      this.#position++;
      return;
    }
    for (let index = 0; ; index++) {
      this.#value(`${path}/${index}`);
      this.#whitespace();
      const next = this.text.charAt(this.#position);
      if (next === ']') {
        this.#position++;
        return;
      }
      if (next !== ',') this.#fail("',' or ']'");
      this.#position++;
    }
  }

  #string(): string {
    const start = this.#position;
    this.#position++;
    for (;;) {
      if (this.#position >= this.text.length) this.#fail("a closing '\"'");
      const code = this.text.charCodeAt(this.#position);
      if (code === 0x22) break;
      if (code < 0x20) this.#fail('no unescaped control character in a string');
      if (code === BACKSLASH) {
        this.#position++;
        const escaped = this.text.charAt(this.#position);
        if (!ESCAPABLE.includes(escaped) || escaped === '')
          this.#fail('a valid escape (\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)');
        if (escaped === 'u') {
          for (let digit = 1; digit <= 4; digit++) {
            this.#position++;
            if (!/[0-9a-fA-F]/.test(this.text.charAt(this.#position))) this.#fail('4 hex digits after \\u');
          }
        }
      }
      this.#position++;
    }
    this.#position++;
    return JSON.parse(this.text.slice(start, this.#position)) as string;
  }

  #number(): void {
    NUMBER.lastIndex = this.#position;
    const match = NUMBER.exec(this.text);
    if (match === null) this.#fail('a JSON value');
    this.#position += match[0].length;
  }

  #literal(word: string): void {
    if (!this.text.startsWith(word, this.#position)) {
      // Point at the first character that differs, so a cut-off literal reads as truncation.
      let offset = 0;
      while (this.text.charAt(this.#position + offset) === word.charAt(offset)) offset++;
      this.#position += offset;
      this.#fail(JSON.stringify(word));
    }
    this.#position += word.length;
  }
}

/** Byte offset of the first byte that cannot start or continue a valid UTF-8 sequence. */
function firstInvalidUtf8Offset(bytes: Uint8Array): number {
  // A prefix decoded in streaming mode fails only on a real error, never on a cut-off sequence,
  // so validity of prefixes is monotonic and a binary search finds the first bad prefix.
  let low = 0;
  let high = bytes.byteLength;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (decodesAsUtf8Prefix(bytes.subarray(0, middle + 1))) low = middle + 1;
    else high = middle;
  }
  // `low` is where decoding broke; the broken sequence may have started up to 3 bytes before it.
  for (let back = 1; back <= 3 && low - back >= 0; back++) {
    const byte = bytes[low - back] ?? 0;
    if (byte >= 0xc0) return low - back;
    if (byte < 0x80) break;
  }
  return low;
}

function decodesAsUtf8Prefix(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes, { stream: true });
    return true;
  } catch {
    return false;
  }
}
