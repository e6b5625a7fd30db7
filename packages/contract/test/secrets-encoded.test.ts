// Credentials behind the decodings a reader applies (issue 19): a browser decodes HTML character
// references, a browser's address bar, a copy-paste or a server decodes percent-encoding (in a URL
// or in a text), and the two layer. Properties: any credential shape of the detector's table,
// encoded character by character by any mix of these encodings (each layer encoding the previous
// one's output again), is found by credentialShapedValues — what `evals publish --verify` reports as
// site_credential — and masked by maskCredentialShapes and scrubCredentials — what `evals publish`
// writes — in a page's text, in an attribute and in a JSON string; a plain page is never flagged and
// never rewritten; and the shortcut that leaves a page's own escaping undecoded misses nothing.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  SECRET_MASK,
  credentialShapedValues,
  decodeCharacterReferences,
  maskCredentialShapes,
  readerText,
  scrubCredentials,
} from '../src/secrets.ts';

/** Every shape of the table, each with the part of it that must never be readable after masking. */
const SHAPES: readonly { readonly value: string; readonly secret: string }[] = [
  { value: 'sk-abcdefghijklmnopqrstuvwx', secret: 'abcdefghijklmnop' },
  { value: 'sk-proj-abcdefghijklmnopqrstuvwx', secret: 'abcdefghijklmnop' },
  { value: 'sk-ant-api03-abcdefghijklmnop', secret: 'api03-abcdefghijklmnop' },
  { value: 'ghp_0123456789abcdefghijABCDEFGHIJ', secret: '0123456789abcdefghij' },
  { value: 'github_pat_11ABCDEFG0123456789_abcdefghij', secret: '11ABCDEFG0123456789' },
  { value: 'AKIAIOSFODNN7EXAMPLE', secret: 'IOSFODNN7EXAMPLE' },
  { value: 'ASIAIOSFODNN7EXAMPLE', secret: 'IOSFODNN7EXAMPLE' },
  {
    value: 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    secret: 'wJalrXUtnFEMI/K7MDENG',
  },
  { value: 'xoxb-123456789012-abcdefghij', secret: '123456789012-abcdefghij' },
  { value: 'Bearer eyJhbGciOiJIUzI1NiJ9.abc', secret: 'eyJhbGciOiJIUzI1NiJ9' },
  { value: '-----BEGIN OPENSSH PRIVATE KEY-----', secret: 'BEGIN OPENSSH PRIVATE KEY' },
  { value: 'https://user:p@ss-w0rd!@api.example.com/v1', secret: 'p@ss-w0rd!' },
  { value: 'postgres://evals:hunter2@db.internal/book', secret: 'hunter2' },
  { value: 'postgres://u:x@h/db', secret: 'u:x@' },
];

const NAMED: Readonly<Record<string, string>> = {
  '-': 'hyphen',
  _: 'lowbar',
  ':': 'colon',
  '/': 'sol',
  '@': 'commat',
  '.': 'period',
  '=': 'equals',
  '+': 'plus',
  '!': 'excl',
  '%': 'percnt',
  '&': 'amp',
};
const hex2 = (code: number): string => code.toString(16).toUpperCase().padStart(2, '0');

/** One way of writing a character: as it is, %XX, &#NN;, &#xHH; or its named reference. */
type Way = 'raw' | 'percent' | 'decimal' | 'hex' | 'named';
const way = fc.constantFrom<Way>('raw', 'raw', 'percent', 'decimal', 'hex', 'named');

function encodeChar(char: string, how: Way): string {
  const code = char.charCodeAt(0);
  if (how === 'percent') return `%${hex2(code)}`;
  if (how === 'decimal') return `&#${code};`;
  if (how === 'hex') return `&#x${code.toString(16)};`;
  if (how === 'named' && NAMED[char] !== undefined) return `&${NAMED[char]};`;
  return char;
}

/**
 * A text as tokens — a character, a percent sequence, a reference, or the rest of a reference whose
 * `&` was re-encoded — and a layer re-encodes some of them: a character by any way, a percent
 * sequence character by character, a reference only by its `&` (its digits and `;` re-encoded would
 * no longer read as the reference: `&#52%3B` is `&#52` and `;`).
 */
function layer(tokens: readonly string[], ways: readonly Way[]): string[] {
  let next = 0;
  const pick = (): Way => ways[next++ % ways.length] ?? 'raw';
  return tokens.flatMap((token) => {
    if (token.length === 1) return [encodeChar(token, pick())];
    if (token.startsWith('%')) return Array.from(token, (char) => encodeChar(char, pick()));
    if (token.startsWith('&')) return [encodeChar('&', pick()), token.slice(1)];
    return [token];
  });
}

