// maskSecrets on the shapes a secret takes in free text besides `name=value`, each under a strict
// secret name only (isStrictSecretName; secrets-strict-names.test.ts): a quoted JSON or Python
// member (`{"password":"hunter2"}`, `{'token': 'abc'}`, `{\"api_key\":\"…\"}` inside a JSON string)
// has its value masked inside its quotes; a `NAME: value` (YAML, a header, an env dump) when it is
// one whole value — a quoted one ending its line or member, or one unquoted token ending its line —
// never a sentence after a colon (our issue lines: secrets-issue-lines.test.ts). maskSecretsIn masks every string and number under a strict-secret key of a document.
// A URL userinfo password holding a `#` is masked, and the site detector finds it alike. Rows, then
// properties: the value never visible, the text around it kept, masking again changes nothing.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  SECRET_MASK,
  credentialShapedValues,
  maskCredentialShapes,
  maskSecrets,
  maskSecretsIn,
  scrubCredentials,
} from '../src/secrets.ts';

const expectIdempotent = (masked: string): void => {
  expect(maskSecrets(masked)).toBe(masked);
};

describe('a strict-secret member of JSON or Python text in free text', () => {
  it.each([
    ['{"password":"hunter2"}', '{"password":"***"}'],
    ['{"api_key": "sk-abc123", "model": "m"}', '{"api_key": "***", "model": "m"}'],
    ["{'token': 'abc', 'user': 'u'}", "{'token': '***', 'user': 'u'}"],
    [
      'HTTP 401: {"error":{"client_secret":"s3cr3t","code":"bad"}}',
      'HTTP 401: {"error":{"client_secret":"***","code":"bad"}}',
    ],
    // Escapes respected: an escaped quote is part of the value.
    ['{"password":"a\\"b,c", "x":1}', '{"password":"***", "x":1}'],
    ["{'passwd': 'it\\'s', 'x': 1}", "{'passwd': '***', 'x': 1}"],
    // JSON text inside a JSON string (a logged body): read as the string decodes it.
    ['{"body":"{\\"token\\":\\"abc\\",\\"x\\":1}"}', '{"body":"{\\"token\\":\\"***\\",\\"x\\":1}"}'],
    ['{"body":"{\\"token\\":\\"a\\\\\\"b\\",\\"x\\":1}"}', '{"body":"{\\"token\\":\\"***\\",\\"x\\":1}"}'],
    // A value its line does not close (a truncated body) is masked to the line's end.
    ['body: {"password":"hunter2 and the rest\nnext line', 'body: {"password":"***\nnext line'],
    // A number or other scalar, to the next , } ] or whitespace.
    ['{"pin_password": 123456, "x": 1}', '{"pin_password": ***, "x": 1}'],
    ['{"secret":null}', '{"secret":***}'],
    // An object is not masked as one: its members are read on their own.
    [
      '{"credentials": {"user": "u", "password": "p4ss"}}',
      '{"credentials": {"user": "u", "password": "***"}}',
    ],
    // Whitespace around the colon, a line break too (pretty-printed JSON).
    ['{\n  "password":\n    "hunter2"\n}', '{\n  "password":\n    "***"\n}'],
    // Our own fields are no secrets: kept.
    [
      '{"attemptKey":"run/case/cfg/1","inputTokens":12,"author":"Jane","authorizationBoundary":"zone"}',
      '{"attemptKey":"run/case/cfg/1","inputTokens":12,"author":"Jane","authorizationBoundary":"zone"}',
    ],
    ['{"key": "value", "tokens": "many"}', '{"key": "value", "tokens": "many"}'],
    // A name whose quotes do not match is no member.
    ['"password\': "x"', '"password\': "x"'],
  ])('%s is masked as %s', (text, masked) => {
    expect(maskSecrets(text)).toBe(masked);
    expectIdempotent(masked);
  });
});

