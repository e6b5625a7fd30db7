// maskSecrets never eats the text after a secret: a driver's error that quotes a locator and goes on
// (`…?password=wrong: password authentication failed`) keeps its separator and the rest, and the
// secret is masked whatever it ends with. Properties over generated secrets, separators and tails,
// with the secrets taken from the locator (as the CLI masks) and without (an unknown secret).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { SECRET_MASK, displayLocator, maskSecrets, secretsIn } from '../src/secrets.ts';

/** A secret as a person may write it in a query string or userinfo (no delimiter of either). */
const secret = fc
  .string({
    unit: fc.constantFrom(...'abcdefXYZ0123456789:._-~!$*+'.split('')),
    minLength: 1,
    maxLength: 16,
  })
  .map((tail) => `Pw${tail}`);
/**
 * What a message puts after the locator it quotes, and before it what opens a closing bracket or
 * quote of it (a `)` that closes nothing opened before could be the secret's own: it is masked).
 */
const separator = fc.constantFrom<readonly [string, string]>(
  ['', ': '],
  ['', ' '],
  ['', ', '],
  ['', '; '],
  ['(', ') '],
  ['(', '), '],
  ['"', '": '],
  ['[', '] '],
  ['', '\n'],
  ['', ':\n'],
  ['', '. '],
  ['', ' — '],
);
/** The rest of the message: words, no `=` (nothing there is a parameter). */
const tail = fc.constantFrom('password authentication failed', 'connection refused', 'timeout', 'x');

const locators = (pw: string): string[] => [
  `postgres://127.0.0.1:55432/evals?user=postgres&password=${pw}`,
  `postgres://postgres:${pw}@127.0.0.1:55432/evals`,
  `host=127.0.0.1 user=postgres password=${pw}`,
];

describe('maskSecrets keeps what follows a secret', () => {
  it('the reviewer’s example: the colon after the URL stays', () => {
    const url = 'postgres://127.0.0.1:55432/evals?user=postgres&password=wrong';
    const message = `cannot open ${url}: password authentication failed for user "postgres"`;
    expect(maskSecrets(message, secretsIn(url))).toBe(
      `cannot open postgres://127.0.0.1:55432/evals?user=postgres&password=${SECRET_MASK}: password authentication failed for user "postgres"`,
    );
    expect(maskSecrets(message)).toContain(`password=${SECRET_MASK}: password authentication failed`);
  });

  it('a secret known from its locator: masked whole, the separator and the rest kept', () => {
    fc.assert(
      fc.property(secret, separator, tail, (pw, [open, sep], rest) => {
        for (const locator of locators(pw)) {
          const masked = maskSecrets(`cannot open ${open}${locator}${sep}${rest}`, secretsIn(locator));
          expect(masked).not.toContain(pw);
          // The locator masked as displayLocator shows it, then the message's own text, untouched;
          // but a sentence mark a secret ends with, that displayLocator gives back as the text's own,
          // is the secret's when the message puts its own mark after it (`***: `, not `***.: `).
          const shown = displayLocator(locator);
          const marked = /^[)\]"]*[.,;:]/.test(sep) && /\*\*\*[.,;:]$/.test(shown);
          expect(masked).toBe(`cannot open ${open}${marked ? shown.slice(0, -1) : shown}${sep}${rest}`);
        }
      }),
    );
  });

  it('an unknown secret (no locator to learn it from): none of it left but a trailing separator', () => {
    fc.assert(
      fc.property(secret, separator, tail, (pw, [open, sep], rest) => {
        const masked = maskSecrets(`cannot open ${open}${locators(pw)[0] ?? ''}${sep}${rest}`);
        // What is left of the secret can only be a trailing `:`/`.` read as the text's separator.
        const bare = pw.replace(/[:.]+$/, '');
        expect(masked).not.toContain(bare);
        expect(masked.endsWith(`${sep}${rest}`)).toBe(true);
      }),
    );
  });
});
