// How text that came from input (bundle contents, file names, an environment file, runnerd's or a
// producer's output, store contents) is shown on a terminal or in a CI log: terminalText() renders a
// string as one visible line that no terminal or log reader acts on, and jsonText() writes JSON that
// is as safe. Text from input is data: it never colours, moves, hides or reorders what a terminal
// shows, never forges a line, and never runs a GitHub Actions (or Azure Pipelines) workflow command.

/**
 * Characters never written raw, each shown as the escape a JSON string literal uses: the C0 and C1
 * controls and DEL (Unicode Cc: ESC, CR, LF, BEL, NUL, U+009B…), format characters (Cf: the bidi
 * embeddings, overrides and isolates U+202A–202E and U+2066–2069, the bidi marks, zero-width
 * characters, the byte order mark, tag characters), the line and paragraph separators U+2028 and
 * U+2029 (Zl, Zp) and unpaired surrogates (Cs) — plus the backslash itself, which introduces the
 * escapes, so the rendering stays reversible.
 */
const ESCAPED_CHARACTER = /[\\\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

/**
 * The characters JSON.stringify leaves raw in strings that a terminal or a reader still acts on: DEL
 * and the C1 controls, format characters, U+2028 and U+2029. (It escapes every C0 control in a
 * string, so a raw one is a line break of its own indentation.)
 */
const RAW_IN_JSON = /[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/gu;
/** Whether jsonText has anything to escape: a character past printable ASCII, or `##`. */
const MAYBE_RAW_IN_JSON = /[^\n -~]|##/;

/** Whether terminalText may escape anything but a leading `::`: a character past printable ASCII, a backslash, or `##`. */
const MAYBE_ESCAPED = /[^ -[\]-~]|##/;

/** JSON's short escapes (the rest are \uXXXX). */
const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  '\b': '\\b',
  '\t': '\\t',
  '\n': '\\n',
  '\f': '\\f',
  '\r': '\\r',
};

/**
 * A workflow command at the start of a line: GitHub's runner trims leading white space (.NET's,
 * which is JavaScript's \s but for U+FEFF, escaped here anyway) and then looks for `::`.
 */
const LINE_COMMAND = /^(\s*):(?=:)/u;

/**
 * A workflow command anywhere in a line: GitHub's runner still reads the older `##[command]` form,
 * and Azure Pipelines `##vso[command]`, wherever they start in the line.
 */
const INLINE_COMMAND = /#(?=#(?:\[|vso\[))/giu;

/** `\u001b` for one UTF-16 code unit (lower-case hex, as JSON.stringify writes it). */
const unicodeEscape = (unit: number): string => `\\u${unit.toString(16).padStart(4, '0')}`;

/** Every UTF-16 code unit of `text` as \uXXXX. */
const unicodeEscapes = (text: string): string =>
  Array.from({ length: text.length }, (_unused, index) => unicodeEscape(text.charCodeAt(index))).join('');

/**
 * `text` as one line a terminal or CI log shows and never acts on. Every character listed in
 * ESCAPED_CHARACTER is written as a JSON string literal would escape it (`\u001b`, `\r`, `\n`,
 * `\u202e`, `\\`), so ESC sequences (colours, hyperlinks, cursor moves, title changes) and
 * carriage returns print as plain text and a newline in the text never starts a line. A `::` the
 * line would start with (after white space) has its first colon written `\u003a`, and the first `#`
 * of `##[` or `##vso[` is written `\u0023`, so no workflow command (`::add-mask::`, `::error::`,
 * `::stop-commands::`, `##[set-output …]`) can run. Every other character, non-ASCII text
 * included, is kept as it is.
 *
 * The rendering is reversible (read the escapes back as JSON would), so distinct strings stay
 * distinct; it is not idempotent (a backslash doubles each time), so the CLI applies it once, where
 * it writes human text (packages/cli/src/print.ts). --json output is not rendered: it is jsonText.
 */
export function terminalText(text: string): string {
  // Most text is printable ASCII with no backslash, no `##` and no leading `::`: kept as it is.
  if (!MAYBE_ESCAPED.test(text) && !LINE_COMMAND.test(text)) return text;
  return text
    .replace(ESCAPED_CHARACTER, (character) => SHORT_ESCAPES[character] ?? unicodeEscapes(character))
    .replace(LINE_COMMAND, (_match, space: string) => `${space}\\u003a`)
    .replace(INLINE_COMMAND, '\\u0023');
}

/**
 * `JSON.stringify(value, null, space)` that is as safe in a terminal or CI log as terminalText,
 * and parses to the same value: the characters JSON.stringify leaves raw though a terminal acts on
 * them (DEL, the C1 controls, format characters such as bidi overrides, U+2028 and U+2029) are
 * written as \uXXXX escapes, and so is the `#` that would start `##[` or `##vso[`. Such characters
 * only ever stand inside JSON strings, where an escape means the same character.
 */
export function jsonText(value: unknown, space?: number): string {
  // JSON.stringify gives undefined (its types say otherwise) for undefined, a function or a symbol.
  const json = JSON.stringify(value, null, space) as string | undefined;
  if (json === undefined) throw new TypeError(`jsonText: ${typeof value} is not JSON`);
  // Most JSON is printable ASCII without `##`: one quick scan says so, and it is returned as it is.
  if (!MAYBE_RAW_IN_JSON.test(json)) return json;
  return json.replace(RAW_IN_JSON, unicodeEscapes).replace(INLINE_COMMAND, '\\u0023');
}