const encoded = fc
  .record({
    shape: fc.constantFrom(...SHAPES),
    layers: fc.array(fc.array(way, { minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 3 }),
  })
  .map(({ shape, layers }) => {
    let tokens = Array.from(shape.value);
    for (const ways of layers) tokens = layer(tokens, ways);
    return { shape, text: tokens.join('') };
  });

/** Where a page puts a value: its text, an attribute, a JSON string. */
const CONTEXTS: readonly ((value: string) => string)[] = [
  (value) => `<p>the agent used ${value} here</p>`,
  (value) => `<a href="${value}">link</a>`,
  (value) => `<pre>{&quot;query&quot;:&quot;${value}&quot;}</pre>`,
  (value) => `{"note":"${value}","n":1}`,
  (value) => `then used ${value}`,
];

describe('a credential behind any mix of a reader’s decodings', () => {
  it('the encodings generated are what a reader decodes back to the shape', () => {
    fc.assert(
      fc.property(encoded, ({ shape, text }) => {
        expect(readerText(text)).toBe(shape.value);
      }),
      { numRuns: 300 },
    );
  });

  it('is found (site_credential), and masked by maskCredentialShapes and scrubCredentials wherever it stands', () => {
    fc.assert(
      fc.property(encoded, fc.constantFrom(...CONTEXTS), ({ shape, text }, context) => {
        const page = context(text);
        expect(credentialShapedValues(page).length).toBeGreaterThan(0);
        for (const masked of [maskCredentialShapes(page), scrubCredentials(page)]) {
          expect(credentialShapedValues(masked)).toEqual([]);
          expect(readerText(masked)).not.toContain(shape.secret);
          expect(masked).toContain(SECRET_MASK);
        }
        // The text around it is kept.
        const kept = maskCredentialShapes(page);
        expect(kept.startsWith(context('').slice(0, 8))).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it.each([
    ['a percent-encoded hyphen', 'sk%2Dproj-abcdefghijklmnopqrstuvwx'],
    ['a percent-encoded @ in a password', 'https://user:p%40ss@host/x'],
    ['a whole URL percent-encoded', 'https%3A%2F%2Fuser%3Ahunter2%40host%2Fx'],
    ['a reference for a percent sign', 'ghp&#37;5F0123456789abcdefghijABCDEFGHIJ'],
    ['a double percent-encoding', 'AKIA%2549OSFODNN7EXAMPLE'],
    ['a percent-encoded reference', 'ghp%26%2395%3B0123456789abcdefghijABCDEFGHIJ'],
    // The page's own escaping joins these: a line break, a quote, a no-break space.
    ['a bearer token after a line break reference', 'Bearer&#xa;eyJhbGciOiJIUzI1NiJ9'],
    ['a bearer token after a no-break space', 'Bearer&nbsp;eyJhbGciOiJIUzI1NiJ9'],
    ['an AWS secret key in quotes', 'aws_secret_access_key=&quot;wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
    ['a userinfo password holding a middle dot', 'https://user:a&middot;b@host/x'],
  ])('%s: found and masked', (_name, value) => {
    const page = `<p>see ${value} end</p>`;
    expect(credentialShapedValues(page).length).toBeGreaterThan(0);
    const masked = maskCredentialShapes(page);
    expect(credentialShapedValues(masked)).toEqual([]);
    expect(masked.startsWith('<p>see ')).toBe(true);
    expect(masked.endsWith(' end</p>')).toBe(true);
  });

  it('masks a userinfo password in place, whatever its length, and keeps the URL', () => {
    expect(maskCredentialShapes('<code>postgres://u:x@h/db</code>')).toBe(
      '<code>postgres://u:***@h/db</code>',
    );
    expect(maskCredentialShapes('https://user:p%40ss@host/x')).toBe('https://user:***@host/x');
    expect(maskCredentialShapes('https%3A%2F%2Fuser%3Ahunter2%40host')).toBe(
      'https%3A%2F%2Fuser%3A***%40host',
    );
    expect(credentialShapedValues('postgres://u:***@h/db')).toEqual([]);
  });

  it('scrubCredentials masks a secret-named value written percent-encoded (a public page’s text)', () => {
    expect(scrubCredentials('used token%3Dabcdef123 then %70assword=hunter2, done')).toBe(
      'used token=*** then password=***, done',
    );
    // Nothing hidden: the text keeps its encoding.
    expect(scrubCredentials('a 100%25 pass rate, see a%20b')).toBe('a 100%25 pass rate, see a%20b');
  });
});

/** What a page holds that is no credential: its markup, its escaping, percent signs and URLs. */
const plainPiece = fc.oneof(
  fc.constantFrom(
    '<p>',
    '</p>',
    '<a href="../tests/case_a.html#cell=a&amp;b">',
    '&quot;',
    '&#39;',
    '&#xa;',
    '&amp;',
    '&lt;b&gt;',
    '&middot;',
    '&mdash;',
    '&nbsp;',
    'width:100%;',
    '50%',
    'a%20b',
    '%2Fpath%2Fto',
    'artifact://native/t1/transcript.jsonl',
    'https://example.com/a?b=c',
    'mailto:a@b.com',
    'user@example.com',
    'risk-averse task-switching',
    'sk-123',
    'the bearer of bad news',
    'Bearer',
    'aws_secret_access_key',
    'https://',
    '@',
    ':',
    ' ',
    'sha256:',
    'read_document',
  ),
  fc.string({ unit: fc.constantFrom(...'abcXYZ019 .,-_'.split('')), maxLength: 8 }),
);

describe('a plain page', () => {
  it('is never flagged, and never rewritten', () => {
    fc.assert(
      fc.property(fc.array(plainPiece, { maxLength: 20 }), (pieces) => {
        const page = pieces.join(' ');
        // Only pages that hold no credential, decoded or not, by construction: a piece that could
        // join into one (Bearer + a word) is left to the properties above.
        fc.pre(!/bearer\s|aws_secret_access_key\s*[=:]|:\/\/[^\s/?#]*:[^\s/?#]*@/i.test(readerText(page)));
        expect(credentialShapedValues(page)).toEqual([]);
        expect(maskCredentialShapes(page)).toBe(page);
      }),
      { numRuns: 500 },
    );
  });
});

describe('the page-escaping shortcut', () => {
  // credentialShapedValues leaves a text undecoded when its only encoded sequences are a page's own
  // escaping and it holds none of the literal parts those can join: it must then find all a full
  // decoding finds.
  const piece = fc.oneof(
    fc.constantFrom(
      '&quot;',
      '&#39;',
      '&#xa;',
      '&#10;',
      '&lt;',
      '&gt;',
      '&amp;',
      '&middot;',
      '&mdash;',
      '&nbsp;',
      '&hellip;',
      '&',
      '&&',
      '&x=',
      ' ',
      '=',
      ':',
      '@',
      '/',
      'Bearer',
      'aws_secret_access_key',
      'https://',
      'user:',
      'https://user:',
      '@host',
      'aws_secret_access_key=',
      'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEX',
      'sk-',
      'ghp_',
      'AKIA',
      'xoxb-',
      '-----BEGIN RSA PRIVATE KEY-----',
    ),
    fc.string({
      unit: fc.constantFrom(...'abcdefXYZ0123456789/+=._-'.split('')),
      minLength: 8,
      maxLength: 40,
    }),
    fc.string({ unit: fc.constantFrom(...'abcXYZ019'.split('')), minLength: 1, maxLength: 4 }),
  );
  it('misses nothing a full decoding finds', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (pieces) => {
        const text = pieces.join('');
        if (credentialShapedValues(decodeCharacterReferences(text)).length > 0)
          expect(credentialShapedValues(text).length).toBeGreaterThan(0);
        if (credentialShapedValues(text).length === 0) expect(maskCredentialShapes(text)).toBe(text);
        else expect(credentialShapedValues(maskCredentialShapes(text))).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });

  // The three shapes a page's own escaping can join or complete, joined by each such sequence.
  const oneOf = <T>(...values: T[]) => fc.constantFrom(...values);
  const joined = fc.oneof(
    fc
      .tuple(oneOf('&#xa;', '&#10;', '&nbsp;', ' &#xa;'), oneOf('eyJhbGciOiJIUzI1NiJ9', 'abcdefgh.ijk'))
      .map(([space, token]) => `Bearer${space}${token}`),
    fc
      .tuple(
        oneOf('', ' ', '&#xa;', '&nbsp;'),
        oneOf('&quot;', '&#39;', '&#x27;', '&#34;', '&#x22;'),
        oneOf('wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'),
      )
      .map(([space, quote, key]) => `aws_secret_access_key${space}=${space}${quote}${key}`),
    fc
      .tuple(oneOf('&middot;', '&mdash;', '&ndash;', '&hellip;', '&amp;'), oneOf('', 'pw', 'a.b'))
      .map(([mark, rest]) => `https://user:p${mark}${rest}@host/x`),
  );
  const noise = fc.array(oneOf('&quot;', '&#39;', '&#xa;', '&lt;b&gt;', '&amp;', 'text', ' ', '<p>'), {
    maxLength: 4,
  });
  it('finds each of the shapes a page’s own escaping joins, wherever it stands', () => {
    fc.assert(
      fc.property(noise, joined, noise, (before, value, after) => {
        const text = `${before.join('')} ${value} ${after.join('')}`;
        expect(credentialShapedValues(text).length).toBeGreaterThan(0);
        expect(credentialShapedValues(maskCredentialShapes(text))).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