describe('a strict-secret NAME: value in free text', () => {
  it.each([
    ['PGPASSWORD: hunter2', 'PGPASSWORD: ***'],
    ['db:\n  host: h\n  password: p#ss;w\n  port: 5432', 'db:\n  host: h\n  password: ***\n  port: 5432'],
    ['X-Api-Key: sk-abc\r\nAccept: */*', 'X-Api-Key: ***\r\nAccept: */*'],
    ['env: PGUSER: u PGPASSWORD: p', 'env: PGUSER: u PGPASSWORD: ***'],
    // As Node shows an object: a quoted value is masked inside its quotes, the rest of the line kept.
    ["{ user: 'evals', password: 'hunter2', host: 'h' }", "{ user: 'evals', password: '***', host: 'h' }"],
    [
      "{\n  user: 'evals',\n  password: 'hunter 2',\n  host: 'h'\n}",
      "{\n  user: 'evals',\n  password: '***',\n  host: 'h'\n}",
    ],
    ["{ db: { password: 'a b' } }", "{ db: { password: '***' } }"],
    ['token: "a\\"b"', 'token: "***"'],
    // The text's own punctuation at the line's end is given back.
    ['could not connect (password: abc).', 'could not connect (password: ***).'],
    ['- api_key: sk-1\n- model: m', '- api_key: ***\n- model: m'],
    // A value opening with \" is unquoted here (only JSON text inside a JSON string quotes so).
    ['password: \\"ab"cdef', 'password: ***'],
    // A quote its line does not close opens nothing: one unquoted token.
    ["password: 'abc", 'password: ***'],
    // Trailing spaces are not the value's.
    ['secret: abc   \nnext', 'secret: ***   \nnext'],
    // No space after the colon: no NAME: value (a URL's scheme, a userinfo, a time).
    ['token:abc', 'token:abc'],
    ['postgres://token:x@h/db', 'postgres://token:***@h/db'],
    // A name where a value is (after =, /, : or @) is part of that value: the message after it is kept.
    ['password=mytoken: refused', 'password=***: refused'],
    ['see https://h/a/token: b', 'see https://h/a/token: b'],
    // Nothing after the spaces: nothing to mask.
    ['password: ', 'password: '],
    ['password:\n  - x', 'password:\n  - x'],
    // Not a strict name: kept.
    ['inputTokens: 1234 outputTokens: 56', 'inputTokens: 1234 outputTokens: 56'],
    ['author: Jane Doe', 'author: Jane Doe'],
    ['attemptKey: run/case/cfg/1', 'attemptKey: run/case/cfg/1'],
    ['key: value', 'key: value'],
    ['authorization: allowed by zone', 'authorization: allowed by zone'],
    ['ingest: 3 attempts stored', 'ingest: 3 attempts stored'],
    // Not one whole value: a sentence after the colon is kept (an issue line `CODE: message`, prose).
    ['yaml_unexpected_token: problem 1', 'yaml_unexpected_token: problem 1'],
    ['the token: it expired', 'the token: it expired'],
    ['password: correct horse battery staple', 'password: correct horse battery staple'],
    ['env: PGUSER: u PGPASSWORD: p PGHOST: h', 'env: PGUSER: u PGPASSWORD: p PGHOST: h'],
    ['token: "abc" was refused', 'token: "abc" was refused'],
    ["site_credential: 'index.html' holds 2 values", "site_credential: 'index.html' holds 2 values"],
    ["provider_call_auth: 'm', 'n' refused", "provider_call_auth: 'm', 'n' refused"],
    ['password: \\"ab" cdef', 'password: \\"ab" cdef'],
  ])('%s is masked as %s', (text, masked) => {
    expect(maskSecrets(text)).toBe(masked);
    expectIdempotent(masked);
  });
});

describe('a URL userinfo password holding a # in free text', () => {
  it.each([
    ['cannot open postgres://u:p#ss@h/db', 'cannot open postgres://u:***@h/db'],
    ['postgres://u:#@h/db and https://a:b#c#d@host/x', 'postgres://u:***@h/db and https://a:***@host/x'],
    // The safe mistake: a port then a fragment holding an @ reads as a password too.
    ['http://localhost:3000#bob@example.com', 'http://localhost:***@example.com'],
  ])('%s is masked as %s, by maskSecrets and the site detector alike', (text, masked) => {
    expect(maskSecrets(text)).toBe(masked);
    expect(maskCredentialShapes(text)).toBe(masked);
    expect(scrubCredentials(text)).toBe(masked);
    expect(credentialShapedValues(text).length).toBeGreaterThan(0);
    expect(credentialShapedValues(masked)).toEqual([]);
  });

  it('any password with a # in it: both mask all of it, and keep the URL', () => {
    const passwordChar = fc.oneof(
      fc.constantFrom(...'#:&;,=!$%^*()[]{}+~'.split('')),
      fc.integer({ min: 0x30, max: 0x7a }).map((code) => String.fromCharCode(code)),
    );
    const password = fc
      .tuple(fc.array(passwordChar, { maxLength: 8 }), fc.array(passwordChar, { maxLength: 8 }))
      .map(([a, b]) => `${a.join('')}#${b.join('')}`)
      .filter((value) => !/[\\`'"<>@/?]/.test(value));
    fc.assert(
      fc.property(password, (secret) => {
        const text = `connect postgres://evals:${secret}@db.internal/book failed`;
        const shown = 'connect postgres://evals:***@db.internal/book failed';
        expect(maskSecrets(text)).toBe(shown);
        expect(maskCredentialShapes(text)).toBe(shown);
        expect(credentialShapedValues(text)).toContain(secret);
      }),
      { numRuns: 500 },
    );
  });
});

