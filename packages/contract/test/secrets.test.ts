// maskSecrets / secretsIn / displayLocator: a table of secret-bearing locators (URL userinfo,
// query parameters, libpq conninfo, malformed URLs), then properties over generated passwords and
// tokens: whatever the secret, the masked text never holds it, and a locator without one is unchanged.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  SECRET_MASK,
  credentialShapedValues,
  displayLocator,
  maskCredentialShapes,
  maskSecrets,
  scrubCredentials,
  secretsIn,
} from '../src/secrets.ts';

describe('displayLocator', () => {
  it.each([
    ['postgres://user:s3cr3t@host/db', 'postgres://user:***@host/db'],
    [
      'postgresql://user:s3cr3t@host:5433/db?sslmode=require',
      'postgresql://user:***@host:5433/db?sslmode=require',
    ],
    ['postgres://user:p%40ss%2Fw@host/db', 'postgres://user:***@host/db'],
    ['postgres://user:pa#ss@host/db', 'postgres://user:***@host/db'],
    ['postgres://user:p@ss/w#rd@host/db', 'postgres://user:***@host/db'],
    ['postgres://user@host/db?password=s3cr3t', 'postgres://user@host/db?password=***'],
    [
      'postgres://user@host/db?sslmode=verify-full&sslpassword=k3y',
      'postgres://user@host/db?sslmode=verify-full&sslpassword=***',
    ],
    [
      "host=db.internal user=evals password='a b\\'c' dbname=book",
      'host=db.internal user=evals password=*** dbname=book',
    ],
    ['host=db.internal password=s3cr3t sslpassword = k3y', 'host=db.internal password=*** sslpassword = ***'],
    ['https://ghp_T0ken@github.com/o/r', 'https://***@github.com/o/r'],
    ['https://api.example.com/v1?access_token=t0k&x=1', 'https://api.example.com/v1?access_token=***&x=1'],
    ['https://api.example.com/v1?key=AIzaXYZ', 'https://api.example.com/v1?key=***'],
    // libpq's URI parser reads a `#` as part of a query's value: the fragment is masked with it.
    ['https://api.example.com/v1?token=t0k#frag', 'https://api.example.com/v1?token=***'],
    // A `;` or `,` is part of a query's value for every URL reader (it showed `token=***;cd`).
    ['https://api.example.com/v1?token=ab;cd&x=1', 'https://api.example.com/v1?token=***&x=1'],
    ['postgres://u@h/db?password=p,w;d#x&sslmode=require', 'postgres://u@h/db?password=***&sslmode=require'],
    // A conninfo value runs to whitespace, as libpq reads it: a #, &, ; or , is part of it.
    ['host=h password=p#ss', 'host=h password=***'],
    ['host=h password=p&ss;w,rd dbname=d', 'host=h password=*** dbname=d'],
    ['host=h password=p\\ ss dbname=d', 'host=h password=*** dbname=d'],
    ['host=h password=x# dbname=d', 'host=h password=*** dbname=d'],
  ])('shows %s as %s', (locator, shown) => {
    expect(displayLocator(locator)).toBe(shown);
  });

  it.each([
    'sqlite:.evalbook/evalbook.sqlite',
    'postgres:///book',
    'postgres://host/book',
    'postgres://evals@db.internal:5432/book?sslmode=require',
    'https://api.example.com/v1',
    'https://api.example.com/v1/users/a@b.com',
  ])('leaves %s (no secret in it) as it is', (locator) => {
    expect(displayLocator(locator)).toBe(locator);
    expect(secretsIn(locator)).toEqual([]);
  });
});

