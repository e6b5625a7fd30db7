// maskSecrets never masks our own issue lines, and still masks a secret's `NAME: value` line. The
// CLI prints every issue as `CODE: message` (`  CODE at PATH: message (expected …, received …)`,
// `evals: CODE: message`), and a code may end with a secret's word (`yaml_unexpected_token`,
// `site_credential`, `provider_call_auth`), so the `NAME: value` rule masks a value only when it is
// one whole value — one token to its line's end, or a quoted one ending its line or member — never a
// message, which is a sentence. Every code is read from the sources (a new one is covered): each
// quoted snake_case literal of packages/*/src (`code: '…'`, the code unions, the tables) and the
// `yaml_*` codes the environment reader builds from the yaml package's own error codes.
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { SECRET_MASK, isStrictSecretName, maskSecrets } from '../src/secrets.ts';

const PACKAGES = fileURLToPath(new URL('../../', import.meta.url));

/** Every `.ts` file under a folder. */
function sources(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts'))
    .map((path) => join(folder, path));
}

/** Each quoted snake_case literal of every package's sources (every code we emit is one). */
function sourceCodes(): string[] {
  const found = new Set<string>();
  for (const name of readdirSync(PACKAGES)) {
    let files: string[];
    try {
      files = sources(join(PACKAGES, name, 'src'));
    } catch {
      continue;
    }
    for (const file of files)
      for (const match of readFileSync(file, 'utf8').matchAll(/'([a-z][a-z0-9]*(?:_[a-z0-9]+)+)'/g))
        found.add(match[1] ?? '');
  }
  return [...found].sort();
}

/** The yaml package's error codes as the environment reader names them (`yaml_unexpected_token`). */
function yamlCodes(): string[] {
  const yaml = dirname(
    createRequire(join(PACKAGES, 'evalbook', 'package.json')).resolve('yaml/package.json'),
  );
  const declared = /export type ErrorCode = ([^;]+);/.exec(
    readFileSync(join(yaml, 'dist', 'errors.d.ts'), 'utf8'),
  )?.[1];
  return [...(declared ?? '').matchAll(/'([A-Z0-9_]+)'/g)].map(
    (match) => `yaml_${(match[1] ?? '').toLowerCase()}`,
  );
}

const CODES = [...new Set([...sourceCodes(), ...yamlCodes()])].sort();

/** The lines the CLI prints for an issue or an error with this code and message. */
const issueLines = (code: string, message: string): string[] => [
  `${code}: ${message}`,
  `  ${code}: ${message}`,
  `  ${code} at /configs/0/model: ${message} (expected a model id, received "m 1")`,
  `  ${code} at runnerd: ${message}`,
  `evals: ${code}: ${message}`,
  `evals: ${code}: ${message}\n  ${code}: ${message} — and 3 more like it`,
];

describe('the codes read from the sources', () => {
  it('are many, and include the ones whose last word is a secret word', () => {
    expect(CODES.length).toBeGreaterThan(200);
    expect(CODES).toEqual(
      expect.arrayContaining(['yaml_unexpected_token', 'native_schema_unknown', 'store_needs_migration']),
    );
    // The codes the strict name rule would take for a secret's name, were a code's message one token:
    // why the NAME: value rule reads the value, not only the name.
    expect(CODES.filter(isStrictSecretName)).toEqual(
      expect.arrayContaining(['yaml_unexpected_token', 'site_credential', 'provider_call_auth']),
    );
  });
});

