// The suite's text withheld from public text (suite-text.ts): no stretch of SUITE_TEXT_MIN_CHARS
// characters of a prompt or description survives, whatever it is embedded in, in whatever case and
// spacing; a shorter suite text is withheld where it stands as whole words; text that shares no such
// stretch with the suite comes back unchanged.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { SUITE_TEXT_MASK, SUITE_TEXT_MIN_CHARS, suiteTextRedactor } from '../src/report/site/suite-text.ts';

const fold = (text: string): string => text.toLowerCase().replace(/\s+/g, ' ');

/** Every stretch of SUITE_TEXT_MIN_CHARS folded characters of `suite` that `text` still holds. */
const surviving = (suite: string, text: string): string[] => {
  const folded = fold(suite.trim());
  const held = fold(text);
  return Array.from({ length: Math.max(0, folded.length - SUITE_TEXT_MIN_CHARS + 1) }, (_, start) =>
    folded.slice(start, start + SUITE_TEXT_MIN_CHARS),
  ).filter((stretch) => held.includes(stretch));
};

const words = fc
  .array(fc.constantFrom('incident', 'review', 'the', 'brief', 'Summarise', 'quarterly', 'a', 'doc'), {
    minLength: 1,
    maxLength: 12,
  })
  .map((parts) => parts.join(' '));
const noise = fc.string({ maxLength: 30 });

describe('suiteTextRedactor', () => {
  it('leaves no stretch of the suite text in a text that quotes it, in any case and spacing', () => {
    fc.assert(
      fc.property(
        words.filter((text) => text.length >= SUITE_TEXT_MIN_CHARS),
        noise,
        noise,
        fc.nat(),
        fc.nat(),
        fc.boolean(),
        (suite, before, after, from, length, shout) => {
          const start = from % suite.length;
          const quoted = suite.slice(start, start + SUITE_TEXT_MIN_CHARS + (length % suite.length));
          const spaced = quoted.replaceAll(' ', ' \n\t ');
          const text = `${before}${shout ? spaced.toUpperCase() : spaced}${after}`;
          const redacted = suiteTextRedactor([suite])(text);
          expect(surviving(suite, redacted)).toEqual([]);
          if (surviving(suite, text).length > 0) expect(redacted).toContain(SUITE_TEXT_MASK);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('changes no text that shares no stretch with the suite', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        const suite = 'Approve publishing the incident summary.';
        fc.pre(surviving(suite, text).length === 0 && !fold(text).includes(fold(suite)));
        expect(suiteTextRedactor([suite])(text)).toBe(text);
      }),
    );
  });

  it.each([
    ['the whole prompt', 'Working on: Fix the typo.', 'Working on: [suite text withheld]'],
    ['a short text as whole words', 'now: FIX  the typo, then stop', 'now: [suite text withheld], then stop'],
    ['not inside a longer word', 'prefix the typos', 'prefix the typos'],
  ])('a suite text shorter than the stretch: %s', (_name, text, expected) => {
    expect(suiteTextRedactor(['Fix the typo.', 'fix the typo'])(text)).toBe(expected);
  });

  it('keeps what surrounds a quotation and ignores empty suite texts', () => {
    const redact = suiteTextRedactor(['', '   ', 'Summarise the quarterly incident review.']);
    expect(redact('Plan: summarise the QUARTERLY   incident review. Done by noon.')).toBe(
      `Plan: ${SUITE_TEXT_MASK} Done by noon.`,
    );
    expect(suiteTextRedactor(['', ' '])('anything at all')).toBe('anything at all');
  });
});
