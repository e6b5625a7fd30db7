// Text from the evalbook as HTML, for every page Evals writes (the report, an attempt's replay page):
// one escaper (esc), one clipper for long text (text: its head and a "show all" button over the
// whole), one tooltip form (tip), one money form (money: every page's, the exact figure stays in the JSON), and one
// writer of recorded JSON as HTML text (jsonHtml: text(jsonText(value, 2), limit) in one pass).
// Every string from the evalbook reaches HTML through these, and every secret in it is masked here
// (../masked.ts): text, tip and each string of jsonHtml are shown as shownInPage has them, and a whole
// page, as its writer returns it, passes through maskedPage — no page Evals writes carries a
// credential, and no caller can forget to ask (docs/security.md).
import { jsonText } from '@paperclip-evals/contract';

import { shownInPage } from '../masked.js';

import { displayUsd } from '../../ledger/cost.js';

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
/**
 * What else is written as a character reference (the same text to a browser): every control,
 * format and line/paragraph separator character (CR, LF, ESC, bidi overrides…), so that HTML sent to
 * a terminal or CI log (`report --format html` on stdout) holds no raw one, and the `:` of `::` and
 * the `#` of `##[` / `##vso[`, so that no line of it reads as a GitHub Actions workflow command.
 */
const INERT = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|:(?=:)|#(?=#(?:\[|vso\[))/giu;
/** Any character either replacement would change (most text has none: it is returned as it is). */
const ESCAPED = /[&<>"'\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|::|##/u;
/**
 * Printable ASCII and line feeds, without `::` or `##` (JSON a page shows, most prose): of INERT's
 * characters it can hold only the line feed, so plain string replacements (no pattern, no callback
 * per character) give the same text — a third faster on a page's JSON (issue 19).
 */
const PLAIN_LINES = /^[\n -~]*$/;
/** HTML text and attribute values (also inside SVG). */
export function esc(text: string): string {
  if (!ESCAPED.test(text)) return text;
  if (PLAIN_LINES.test(text) && !text.includes('::') && !text.includes('##'))
    return text
      .replaceAll('&', '&amp;')
      .replaceAll('<', '&lt;')
      .replaceAll('>', '&gt;')
      .replaceAll('"', '&quot;')
      .replaceAll("'", '&#39;')
      .replaceAll('\n', '&#xa;');
  return text
    .replaceAll(/[&<>"']/g, (char) => ESCAPES[char] ?? char)
    .replaceAll(INERT, (char) => `&#x${(char.codePointAt(0) ?? 0).toString(16)};`);
}

/**
 * The most characters of one text the page lays out before "show all" is asked for. Laying out
 * text costs the browser time in its length (a 100 KB unbroken string of mixed scripts took seconds
 * per field, whatever the CSS), so every text from the evalbook is cut here, on the page and in the
 * drill-down alike, and the rest waits, hidden (display: none is never laid out), behind a button.
 */
export const HTML_TEXT_LIMIT = 500;
/** The first HTML_TEXT_LIMIT characters, never ending in half a surrogate pair. */
function head(text: string, limit = HTML_TEXT_LIMIT): string {
  const end = /[\ud800-\udbff]/.test(text.charAt(limit - 1)) ? limit - 1 : limit;
  return text.slice(0, end);
}
const COUNT = new Intl.NumberFormat('en-US');
/**
 * A count with thousands separators (display only): n.toLocaleString('en-US'), its formatter made
 * once; a safe integer (every count and nanodollar figure on a page) is grouped here without asking
 * the formatter (issue 19: it showed in the profile of publishing 100,000 pages).
 */
export function count(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) return COUNT.format(n);
  if (n >= 0 && n < 1000) return String(n);
  // A whole number's digits in groups of three, as en-US writes it (a page's nanodollars, bytes).
  const digits = String(Math.abs(n));
  let grouped = digits.slice(0, digits.length % 3 || 3);
  for (let at = grouped.length; at < digits.length; at += 3) grouped += `,${digits.slice(at, at + 3)}`;
  return n < 0 ? `-${grouped}` : grouped;
}
/**
 * Text from the evalbook as element content: escaped, and past HTML_TEXT_LIMIT its head, an
 * ellipsis and a "show all" button (wired by the page's script, report.js) over the whole text, kept
 * hidden; its length is told in characters (code points). A larger `limit` suits text laid out only
 * when asked (inside a closed <details>).
 * The drill-down's script builds the same markup (its clip()).
 */
export function text(recorded: string, limit = HTML_TEXT_LIMIT): string {
  const value = shownInPage(recorded);
  if (value.length <= limit) return esc(value);
  const length = value.length - (value.match(/[\ud800-\udbff][\udc00-\udfff]/g)?.length ?? 0);
  return `<span class="clip" data-length="${length}"><span class="clip-head">${esc(head(value, limit))}…</span> <button type="button" class="clip-more" hidden>show all ${count(length)} characters</button><span class="clip-all" hidden>${esc(value)}</span></span>`;
}
/** Text for a tooltip (a title attribute or an SVG <title>): its head only, masked (shownInPage) and escaped. */
export function tip(recorded: string): string {
  const value = shownInPage(recorded);
  return esc(value.length <= HTML_TEXT_LIMIT ? value : `${head(value)}…`);
}

/**
 * USD for reading, from nanodollars: cents from $1 up ("$12.35", "$1,204.00"), below it three
 * significant digits ("$0.00375", "$0.123"), never rounded to $0 (a nanodollar is "$0.000000001");
 * null → "unpriced". The report's tables and cards; the exact amount is the JSON's (and usd's).
 */
export function money(nanodollars: number | null): string {
  // The one rule for money a person reads (Markdown too): displayUsd, exact; a minus as ASCII here.
  if (nanodollars !== null && nanodollars < 0) return `-${displayUsd(-nanodollars)}`;
  return displayUsd(nanodollars);
}

/**
 * `text(jsonText(value, 2), limit)` — recorded JSON, indented by two, as escaped HTML text — written
 * in one pass for a JSON value (what JSON.parse gives), with no JSON.stringify and no escaping pass
 * over its text (an attempt page shows a dozen such blocks: they were half its rendering, issue 19).
 * The same characters, by construction: outside its strings JSON is ASCII that esc changes only at
 * its line feeds (`&#xa;`) and quotes (`&quot;`), and a string's escapes never reach past its quotes
 * (esc's `::` and `##[`, jsonText's `##[`), so each string is written as esc(jsonText(string)) —
 * as it is between `&quot;`s when it is printable ASCII with none of `"\&<>'`, `::` or `##`. A
 * value it does not know (a toJSON, a class instance, a bigint, undefined) or JSON longer than
 * `limit` (then clipped by text()) is written by the two passes as before. Property-tested against
 * them (packages/evalbook/test/html-esc.test.ts).
 */
export function jsonHtml(value: unknown, limit: number): string {
  json.html = '';
  json.raw = 0;
  json.limit = limit;
  const written = writeJson(value, 0) ? json.html : text(jsonText(value, 2), limit);
  json.html = '';
  return written;
}

/** jsonHtml's output so far: its HTML, the length of the JSON text it stands for, the most it may be. */
const json = { html: '', raw: 0, limit: 0 };
/** `&#xa;` and the indentation of each depth (jsonText's line feed, escaped by esc). */
const LINE_BREAKS: string[] = [];
const lineBreak = (depth: number): string => (LINE_BREAKS[depth] ??= `&#xa;${'  '.repeat(depth)}`);

/** Writes `value` at `depth`; false when jsonHtml must take the two passes (see there). */
function writeJson(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case 'string':
      return writeJsonString(value);
    case 'number':
    case 'boolean': {
      const literal = typeof value === 'number' && !Number.isFinite(value) ? 'null' : String(value);
      json.html += literal;
      json.raw += literal.length;
      return json.raw <= json.limit;
    }
    case 'object':
      break;
    default:
      return false;
  }
  if (value === null) {
    json.html += 'null';
    json.raw += 4;
    return json.raw <= json.limit;
  }
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return false;
    if (value.length === 0) {
      json.html += '[]';
      json.raw += 2;
      return json.raw <= json.limit;
    }
    const inner = lineBreak(depth + 1);
    for (let index = 0; index < value.length; index++) {
      json.html += index === 0 ? `[${inner}` : `,${inner}`;
      json.raw += 2 + 2 * (depth + 1);
      const item: unknown = value[index];
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') {
        json.html += 'null';
        json.raw += 4;
      } else if (!writeJson(item, depth + 1)) return false;
    }
    json.html += `${lineBreak(depth)}]`;
    json.raw += 2 + 2 * depth;
    return json.raw <= json.limit;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  const entries = value as Record<string, unknown>;
  if (typeof entries.toJSON === 'function') return false;
  const inner = lineBreak(depth + 1);
  let first = true;
  for (const key of Object.keys(entries)) {
    const item = entries[key];
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    json.html += first ? `{${inner}` : `,${inner}`;
    json.raw += 2 + 2 * (depth + 1);
    first = false;
    if (!writeJsonString(key)) return false;
    json.html += ': ';
    json.raw += 2;
    if (!writeJson(item, depth + 1)) return false;
  }
  if (first) {
    json.html += '{}';
    json.raw += 2;
  } else {
    json.html += `${lineBreak(depth)}}`;
    json.raw += 2 + 2 * depth;
  }
  return json.raw <= json.limit;
}

/** A JSON string as esc(jsonText(shownInPage(string))); false once past the limit. */
function writeJsonString(recorded: string): boolean {
  const value = shownInPage(recorded);
  let plain = true;
  let previous = 0;
  for (let index = 0; index < value.length; index++) {
    const unit = value.charCodeAt(index);
    // Printable ASCII but for what JSON or HTML escapes (" \ & < > '), and no `::` or `##`.
    if (
      unit < 0x20 ||
      unit > 0x7e ||
      unit === 0x22 ||
      unit === 0x5c ||
      unit === 0x26 ||
      unit === 0x3c ||
      unit === 0x3e ||
      unit === 0x27 ||
      ((unit === 0x3a || unit === 0x23) && unit === previous)
    ) {
      plain = false;
      break;
    }
    previous = unit;
  }
  if (plain) {
    json.html += `&quot;${value}&quot;`;
    json.raw += value.length + 2;
  } else {
    const literal = jsonText(value);
    json.html += esc(literal);
    json.raw += literal.length;
  }
  return json.raw <= json.limit;
}
