// The report's escaper (src/report/html/html-text.ts esc) returns text with nothing to escape as it
// is, without running its replacements (issue 19: it was a tenth of `evals publish`). Property: for
// any text (any code points, and runs of the characters it treats: & < > " ' controls, format
// characters, separators, `::`, `##[`, `##vso[`), esc gives exactly what both replacements give
// (its plain-text path too); count is toLocaleString('en-US') (its hand-grouped integers too); jsonHtml is text(jsonText(value, 2), limit)
// for any JSON value and any limit (its one-pass writer, and its fallback for what is not JSON).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { jsonText } from '@paperclip-evals/contract';

import { count, esc, jsonHtml, text } from '../src/report/html/html-text.ts';

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

describe('jsonHtml', () => {
  /** What an attempt page wrote before: JSON.stringify (jsonText), then the escaper and clipper. */
  const reference = (value: unknown, limit: number): string => text(jsonText(value, 2), limit);
  // JSON values whose strings and keys hold what the escapers treat, at any depth.
  const values = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      texts,
      fc.double(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 5 }),
      fc.dictionary(texts, tie('value'), { maxKeys: 5 }),
    ),
  })).value;
  const limits = fc.oneof(fc.constant(4000), fc.integer({ min: 0, max: 200 }));

  it('gives what JSON.stringify and the escaper give, for any JSON value and limit', () => {
    fc.assert(
      fc.property(fc.oneof(values, fc.jsonValue()), limits, (value, limit) => {
        expect(jsonHtml(value, limit)).toBe(reference(value, limit));
      }),
      { numRuns: 3000 },
    );
  });

  it('gives the same for what is not plain JSON (toJSON, undefined, holes, class instances), or throws as it does', () => {
    fc.assert(
      fc.property(fc.anything({ withDate: true, withMap: true, withNullPrototype: true }), (value) => {
        let expected: string | { thrown: unknown };
        try {
          expected = reference(value, 4000);
        } catch (error) {
          expected = { thrown: error };
        }
        if (typeof expected === 'string') expect(jsonHtml(value, 4000)).toBe(expected);
        else expect(() => jsonHtml(value, 4000)).toThrow(TypeError);
      }),
      { numRuns: 2000 },
    );
    for (const value of [
      { at: new Date(0), skipped: undefined, fn: () => 1 },
      [undefined, () => 1, Symbol('s')],
      Object.assign(Object.create(null) as object, { a: 1 }),
      [Number.NaN, Number.POSITIVE_INFINITY, -0],
      { '::a': '##[x', b: '##VSO[y', c: '\u202e\u2028\u0000é😀\ud800' },
    ])
      expect(jsonHtml(value, 4000)).toBe(reference(value, 4000));
    expect(() => jsonHtml(undefined, 4000)).toThrow(TypeError);
    expect(() => jsonHtml(10n, 4000)).toThrow(TypeError);
  });

  it('clips JSON longer than its limit as text() does', () => {
    const long = { items: Array.from({ length: 400 }, (_, index) => ({ index, name: `item ${index}` })) };
    const html = jsonHtml(long, 4000);
    expect(html).toBe(reference(long, 4000));
    expect(html).toContain('class="clip"');
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
