// The PostgreSQL store's text codec (toPgText / fromPgText): PostgreSQL text cannot hold U+0000, so
// every text the store writes is encoded and every text it reads decoded. Property tests: the codec
// round-trips every string, never writes U+0000, keeps distinct strings distinct, and leaves text with
// neither U+0000 nor its escape (U+E000) as it is.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { fromPgText, toPgText } from '../src/ledger/postgres-store.ts';

/** Strings dense in the two characters that matter, and in '0' (the escape's partner). */
const text = fc.string({
  unit: fc.oneof(
    fc.constantFrom('\u0000', '\uE000', '0', 'a'),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
  ),
  maxLength: 40,
});

describe('the PostgreSQL text codec', () => {
  it('gives back every string it encoded', () => {
    fc.assert(
      fc.property(text, (original) => {
        expect(fromPgText(toPgText(original))).toBe(original);
      }),
      { numRuns: 2000 },
    );
  });

  it('never writes U+0000', () => {
    fc.assert(
      fc.property(text, (original) => {
        expect(toPgText(original)).not.toContain('\u0000');
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps distinct strings distinct (equality and uniqueness in the database mean what they meant)', () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        fc.pre(a !== b);
        expect(toPgText(a)).not.toBe(toPgText(b));
      }),
      { numRuns: 2000 },
    );
  });

  it('stores text without U+0000 or U+E000 as it is', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (original) => {
        fc.pre(!original.includes('\u0000') && !original.includes('\uE000'));
        expect(toPgText(original)).toBe(original);
      }),
    );
  });

  it('escapes as documented: U+0000 is U+E000 "0", U+E000 is U+E000 U+E000', () => {
    expect(toPgText('a\u0000b\uE000c')).toBe('a\uE0000b\uE000\uE000c');
    expect(fromPgText('\uE000\uE0000')).toBe('\uE0000');
  });
});
