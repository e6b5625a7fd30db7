// maskSecrets in free text (a driver's error, an HTTP error body, an agent's text): a secret-named
// value is masked to its end as any reader could take it — to whitespace, every #, &, ;, , and = in
// it included (a query's parameter: to the next & too) — and only the text's own punctuation after
// it is given back (one sentence mark, a bracket or quote opened before the name). Rows for the
// separators that used to end a value (`password=abc#def` showed `password=***#def`), then
// properties over any value, every secret name shape, quoted and unquoted, with text around it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { SECRET_MASK, displayLocator, maskSecrets } from '../src/secrets.ts';

describe('a secret-named value in free text', () => {
  it.each([
    // [text, masked] — the separators that used to end a value, and echoed the rest of it.
    ['password=abc#def', 'password=***'],
    ['token=ab;cd', 'token=***'],
    ['api_key=a,b,c and more', 'api_key=*** and more'],
    ['PGPASSWORD=p&w#d;x=y, retrying', 'PGPASSWORD=***, retrying'],
    ['auth failed: sslpassword=k#y&z.', 'auth failed: sslpassword=***.'],
    ['token = ab;cd then', 'token = *** then'],
    // Quoted: to the closing quote, whatever is inside (a backslash escapes).
    ["sslpassword='k #;y' rest", 'sslpassword=*** rest'],
    ['password="a\\"b#c", next', 'password=***, next'],
    ["password='ab'#cd rest", 'password=*** rest'],
    // A quote its line does not close is a character of the value.
    ['password="unclosed value', 'password=*** value'],
    // A backslash escapes the next character, a space too (as libpq reads `p\ ss`).
    ['password=p\\ ss dbname=d', 'password=*** dbname=d'],
    // The text's own punctuation after the value: one sentence mark, brackets and quotes opened before.
    [
      'could not connect (host=h password=ab#c): retrying',
      'could not connect (host=h password=***): retrying',
    ],
    ['said "token=ab&c;d" and stopped', 'said "token=***" and stopped'],
    ['{"detail": "token=ab&c;d"}', '{"detail": "token=***"}'],
    ['[api_key=k,e,y], next', '[api_key=***], next'],
    ['password=hunter2, done', 'password=***, done'],
    // A closing bracket nothing opened before could be the secret's own: it is masked.
    ['password=abc) refused', 'password=*** refused'],
    ['password=abc;; refused', 'password=***; refused'],
    // A query's parameter ends at the next & (every URL reader ends it there); a #, ; or , is its own.
    ['https://h/p?token=x&user=y', 'https://h/p?token=***&user=y'],
    ['GET /v1?user=y&access_token=a#b;c,d&page=2 failed', 'GET /v1?user=y&access_token=***&page=2 failed'],
    // Not in a query: the whole run is the value (libpq reads `token=x&user=y` so): the safe mistake.
    ['token=x&user=y', 'token=***'],
    // A value that is not a secret's is not skipped over: a secret-named one inside it is found.
    ['note=token=abc#d', 'note=token=***'],
    ['redirect=https://h/cb?sig=ab;cd&x=1', 'redirect=https://h/cb?sig=***&x=1'],
    // Spaces around the = are skipped, as libpq skips them: the next word is the value.
    ['password= then rest', 'password= *** rest'],
    // Nothing after the =: nothing to mask.
    ['password=', 'password='],
    ['(password=)', '(password=)'],
  ])('%s is masked as %s', (text, masked) => {
    expect(maskSecrets(text)).toBe(masked);
    // Masking what is masked changes nothing (a printed line that holds a displayed locator).
    expect(maskSecrets(masked)).toBe(masked);
  });

  it.each([
    // A short known secret (a password `x` from a locator) where it stands as a secret-named value.
    ['connect failed: password=x#y;z, retry', 'connect failed: password=***, retry'],
    ["connect failed (password='x' rejected)", 'connect failed (password=*** rejected)'],
    ['the letter x stays', 'the letter x stays'],
  ])('with a short known secret, %s is masked as %s', (text, masked) => {
    expect(maskSecrets(text, ['x'])).toBe(masked);
  });
});

/** Any printable character but whitespace: ASCII, and some that are not. */
const printable = fc.oneof(
  fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)),
  fc.constantFrom('é', 'ß', '中', '€', '😀', '\u00a7'),
);
/** The characters that used to end a value, and the ones a URL or a message gives meaning to. */
const special = fc.constantFrom(...'#&;,:.@/?=()"\'`[]{}<>\\'.split(''));
const valueChars = fc.array(fc.oneof(printable, special), { minLength: 4, maxLength: 24 });
/**
 * An unquoted value: not opening with a quote (that is the quoted spelling) and not ending with a
 * backslash (which escapes the space after it, as libpq reads it: the value then runs on).
 */