describe('an issue line is never masked', () => {
  const MESSAGES = [
    'problem 1',
    'Unexpected flow-seq-end token',
    'public/index.html holds 2 credential-shaped value(s) (not shown)',
    "'password' is not a lane of the environment",
    '"x", "y" are unknown',
    'the provider refused the key (HTTP 401)',
    'run `evals migrate` first.',
  ];

  it.each(CODES)('%s: a message', (code) => {
    for (const message of MESSAGES)
      for (const line of issueLines(code, message)) expect(maskSecrets(line)).toBe(line);
  });

  it('any code of ours with any sentence for its message (property)', () => {
    const word = fc
      .array(fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABZ0189_.,()\'"`-#!?×…'.split('')), {
        minLength: 1,
        maxLength: 12,
      })
      .map((chars) => chars.join(''));
    // Words, the first not opening with a quote (a value quoted whole is a value: masked).
    const sentence = fc
      .array(word, { minLength: 2, maxLength: 8 })
      .map((words) => words.join(' '))
      .filter((text) => !/^['"]/.test(text));
    fc.assert(
      fc.property(fc.constantFrom(...CODES), sentence, (code, message) => {
        for (const line of issueLines(code, message)) expect(maskSecrets(line)).toBe(line);
      }),
      { numRuns: 3000 },
    );
  });

  it('prose with a secret word before a colon is kept', () => {
    for (const line of [
      'the token: it expired',
      'checked the password: it was refused by the server',
      'api_key: not set (set OPENAI_API_KEY or pass --provider-key-env)',
      'credentials: none given, the provider answered 401',
    ])
      expect(maskSecrets(line)).toBe(line);
  });
});

describe('a secret line is masked', () => {
  it.each([
    ['PGPASSWORD: hunter2', 'PGPASSWORD: ***'],
    ['password: hunter2', 'password: ***'],
    ['api_key: sk-proj-abcdefghijklmnop1234', 'api_key: ***'],
    ['GITHUB_TOKEN: ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'GITHUB_TOKEN: ***'],
    ['  OPENAI_API_KEY: sk-abc123', '  OPENAI_API_KEY: ***'],
    ['X-Api-Key: k3y\r\nAccept: */*', 'X-Api-Key: ***\r\nAccept: */*'],
    ['db:\n  password: p@ss:w#rd\n  host: h', 'db:\n  password: ***\n  host: h'],
    ["password: 'correct horse battery staple'", "password: '***'"],
    ['client_secret: "s3cr3t"', 'client_secret: "***"'],
    ["{ user: 'evals', password: 'hunter2', host: 'h' }", "{ user: 'evals', password: '***', host: 'h' }"],
    ["config: {\n  password: 'hunter2',\n}", "config: {\n  password: '***',\n}"],
    ['- access_token: eyJhbGciOi.x.y', '- access_token: ***'],
    ['could not connect (password: abc).', 'could not connect (password: ***).'],
    [
      'yaml_unexpected_token: problem 1\npassword: hunter2',
      'yaml_unexpected_token: problem 1\npassword: ***',
    ],
    // What the rule cannot tell from a secret: after a code ending with a secret's word, a one-word
    // message …
    ['yaml_unexpected_token: x', `yaml_unexpected_token: ${SECRET_MASK}`],
    // … or a message that is one quoted string. Masked, the safe mistake; our messages are sentences
    // (they say what was expected, what was received and what to do).
    ['site_credential: "a b"', `site_credential: "${SECRET_MASK}"`],
  ])('%j as %j', (text, masked) => {
    expect(maskSecrets(text)).toBe(masked);
    expect(maskSecrets(masked)).toBe(masked);
  });
});

/** Any printable character but whitespace, `=` and `:` (which start rules of their own). */
const valueChar = fc.oneof(
  fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)),
  fc.constantFrom('é', 'ß', '中', '€', '😀'),
);
const token = fc
  .array(valueChar, { minLength: 4, maxLength: 32 })
  .map((chars) => chars.join(''))
  .filter((value) => !/[=:]/.test(value) && !/^['"]/.test(value) && !value.endsWith('\\'));

const SECRET_NAMES = ['PGPASSWORD', 'password', 'api_key', 'GITHUB_TOKEN', 'X-Api-Key', 'clientSecret'];

describe('properties of a secret line', () => {
  it('its value is never visible, the text around it is kept, and masking again changes nothing', () => {
    const AROUND: readonly (readonly [string, string])[] = [
      ['', ''],
      ['env:\n  ', '\n  PGHOST: h'],
      ['evals: bad_store: cannot open the store\n', '\nyaml_unexpected_token: problem 1'],
      ['GET / HTTP/1.1\r\n', '\r\nHost: h'],
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...SECRET_NAMES),
        token,
        fc.constantFrom(...AROUND),
        (name, value, [prefix, suffix]) => {
          const masked = maskSecrets(`${prefix}${name}: ${value}${suffix}`);
          const head = `${prefix}${name}: ${SECRET_MASK}`;
          expect(masked.startsWith(head)).toBe(true);
          expect(masked.endsWith(suffix)).toBe(true);
          // At most the text's own punctuation is given back from the value's end.
          const tail = masked.slice(head.length, masked.length - suffix.length);
          expect(value.endsWith(tail)).toBe(true);
          expect(tail).toMatch(/^[.,;:)\]}>'"`]?$/);
          for (let at = 0; at + 4 <= value.length; at++) {
            const piece = value.slice(at, at + 4);
            if (masked.includes(piece)) expect(`${prefix}${name}: ${tail}${suffix}`).toContain(piece);
          }
          expect(maskSecrets(masked)).toBe(masked);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
