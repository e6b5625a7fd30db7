// The report's escaper (src/report/html/html-text.ts esc) returns text with nothing to escape as it
// is, without running its replacements (issue 19: it was a tenth of `evals publish`). Property: for
// any text (any code points, and runs of the characters it treats: & < > " ' controls, format
// characters, separators, `::`, `##[`, `##vso[`), esc gives exactly what both replacements give
// (its plain-text path too); count is toLocaleString('en-US') (its hand-grouped integers too); usd is
// formatUsd trimmed to cents (its BigInt-free path too).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { count, esc, usd } from '../src/report/html/html-text.ts';
import { formatUsd } from '../src/ledger/cost.ts';

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

describe('usd', () => {
  /** What usd did before its fast path: formatUsd's BigInt digits, trailing zeros trimmed to cents. */
  const reference = (nanodollars: number): string => {
    const [whole = '', fraction = ''] = formatUsd(Math.round(nanodollars)).split('.');
    return `${whole}.${fraction.replace(/0+$/, '').padEnd(2, '0')}`;
  };
  it('is formatUsd with its trailing zeros trimmed to cents, for any amount', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
          fc.integer({ min: 0, max: 2_000_000_000 }),
          fc.constantFrom(0, 1, 9, 10, 999_999_999, 1_000_000_000, 1_000_000_001, 10_000_000),
          fc.double({ min: 0, max: 1e15, noNaN: true }),
        ),
        (n) => {
          expect(usd(n)).toBe(reference(n));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
