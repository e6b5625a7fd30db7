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
    if (scan.unterminated) {
      return fail('json_truncated', 'input ends before the JSON text does (truncated)', {
        expected: 'a complete JSON text',
        received: scan.inString
          ? 'end of input inside a string'
          : `end of input with ${scan.endDepth} unclosed brackets`,
      });
    }
    const where = syntaxErrorLocation(cause, text);
    return fail('json_syntax', `input is not valid JSON${where === '' ? '' : ` (${where})`}`, {
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
  if (keyCount !== scan.members) issues.push(...findDuplicateKeys(text));
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
  endDepth: number;
  inString: boolean;
  unterminated: boolean;
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
          if (depth > depthLimit)
            return { members, maxDepth, endDepth: depth, inString: false, unterminated: false };
        }
      } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth--;
    }
    if (quote === -1) break;
    const close = closingQuote(text, quote + 1);
    if (close === -1) return { members, maxDepth, endDepth: depth, inString: true, unterminated: true };
    position = close + 1;
  }
  return { members, maxDepth, endDepth: depth, inString: false, unterminated: depth > 0 };
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

/**
 * The slow path: a small recursive-descent reader over text that JSON.parse already accepted,
 * reporting every repeated key with the pointer of the object holding it.
 */
function findDuplicateKeys(text: string): Issue[] {
  const issues: Issue[] = [];
  let position = 0;
  const skipWhitespace = (): void => {
    while (position < text.length && ' \t\n\r'.includes(text.charAt(position))) position++;
  };
  const readString = (): string => {
    const close = closingQuote(text, position + 1);
    const raw = text.slice(position, close + 1);
    position = close + 1;
    return JSON.parse(raw) as string;
  };
  const readValue = (path: string): void => {
    skipWhitespace();
    const char = text.charAt(position);
    if (char === '{') {
      position++;
      const seen = new Set<string>();
      skipWhitespace();
      if (text.charAt(position) === '}') {
        position++;
        return;
      }
      for (;;) {
        skipWhitespace();
        const key = readString();
        if (seen.has(key)) {
          issues.push({
            code: 'json_duplicate_key',
            message: `key ${JSON.stringify(key)} appears more than once in the object at ${path === '' ? 'the root' : path}`,
            path: path + pointer(key),
            expected: 'unique keys in every object',
            received: `duplicate key ${JSON.stringify(key)}`,
          });
        }
        seen.add(key);
        skipWhitespace();
        position++; // ':'
        readValue(path + pointer(key));
        skipWhitespace();
        if (text.charAt(position++) === '}') return;
      }
    }
    if (char === '[') {
      position++;
      skipWhitespace();
      if (text.charAt(position) === ']') {
        position++;
        return;
      }
      for (let index = 0; ; index++) {
        readValue(`${path}/${index}`);
        skipWhitespace();
        if (text.charAt(position++) === ']') return;
      }
    }
    if (char === '"') {
      readString();
      return;
    }
    while (position < text.length && !',}] \t\n\r'.includes(text.charAt(position))) position++;
  };
  readValue('');
  return issues;
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

/** "line L, column C" from V8's "at position N" message, or ''. */
function syntaxErrorLocation(cause: unknown, text: string): string {
  const match = cause instanceof Error ? /position (\d+)/.exec(cause.message) : null;
  if (match === null) return '';
  const offset = Number(match[1]);
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return `line ${line}, column ${column}`;
}