describe('maskSecrets', () => {
  it('masks a locator quoted inside a longer message, and every known secret', () => {
    const message =
      'cannot open "postgres://u:hunter22@h/db" (tried password=hunter22); the provider said: Incorrect API key provided: sk-abc123';
    const masked = maskSecrets(message, ['sk-abc123', ...secretsIn('postgres://u:hunter22@h/db')]);
    expect(masked).toBe(
      'cannot open "postgres://u:***@h/db" (tried password=***); the provider said: Incorrect API key provided: ***',
    );
  });

  it('takes a URL query value as every reader of the URL may: to the next &, to a #, with + as a space', () => {
    const locator = 'postgres://h/db?password=pw+x;1#frag&sslmode=disable';
    // libpq's URI parser: to the &; node-postgres (WHATWG): to the #, a + read as a space.
    expect(secretsIn(locator)).toEqual(expect.arrayContaining(['pw+x;1#frag', 'pw+x;1', 'pw x;1']));
    expect(maskSecrets('server said: bad password "pw x;1"', secretsIn(locator))).toBe(
      'server said: bad password "***"',
    );
    expect(displayLocator(locator)).toBe('postgres://h/db?password=***&sslmode=disable');
  });

  it('masks the longer of two overlapping known secrets whole', () => {
    expect(maskSecrets('a-secret-b', ['secret', 'a-secret-b'])).toBe(SECRET_MASK);
  });
});

/** Passwords of any printable characters, URL-special ones included. */
const password = fc.string({
  unit: fc.constantFrom(...'abcXYZ019:@/#?&=%+ !$\'"~'.split('')),
  minLength: 4,
  maxLength: 24,
});