const unquoted = valueChars
  .map((chars) => chars.join(''))
  .filter((value) => !/^['"]/.test(value) && !value.endsWith('\\'));
const anyValue = valueChars.map((chars) => chars.join(''));

const NAMES = ['password', 'PGPASSWORD', 'api_key', 'token', 'sslpassword', 'access_token', 'secret'];

/** Text before the name, and after the value: the after starts with what the text itself puts there. */
const AROUND: readonly (readonly [string, string])[] = [
  ['', ''],
  ['cannot open ', ': password authentication failed'],
  ['error: ', ' refused'],
  ['(tried ', '); retrying'],
  ['the server said "', '", then closed'],
  ['[', '] next'],
  ['{"detail": "', '"}'],
  ['host=h user=u ', ' dbname=d'],
  ['x=1 ', ', y=2'],
  ['line one\nthen ', '.\nline three'],
];
/** A query's parameter, and what follows it in the URL and the message. */
const QUERY_AROUND: readonly (readonly [string, string])[] = [
  ['GET https://api.example.com/v1?', '&page=2 failed'],
  ['cannot open postgres://h/db?user=u&', ': password authentication failed'],
  ['see https://h/p?a=1&', ' for details'],
];

/** The marks and closers the text may keep after a masked value. */
const GIVEN_BACK = /^[.,;:)\]}>'"`]*$/;
const opened = (before: string): number => (before.match(/[([{<'"`]/g) ?? []).length;

/**
 * What maskSecrets made of prefix + name + eq + written + suffix: the text before the name kept, the
 * name and its `=`, the mask, at most the text's own punctuation of the value's end, then the rest
 * of the text untouched; and no 4-character piece of the value left that is not the text's own.
 */
function expectMasked(
  parts: { prefix: string; name: string; eq: string; value: string; written: string; suffix: string },
  quoted: boolean,
): void {
  const { prefix, name, eq, value, written, suffix } = parts;
  const masked = maskSecrets(`${prefix}${name}${eq}${written}${suffix}`);
  const head = `${prefix}${name}${eq}${SECRET_MASK}`;
  expect(masked.startsWith(head)).toBe(true);
  expect(masked.endsWith(suffix)).toBe(true);
  const tail = masked.slice(head.length, masked.length - suffix.length);
  if (quoted) expect(tail).toBe('');
  else {
    expect(value.endsWith(tail)).toBe(true);
    expect(tail).toMatch(GIVEN_BACK);
    expect(tail.length).toBeLessThanOrEqual(1 + opened(prefix));
  }
  const shown = `${prefix}${name}${eq}\u0000${tail}${suffix}`;
  for (let at = 0; at + 4 <= value.length; at++) {
    const piece = value.slice(at, at + 4);
    if (shown.includes(piece))
      expect(`${prefix}${name}${eq}`.includes(piece) || `${tail}${suffix}`.includes(piece)).toBe(true);
  }
  // Masking what is masked changes nothing.
  expect(maskSecrets(masked)).toBe(masked);
}

describe('properties: no part of a secret-named value is left, the text around it is', () => {
  it('an unquoted value of any characters, for every secret name, with text around it', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...NAMES),
        fc.constantFrom('=', ' = '),
        unquoted,
        fc.constantFrom(...AROUND),
        (name, eq, value, [prefix, suffix]) => {
          expectMasked({ prefix, name, eq, value, written: value, suffix }, false);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('a quoted value (single or double quotes, escaped) of any characters', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...NAMES),
        anyValue,
        fc.constantFrom("'", '"'),
        fc.constantFrom(...AROUND),
        (name, value, quote, [prefix, suffix]) => {
          const written = `${quote}${value.replace(new RegExp(`[\\\\${quote}]`, 'g'), '\\$&')}${quote}`;
          expectMasked({ prefix, name, eq: '=', value, written, suffix }, true);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('a query parameter: masked to the next &, and the parameters after it kept', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...NAMES),
        unquoted.filter((value) => !value.includes('&')),
        fc.constantFrom(...QUERY_AROUND),
        (name, value, [prefix, suffix]) => {
          expectMasked({ prefix, name, eq: '=', value, written: value, suffix }, false);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('a URL locator is shown with every secret-named value masked, and shown the same when printed again', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...NAMES),
        unquoted.filter((value) => !value.includes('&')),
        (name, value) => {
          const locator = `postgres://u@db.internal/book?${name}=${value}&sslmode=require`;
          const shown = displayLocator(locator);
          expect(shown).toBe(`postgres://u@db.internal/book?${name}=${SECRET_MASK}&sslmode=require`);
          expect(maskSecrets(shown)).toBe(shown);
        },
      ),
      { numRuns: 500 },
    );
  });
});
