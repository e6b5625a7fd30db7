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

/**
 * `text` as Go's %q (strconv.Quote) writes it in an explanation: JSON's quoting, but for the
 * characters Go writes otherwise (\a, \v, \x00-style controls and DEL, \u2028, \u2029). Other
 * characters Go deems unprintable are written as they are.
 */
export function goQuote(text: string): string {
  return JSON.stringify(text).replace(GO_QUOTE_OTHERWISE, (escape) => {
    if (escape === '\x7f') return '\\x7f';
    if (escape === '\u2028' || escape === '\u2029') return `\\u${escape.charCodeAt(0).toString(16)}`;
    const code = Number.parseInt(escape.slice(2), 16);
    if (code === 0x07) return '\\a';
    if (code === 0x0b) return '\\v';
    return `\\x${code.toString(16).padStart(2, '0')}`;
  });
}
// JSON.stringify writes every control character but \b \t \n \f \r as \u00XX.
const GO_QUOTE_OTHERWISE = /\\u00[01][0-9a-f]|[\x7f\u2028\u2029]/g;

/**
 * `value` as Go's %.<precision>g writes it (strconv 'g'): `precision` significant digits, rounded
 * to the nearest and a tie to even (toPrecision rounds a tie up), trailing zeros dropped, and an
 * exponent of at least two digits (1.234e+04) when it is below -4 or not below the precision.
 */
export function goFormatG(value: number, precision: number): string {
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : value < 0 ? '-Inf' : 'NaN';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const sign = value < 0 ? '-' : '';
  const magnitude = Math.abs(value);
  let [digits = '', exponentText = '0'] = magnitude.toExponential(precision - 1).split('e');
  // A tie (the exact value ends in 5 right after the kept digits) goes to the even digit.
  const exact = magnitude.toPrecision(100).replace(/e.*$/, '').replace('.', '').replace(/^0+/, '');
  const rest = exact.slice(precision);
  if (/^50*$/.test(rest) && Number(exact[precision - 1]) % 2 === 0) {
    const kept = exact.slice(0, precision);
    digits = precision > 1 ? `${kept.slice(0, 1)}.${kept.slice(1)}` : kept;
    exponentText = magnitude.toExponential(20).split('e')[1] ?? '0';
  }
  const exponent = Number(exponentText);
  const mantissa = digits.includes('.') ? digits.replace(/0+$/, '').replace(/\.$/, '') : digits;
  if (exponent < -4 || exponent >= precision) {
    const absolute = Math.abs(exponent).toString().padStart(2, '0');
    return `${sign}${mantissa}e${exponent < 0 ? '-' : '+'}${absolute}`;
  }
  const plain = Number(`${mantissa}e${exponent}`).toFixed(Math.max(0, precision - 1 - exponent));
  return `${sign}${plain.includes('.') ? plain.replace(/0+$/, '').replace(/\.$/, '') : plain}`;
}

/** The characters Go's unicode.IsSpace reports (Latin-1's six and NEL, NBSP, and White_Space). */
const GO_SPACE = '\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000';
const GO_TRIM_SPACE = new RegExp(`^[${GO_SPACE}]+|[${GO_SPACE}]+$`, 'g');

/**
 * `text` as Go's strings.TrimSpace gives it: JavaScript's trim() also trims U+FEFF, which Go keeps,
 * and keeps U+0085 (NEL), which Go trims.
 */
export function goTrimSpace(text: string): string {
  return text.replace(GO_TRIM_SPACE, '');
}
