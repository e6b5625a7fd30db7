// A very short known secret (issue 19): a store URL's password of 1–3 characters is masked where it
// stands — the locator's userinfo password, a secret-named value — whatever it is, but never
// wherever its characters occur in a text (a password `x` once turned every `x` of a message into
// ***: `e***ample`). From SHORT_SECRET_LENGTH characters on, a known secret is masked everywhere.
import { describe, expect, it } from 'vitest';

import { SHORT_SECRET_LENGTH, displayLocator, maskSecrets, secretsIn } from '../src/secrets.ts';

describe('a short known secret', () => {
  it('is shorter than 4 characters', () => {
    expect(SHORT_SECRET_LENGTH).toBe(4);
  });

  it.each([
    // [locator, how it is shown]
    ['postgres://u:x@h/db', 'postgres://u:***@h/db'],
    ['postgres://u:x@h/xdb', 'postgres://u:***@h/xdb'],
    ['postgres://x:x@x/x', 'postgres://x:***@x/x'],
    ['postgres://u:ab@h/ab?application_name=ab', 'postgres://u:***@h/ab?application_name=ab'],
    ['postgres://u:abc@h/abc', 'postgres://u:***@h/abc'],
    ['postgres://u:#@h/db', 'postgres://u:***@h/db'],
    ['postgres://u:%40@h/db', 'postgres://u:***@h/db'],
    ['postgres://u:@@h/db', 'postgres://u:***@h/db'],
    ['postgres://u@h/db?password=x&dbname=x', 'postgres://u@h/db?password=***&dbname=x'],
    ["host=x user=x password='x' dbname=x", 'host=x user=x password=*** dbname=x'],
    // From 4 characters on: every occurrence, as before.
    ['postgres://u:abcd@h/abcd', 'postgres://u:***@h/***'],
  ])('%s is shown as %s', (locator, shown) => {
    expect(displayLocator(locator)).toBe(shown);
  });

  it.each([
    [
      'a driver error quoting the URL',
      'postgres://u:x@h/xdb',
      'connect to postgres://u:x@h/xdb failed: e.g. example text',
      'connect to postgres://u:***@h/xdb failed: e.g. example text',
    ],
    [
      'a message with the conninfo',
      'host=h password=ab',
      'could not connect (host=h password=ab): about to retry',
      'could not connect (host=h password=***): about to retry',
    ],
    [
      'a percent-encoded short password, quoted decoded',
      'postgres://u:%23@h/db',
      'bad URL postgres://u:#@h/db (# is not allowed)',
      'bad URL postgres://u:***@h/db (# is not allowed)',
    ],
    [
      'a 4-character password, masked everywhere',
      'postgres://u:pass@h/db',
      'postgres://u:pass@h/db: password authentication failed',
      'postgres://u:***@h/db: ***word authentication failed',
    ],
  ])('%s', (_name, locator, message, masked) => {
    expect(maskSecrets(message, secretsIn(locator))).toBe(masked);
  });
});