describe('properties', () => {
  it('a conninfo password, unquoted or quoted, is never shown, and a message quoting it is masked', () => {
    const character = fc.constantFrom(...'abcXYZ019-_.~#&;,@:/?=%+!$*()[]{}|^"`<>'.split(''), "'", '\\', ' ');
    fc.assert(
      fc.property(fc.array(character, { minLength: 4, maxLength: 24 }), (chars) => {
        const secret = chars.join('');
        // libpq's two spellings: in single quotes with \\ and \' escaped, or bare with \\ before a
        // backslash, a space or a leading quote.
        const quoted = `'${secret.replace(/[\\']/g, '\\$&')}'`;
        const bare = secret.replace(/[\\ ]/g, '\\$&').replace(/^'/, "\\'");
        for (const value of [quoted, bare]) {
          const locator = `host=db.internal password=${value} dbname=book`;
          expect(displayLocator(locator)).toBe('host=db.internal password=*** dbname=book');
          const said = maskSecrets(`connecting with ${secret}: refused`, secretsIn(locator));
          expect(said).toBe(`connecting with ${SECRET_MASK}: refused`);
        }
      }),
    );
  });

  it('a percent-encoded password in any postgres URL is never shown, in either form', () => {
    fc.assert(
      fc.property(
        password,
        fc.constantFrom('', '?sslmode=require', '?application_name=x'),
        (secret, query) => {
          const encoded = encodeURIComponent(secret);
          const locator = `postgres://evals:${encoded}@db.internal:5432/book${query}`;
          const shown = displayLocator(locator);
          expect(shown).toBe(`postgres://evals:***@db.internal:5432/book${query}`);
          expect(maskSecrets(`failed: ${locator} (${secret})`, secretsIn(locator))).not.toContain(secret);
        },
      ),
    );
  });

  it('a password written raw (not encoded) in a URL is never shown either', () => {
    fc.assert(
      fc.property(password, (secret) => {
        const locator = `postgres://evals:${secret}@db.internal/book`;
        const shown = displayLocator(locator);
        expect(shown).not.toContain(secret);
        expect(shown).toContain(SECRET_MASK);
      }),
    );
  });

  it('a secret-named query parameter or conninfo keyword is masked whatever its value', () => {
    const token = fc.string({
      unit: fc.constantFrom(...'abcXYZ019-_.~'.split('')),
      minLength: 4,
      maxLength: 40,
    });
    fc.assert(
      fc.property(
        fc.constantFrom(
          'password',
          'sslpassword',
          'token',
          'access_token',
          'api_key',
          'apikey',
          'key',
          'secret',
        ),
        token,
        (name, value) => {
          for (const text of [
            `https://api.example.com/v1?x=1&${name}=${value}&y=2`,
            `host=h ${name}=${value} dbname=d`,
            `host=h ${name}='${value}' dbname=d`,
          ]) {
            expect(maskSecrets(text)).not.toContain(value);
            expect(displayLocator(text)).toContain(`${name}=${SECRET_MASK}`);
          }
        },
      ),
    );
  });
});

describe('credential-shaped values (issue 19: what a public site must never carry)', () => {
  const SHAPES: readonly [string, string][] = [
    ['an OpenAI key', 'sk-abcdefghijklmnopqrstuvwx'],
    ['an OpenAI project key', 'sk-proj-abcdefghijklmnopqrstuvwx'],
    ['an Anthropic key', 'sk-ant-api03-abcdefghijklmnop'],
    ['a GitHub token', 'ghp_0123456789abcdefghijABCDEFGHIJ'],
    ['a GitHub app token', 'ghs_0123456789abcdefghijABCDEFGHIJ'],
    ['a fine-grained GitHub token', 'github_pat_11ABCDEFG0123456789_abcdefghij'],
    ['an AWS access key id', 'AKIAIOSFODNN7EXAMPLE'],
    ['an AWS secret key', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
    ['a Slack token', 'xoxb-123456789012-abcdefghij'],
    ['a bearer token', 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc'],
    ['a private key block', '-----BEGIN OPENSSH PRIVATE KEY-----'],
  ];
  it.each(SHAPES)('finds %s, and scrubs it', (_name, value) => {
    const text = `the agent used ${value} here`;
    expect(credentialShapedValues(text).length).toBeGreaterThan(0);
    const scrubbed = scrubCredentials(text);
    expect(credentialShapedValues(scrubbed)).toEqual([]);
    expect(scrubbed).toContain('the agent used');
    expect(scrubbed).toContain(SECRET_MASK);
  });
  it.each([
    ['a word with sk-', 'risk-averse task-switching'],
    ['a short sk- id', 'sk-123'],
    ['a tool name', 'read_document'],
    ['a digest', `sha256:${'a'.repeat(64)}`],
    ['the word bearer', 'the bearer of bad news'],
  ])('leaves %s alone', (_name, text) => {
    expect(credentialShapedValues(text)).toEqual([]);
    expect(scrubCredentials(text)).toBe(text);
    expect(maskCredentialShapes(text)).toBe(text);
  });

  it('maskCredentialShapes leaves nothing the detector finds, whatever surrounds and joins the shapes', () => {
    // What `evals publish` writes must pass `--verify`'s site_credential: the same shapes, one detector.
    const pieces = fc.oneof(
      fc.constantFrom(...SHAPES.map(([, value]) => value)),
      fc.constantFrom(
        ' ',
        '',
        '-',
        '_',
        '.',
        '"',
        '=',
        ':',
        '\n',
        '<',
        '&quot;',
        'Bearer ',
        'sk-',
        'ghp_',
        'AKIA',
      ),
      fc.string({ maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 12 }), (parts) => {
        const text = parts.join('');
        const masked = maskCredentialShapes(text);
        expect(credentialShapedValues(masked)).toEqual([]);
        expect(credentialShapedValues(scrubCredentials(text))).toEqual([]);
        if (credentialShapedValues(text).length === 0) expect(masked).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it('maskCredentialShapes rewrites no markup, script or name=value text around a value', () => {
    const page = `<a href="x.html?token=abc">x</a><script>const key = 'k=v';</script><pre>using ${SHAPES[0]?.[1] ?? ''}</pre>`;
    expect(maskCredentialShapes(page)).toBe(
      `<a href="x.html?token=abc">x</a><script>const key = 'k=v';</script><pre>using ***</pre>`,
    );
  });
});
