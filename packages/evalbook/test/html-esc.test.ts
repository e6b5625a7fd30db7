// The report's escaper (src/report/html/html-text.ts esc) returns text with nothing to escape as it
// is, without running its replacements (issue 19: it was a tenth of `evals publish`). Property: for
// any text (any code points, and runs of the characters it treats: & < > " ' controls, format
// characters, separators, `::`, `##[`, `##vso[`), esc gives exactly what both replacements give
// (its plain-text path too); and count is toLocaleString('en-US') (its 0–999 path too).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { count, esc } from '../src/report/html/html-text.ts';

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const INERT = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|:(?=:)|#(?=#(?:\[|vso\[))/giu;
/** Both replacements, always (what esc did before its fast path). */
const reference = (text: string): string =>
  text
    .replaceAll(/[&<>"']/g, (char) => ESCAPES[char] ?? char)
    .replaceAll(INERT, (char) => `&#x${(char.codePointAt(0) ?? 0).toString(16)};`);

const pieces = fc.constantFrom(
  '&',
  '<',
  '>',
  '"',
  "'",
  ':',
  '::',
  '#',
  '##[',
  '##vso[',
  '##VSO[',
  '\n',
  '\t',
  '\u007f',
  '\u001b',
  '\u202e',
  '\u2028',
  '\u2029',
  '\u00ad',
  'a',
  ' ',
  'é',
  '😀',
);
const texts = fc.oneof(
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.array(pieces, { maxLength: 20 }).map((parts) => parts.join('')),
);

describe('esc', () => {
  it('gives what both replacements give, for any text', () => {
    fc.assert(
      fc.property(texts, (text) => {
        expect(esc(text)).toBe(reference(text));
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['plain text', 'plain text', 'plain text'],
    ['a workflow command', '::error::x', '&#x3a;:error&#x3a;:x'],
    ['a markup character', 'a<b', 'a&lt;b'],
    ['a line feed', 'a\nb', 'a&#xa;b'],
    ['an Azure command', '##vso[task]', '&#x23;#vso[task]'],
  ])('%s', (_name, text, escaped) => {
    expect(esc(text)).toBe(escaped);
  });
});

describe('count', () => {
  it("is toLocaleString('en-US')", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer(),
          fc.integer({ min: -1, max: 1001 }),
          fc.constant(-0),
          fc.double({ noNaN: false }),
        ),
        (n) => {
          expect(count(n)).toBe(n.toLocaleString('en-US'));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
