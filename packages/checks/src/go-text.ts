// Text as the Attest engine's Go code makes it, where a check's verdict depends on it: a string
// lowered as strings.ToLower lowers it (content and agent_output_contains without case_sensitive),
// and a value written back out as segmentio/encoding/json's Marshal writes it (the needle of
// cross_agent_data_flow). JavaScript's own toLowerCase and JSON.stringify differ from both.

/**
 * `text` as Go's strings.ToLower gives it: every code point by its simple lowercase mapping
 * (unicode.ToLower). JavaScript's toLowerCase differs in two places: it gives U+0130 (İ) the full
 * mapping "i̇" (two code points; Go: "i"), and lowers Σ to ς at the end of a word (Go: always σ).
 */
export function goLowerCase(text: string): string {
  return text
    .replace(GO_SIMPLE_LOWER_EXCEPTIONS, (char) => (char === '\u0130' ? 'i' : '\u03c3'))
    .toLowerCase();
}
const GO_SIMPLE_LOWER_EXCEPTIONS = /[\u0130\u03a3]/g;

/**
 * A JSON value (as JSON.parse gives it) written as segmentio/encoding/json's Marshal writes a
 * value decoded into `any`: compact, object members sorted by the bytes of their UTF-8 names
 * (SortMapKeys), `<`, `>`, `&`, U+2028 and U+2029 escaped as \u003c … (EscapeHTML, as Go does).
 */
export function goMarshal(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => goMarshal(item)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const members = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      Buffer.compare(Buffer.from(a), Buffer.from(b)),
    );
    return `{${members.map(([key, member]) => `${goString(key)}:${goMarshal(member)}`).join(',')}}`;
  }
  if (typeof value === 'string') return goString(value);
  return JSON.stringify(value);
}

function goString(text: string): string {
  return JSON.stringify(text).replace(GO_HTML_ESCAPED, (char) => HTML_ESCAPES[char] ?? char);
}
const GO_HTML_ESCAPED = /[<>&\u2028\u2029]/g;
const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};
