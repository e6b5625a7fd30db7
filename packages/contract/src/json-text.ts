// Strict reading of untrusted JSON text: UTF-8 only, no BOM, size and nesting bounds, no duplicate
// keys, no lone surrogates, and truncation told apart from other syntax errors. JSON.parse does the
// parsing; a string-aware structural scan (fast: it jumps over strings with indexOf) supplies what
// JSON.parse hides. Duplicate keys are found by counting: every object member has exactly one
// colon outside strings, so fewer parsed keys than colons means a key was repeated; only then does
// a slow pass locate the duplicates.
import { hasLoneSurrogate } from './canonical-json.js';
import { pointer } from './errors.js';

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

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const textEncoder = new TextEncoder();

/** Parses one JSON text under the strict rules above. Never throws for bad input. */
export function readJsonText(input: Uint8Array | string, limits: JsonTextLimits = {}): JsonTextResult {
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
  let text: string;
  try {
    text = typeof input === 'string' ? input : utf8.decode(bytes);
  } catch {
    const offset = firstInvalidUtf8Offset(bytes);
    return fail('text_not_utf8', `input is not valid UTF-8 (bad sequence at byte offset ${offset})`, {
      expected: 'UTF-8 text',
      received: `byte 0x${(bytes[offset] ?? 0).toString(16).padStart(2, '0')} at offset ${offset}`,
    });
  }
  if (text.trim() === '') {
    return fail('json_empty', 'input is empty', { expected: 'one JSON object', received: 'no JSON text' });
  }

  const scan = scanStructure(text, maxDepth);
  if (scan.maxDepth > maxDepth) {
    return fail('json_too_deep', `JSON nests deeper than ${maxDepth} levels`, {
      expected: `at most ${maxDepth} levels of nesting`,
      received: `more than ${maxDepth} levels`,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
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

  const issues: Issue[] = [];
  const keyCount = countKeysAndCheckStrings(value, '', issues);
  if (keyCount !== scan.members) issues.push(...new SlowReader(text).read().issues);
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value };
}

function fail(
  code: string,
  message: string,
  detail: { expected: unknown; received: unknown },
): JsonTextResult {
  return { ok: false, issues: [{ code, message, path: '', ...detail }] };
}

interface StructureScan {
  /** Colons outside strings: the number of object members. */
  members: number;
  maxDepth: number;
}

const COLON = 58;
const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;
const BACKSLASH = 92;

/** One pass over the text outside strings; stops early once nesting passes `depthLimit`. */
function scanStructure(text: string, depthLimit: number): StructureScan {
  const length = text.length;
  let members = 0;
  let depth = 0;
  let maxDepth = 0;
  let position = 0;
  while (position < length) {
    const quote = text.indexOf('"', position);
    const end = quote === -1 ? length : quote;
    for (let index = position; index < end; index++) {
      const code = text.charCodeAt(index);
      if (code === COLON) members++;
      else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
        depth++;
        if (depth > maxDepth) {
          maxDepth = depth;
          if (depth > depthLimit) return { members, maxDepth };
        }
      } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth--;
    }
    if (quote === -1) break;
    const close = closingQuote(text, quote + 1);
    if (close === -1) break; // unterminated string: JSON.parse reports it
    position = close + 1;
  }
  return { members, maxDepth };
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

/** Counts object keys below `value` and records strings (keys or values) with lone surrogates. */
function countKeysAndCheckStrings(value: unknown, path: string, issues: Issue[]): number {
  if (typeof value === 'string') {
    if (hasLoneSurrogate(value)) issues.push(loneSurrogate(path, 'a string value'));
    return 0;
  }
  if (typeof value !== 'object' || value === null) return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      count += countKeysAndCheckStrings(value[index], `${path}/${index}`, issues);
    }
    return count;
  }
  for (const [key, child] of Object.entries(value)) {
    count++;
    const childPath = path + pointer(key);
    if (hasLoneSurrogate(key)) issues.push(loneSurrogate(childPath, 'an object key'));
    if (typeof child === 'object' || typeof child === 'string')
      count += countKeysAndCheckStrings(child, childPath, issues);
  }
  return count;
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
      if (!(error instanceof SyntaxAt)) throw error;
      return { issues: [this.#syntaxIssue(error)] };
    }
    return { issues: this.#issues };
  }

  #syntaxIssue(error: SyntaxAt): Issue {
    const { text } = this;
    const before = text.slice(0, error.offset);
    const where = `line ${before.split('\n').length}, column ${error.offset - before.lastIndexOf('\n')}`;
    if (error.offset >= text.length) {
      return {
        code: 'json_truncated',
        message: `input ends before the JSON text does (${where})`,
        path: '',
        expected: error.expected,
        received: 'end of input',
      };
    }
    return {
      code: 'json_syntax',
      message: `input is not valid JSON at ${where}`,
      path: '',
      expected: error.expected,
      received: JSON.stringify(text.slice(error.offset, error.offset + 12)),
    };
  }

  #fail(expected: string): never {
    throw new SyntaxAt(this.#position, expected);
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

class SyntaxAt extends Error {
  constructor(
    readonly offset: number,
    readonly expected: string,
  ) {
    super(`expected ${expected} at offset ${offset}`);
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
