// Text from input (ids, messages, reasons, titles) as GitHub-flavoured Markdown that renders as
// exactly that text, never as markup: the one escaping function for every Markdown table cell,
// heading, list item and sentence Evals writes (the PR comment of `evals report --format md`).
// The rules, and what a reader sees instead of a control character, are in docs/reports.md.

/** What GitHub renders as nothing: put after a character that would start a mention, a ref or a link. */
export const MARKDOWN_BREAK = '\u200b';

/**
 * Characters shown as the text `\uXXXX` instead of themselves: C0 and C1 controls (tab, CR and LF
 * included), DEL, the line and paragraph separators, bidirectional marks, embeddings and isolates
 * (they reorder what a reader sees), and unpaired UTF-16 surrogates.
 */
const SHOWN_AS_ESCAPE =
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is matched
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * The characters that can start or end Markdown anywhere in a line, backslash-escaped (CommonMark
 * renders an escaped ASCII punctuation character as itself): HTML and autolinks `<` `>`, entities
 * `&`, code spans `` ` ``, emphasis and strikethrough `*` `_` `~`, links, images and footnotes `[`
 * `]`, table cells `|`, heading closers `#`, GitHub math `$`, and the backslash. An `_` between two
 * letters or digits is left as it is: there it can neither open nor close emphasis (`config_a`).
 * The rest (`-` `+` `.` `=` `:` `!` `(` …) means something only at the start of a line or after one
 * of these, and text from input never starts a line of a report.
 */
const MARKDOWN_SYNTAX = /[\\`*~[\]<>&|$#]|(?<![a-z0-9])_|_(?![a-z0-9])/gi;

/**
 * Where GitHub would turn plain text into a link or a notification after Markdown is rendered (so a
 * backslash escape cannot stop it): after `@` (@mentions, team mentions, e-mail autolinks), after `#`
 * (issue and pull-request refs), after a `:` that starts `://` (URL autolinks) or an emoji
 * shortcode (`:name:`, `:+1:`; not the `:00:` of a time), between `www` and `.` (www autolinks)
 * and between `GH` and `-123` (refs).
 */
const LINK_STARTS = /[@#]|:(?=\/|[a-z+-][a-z0-9_+-]*:)|www(?=\.)|gh(?=-\d)/gi;

/** Leading and trailing spaces, which tables and headings trim: written as a character reference. */
const EDGE_SPACES = /^ +| +$/g;

/**
 * `text` as GitHub-flavoured Markdown inline content that renders as the same text, whatever it
 * holds: Markdown syntax is backslash-escaped (no HTML, entity, emphasis, link, code span, table
 * pipe or math can start), a control character reads `\u000d`,
 * a zero-width space (U+200B) follows what would start an @mention, a `#123` ref or an autolink,
 * and leading or trailing spaces are kept (`&#32;`). Safe in a table cell, a heading, a list item
 * and a sentence, anywhere but at the start of a line.
 */
export function markdownText(text: string): string {
  return text
    .replace(LINK_STARTS, (start) => `${start}${MARKDOWN_BREAK}`)
    .replace(SHOWN_AS_ESCAPE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(MARKDOWN_SYNTAX, (char) => `\\${char}`)
    .replace(EDGE_SPACES, (spaces) => '&#32;'.repeat(spaces.length));
}