/** Any printable character but whitespace, `=` and `:` (which would start a rule of their own). */
const valueChar = fc.oneof(
  fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)),
  fc.constantFrom('é', 'ß', '中', '€', '😀'),
);
const secretValue = fc
  .array(valueChar, { minLength: 4, maxLength: 24 })
  .map((chars) => chars.join(''))
  .filter((value) => !/[=:]/.test(value));

const NAMES = [
  'password',
  'PGPASSWORD',
  'api_key',
  'apiKey',
  'X-Api-Key',
  'client_secret',
  'access_token',
  'credentials',
];

/** No 4-character piece of the value is in the masked text but where the text around it has it. */
function expectNotShown(masked: string, value: string, around: string): void {
  for (let at = 0; at + 4 <= value.length; at++) {
    const piece = value.slice(at, at + 4);
    if (masked.includes(piece)) expect(around.includes(piece)).toBe(true);
  }
}

describe('properties: a member or NAME: value never shows its value, and keeps the text around it', () => {
  const MEMBER_AROUND: readonly (readonly [string, string])[] = [
    ['{', '}'],
    ['HTTP 401 Unauthorized: {"error": {', ', "code": 401}}'],
    ['[{"id": 1, ', '}, {"id": 2}]'],
    ['provider said {\n  ', ',\n  "model": "m"\n}'],
  ];

  it('a JSON member (JSON.stringify of any value), for every strict name shape', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...NAMES),
        secretValue,
        fc.constantFrom(':', ': ', ' : '),
        fc.constantFrom(...MEMBER_AROUND),
        (name, value, colon, [prefix, suffix]) => {
          const text = `${prefix}"${name}"${colon}${JSON.stringify(value)}${suffix}`;
          const masked = maskSecrets(text);
          expect(masked).toBe(`${prefix}"${name}"${colon}"${SECRET_MASK}"${suffix}`);
          expectNotShown(masked, value, prefix + suffix);
          expectIdempotent(masked);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('a Python member (single quotes, escaped), and the same as JSON text inside a JSON string', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...NAMES),
        secretValue,
        fc.constantFrom(...MEMBER_AROUND),
        (name, value, around) => {
          const [prefix, suffix] = around;
          const python = `'${value.replace(/[\\']/g, '\\$&')}'`;
          expect(maskSecrets(`${prefix}'${name}': ${python}${suffix}`)).toBe(
            `${prefix}'${name}': '${SECRET_MASK}'${suffix}`,
          );
          // The member as text inside a JSON string: `{"body": "{\"password\": \"…\"}"}`.
          const inner = `{"${name}": ${JSON.stringify(value)}, "x": 1}`;
          const text = JSON.stringify({ body: inner });
          const masked = maskSecrets(text);
          expect(masked).toBe(JSON.stringify({ body: `{"${name}": "${SECRET_MASK}", "x": 1}` }));
          expectNotShown(masked, value, '');
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('a NAME: value, one token to its line end, is masked; the lines around are kept', () => {
    const words = secretValue.filter((value) => !/^['"]/.test(value) && !value.endsWith('\\'));
    const AROUND: readonly (readonly [string, string])[] = [
      ['', ''],
      ['db:\n  host: h\n  ', '\n  port: 5432'],
      ['GET /v1 HTTP/1.1\r\nHost: h\r\n', '\r\nAccept: */*'],
      ['- ', '\n- model: m'],
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...NAMES),
        words,
        fc.constantFrom(...AROUND),
        (name, value, [prefix, suffix]) => {
          const masked = maskSecrets(`${prefix}${name}: ${value}${suffix}`);
          const head = `${prefix}${name}: ${SECRET_MASK}`;
          expect(masked.startsWith(head)).toBe(true);
          expect(masked.endsWith(suffix)).toBe(true);
          const tail = masked.slice(head.length, masked.length - suffix.length);
          // At most the text's own punctuation is given back from the value's end.
          expect(value.endsWith(tail)).toBe(true);
          expect(tail).toMatch(/^[.,;:)\]}>'"`]?$/);
          expectNotShown(masked, value, `${prefix}${name}: ${tail}${suffix}`);
          expectIdempotent(masked);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('a quoted NAME: value ending its line or its member is masked inside its quotes', () => {
    const quoted = fc.tuple(fc.constantFrom("'", '"'), secretValue).map(([quote, value]) => ({
      value,
      quoted: `${quote}${value.replace(/[\\'"]/g, '\\$&')}${quote}`,
      quote,
    }));
    const AFTER = ['', ' }', ',', ', host: h', ",\n  host: 'h'", ' } })', ';\nnext'];
    fc.assert(
      fc.property(fc.constantFrom(...NAMES), quoted, fc.constantFrom(...AFTER), (name, q, after) => {
        const masked = maskSecrets(`{ ${name}: ${q.quoted}${after}`);
        expect(masked).toBe(`{ ${name}: ${q.quote}${SECRET_MASK}${q.quote}${after}`);
        expectNotShown(masked, q.value, after);
        expectIdempotent(masked);
      }),
      { numRuns: 1000 },
    );
  });

  it('a NAME: followed by a sentence (a word after its first token) is kept as it is', () => {
    const word = fc
      .array(fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCXYZ0123456789_.,()\'"-#!?'.split('')), {
        minLength: 1,
        maxLength: 10,
      })
      .map((chars) => chars.join(''));
    // Words, the first not opening with a quote (a value quoted whole is a value: masked).
    const sentence = fc
      .array(word, { minLength: 2, maxLength: 6 })
      .map((words) => words.join(' '))
      .filter((text) => !/^['"]/.test(text));
    fc.assert(
      fc.property(fc.constantFrom(...NAMES), sentence, (name, text) => {
        const line = `${name}: ${text}`;
        expect(maskSecrets(line)).toBe(line);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('maskSecretsIn: a strict-secret key masks what it holds', () => {
  it('an issue whose received is an object with a password member', () => {
    const issue = {
      code: 'store_unusable',
      received: {
        user: 'evals',
        password: 'hunter2',
        PGPASSWORD: 'x',
        apiKey: 'sk-live',
        pin_password: 1234,
      },
    };
    expect(maskSecretsIn(issue)).toEqual({
      code: 'store_unusable',
      received: { user: 'evals', password: '***', PGPASSWORD: '***', apiKey: '***', pin_password: '***' },
    });
  });

  it('keeps our own fields, booleans, null and an empty string', () => {
    const document = {
      attemptKey: 'run/case/cfg/1',
      comparableKey: 'k',
      inputTokens: 12,
      outputTokens: 34,
      author: 'Jane',
      authorizationBoundary: 'zone',
      hasPassword: true,
      password: '',
      token: null,
    };
    expect(maskSecretsIn(document)).toEqual(document);
  });

  it('any JSON value under a strict key: every non-empty string and every number is ***, the shape kept', () => {
    fc.assert(
      fc.property(fc.constantFrom(...NAMES), fc.jsonValue({ maxDepth: 3 }), (name, value) => {
        const masked = maskSecretsIn({ [name]: value, model: 'm' }) as Record<string, unknown>;
        expect(masked.model).toBe('m');
        const expected = (node: unknown): unknown => {
          if (typeof node === 'string') return node === '' ? '' : SECRET_MASK;
          if (typeof node === 'number') return SECRET_MASK;
          if (Array.isArray(node)) return node.map(expected);
          if (node !== null && typeof node === 'object')
            return Object.fromEntries(
              Object.entries(node).map(([key, item]) => [maskSecrets(key), expected(item)]),
            );
          return node;
        };
        expect(masked[name]).toEqual(expected(value));
      }),
      { numRuns: 500 },
    );
  });
});
