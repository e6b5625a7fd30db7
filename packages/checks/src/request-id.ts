// Echoing a numeric request id exactly. JSON.parse reads numbers as doubles, so an id such as
// 9007199254740993 (2^53 + 1) or 0.10000000000000000001 comes out changed; for those ids (and -0)
// the reply carries the id's number token as the request wrote it, found by a narrow scan of the
// request line. Every other id is echoed from the parsed value, which is exact.

/** A numeric id whose parsed value would not print back as the request wrote it. */
export function idNeedsRawToken(id: unknown): id is number {
  return typeof id === 'number' && (!Number.isSafeInteger(id) || Object.is(id, -0));
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * The number token of the top-level `id` member of `text`, exactly as written, or undefined when
 * the member is absent or not a number. `text` must be one valid JSON object without repeated keys
 * (the request line after strict reading): then a string at nesting depth 1 followed by a colon is
 * a member name, and the value after the `id` name is its token.
 */
export function rawIdToken(text: string): string | undefined {
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      const close = closingQuote(text, index + 1);
      if (close === -1) return undefined;
      if (depth === 1) {
        const after = skipWhitespace(text, close + 1);
        if (text.charCodeAt(after) === COLON && isIdName(text.slice(index, close + 1))) {
          NUMBER.lastIndex = skipWhitespace(text, after + 1);
          return NUMBER.exec(text)?.[0];
        }
      }
      index = close;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) depth++;
    else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth--;
  }
  return undefined;
}

/** A quoted member name that reads "id" (also when written with escapes, e.g. "\u0069d"). */
function isIdName(quoted: string): boolean {
  return quoted === '"id"' || (quoted.includes('\\') && JSON.parse(quoted) === 'id');
}

/** Index of the quote that closes a string whose content starts at `from`, or -1. */
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

function skipWhitespace(text: string, from: number): number {
  let index = from;
  for (let code = text.charCodeAt(index); code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;) {
    code = text.charCodeAt(++index);
  }
  return index;
}
