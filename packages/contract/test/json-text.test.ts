// Strict JSON text reading: property tests over generated JSON and bytes, plus the edge cases.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { duplicateKeyIssues, readJsonText, readJsonTextExact, unsafeNumberIssues } from '../src/json-text.ts';

const codesOf = (input: Uint8Array | string, limits = {}): string[] => {
  const result = readJsonText(input, limits);
  return result.ok ? [] : result.issues.map((issue) => issue.code);
};

const hasUnsafeNumber = (value: unknown): boolean =>
  typeof value === 'number'
    ? Math.abs(value) > Number.MAX_SAFE_INTEGER
    : typeof value === 'object' && value !== null && Object.values(value).some(hasUnsafeNumber);

/** JSON objects whose strings may hold quotes, backslashes, colons, brackets and any Unicode. */
const jsonObject = fc
  .dictionary(fc.string({ unit: 'grapheme' }), fc.jsonValue({ depthSize: 'small' }), { maxKeys: 6 })
  .filter((value) => !hasUnsafeNumber(value));

describe('readJsonText', () => {
  it('accepts any JSON object text and returns the same value (property)', () => {
    fc.assert(
      fc.property(jsonObject, fc.constantFrom(0, 2, '\t'), (value, indent) => {
        const result = readJsonText(JSON.stringify(value, null, indent));
        expect(result).toEqual({ ok: true, value: JSON.parse(JSON.stringify(value)) as unknown });
      }),
    );
  });

  it('refuses every strict prefix of an object text (property)', () => {
    fc.assert(
      fc.property(jsonObject, fc.nat(), (value, cut) => {
        const text = JSON.stringify(value);
        const prefix = text.slice(0, cut % text.length);
        const codes = codesOf(prefix);
        expect(codes.length).toBe(1);
        expect(['json_empty', 'json_truncated', 'json_syntax']).toContain(codes[0]);
      }),
    );
  });

  it('finds a key repeated in any object, however deep (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'grapheme', minLength: 1 }), { minLength: 0, maxLength: 5 }),
        fc.string({ unit: 'grapheme' }),
        (nesting, key) => {
          let inner = `{${JSON.stringify(key)}: 1, ${JSON.stringify(key)}: 2}`;
          for (const name of [...nesting].reverse()) inner = `{${JSON.stringify(name)}: [${inner}]}`;
          const result = readJsonText(inner);
          expect(result.ok).toBe(false);
          if (!result.ok) expect(result.issues.map((issue) => issue.code)).toEqual(['json_duplicate_key']);
        },
      ),
    );
  });

  it('never throws, whatever the bytes (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        expect(() => readJsonText(bytes)).not.toThrow();
      }),
    );
  });

  it('is not fooled by escaped colons that balance a duplicate key', () => {
    // One \u003a adds a decoded colon the text does not show; one duplicate hides a structural one.
    expect(codesOf('{"a": "x\\u003a", "b": 1, "b": 2}')).toEqual(['json_duplicate_key']);
    expect(codesOf('{"a": "x\\u003Ay", "b": 1}')).toEqual([]);
  });

  it('finds a duplicate whose dropped value held colons', () => {
    expect(codesOf('{"t": "12:00:00", "t": "13:00"}')).toEqual(['json_duplicate_key']);
  });

  it('refuses nesting far past the bound without overflowing the stack', () => {
    const deep = `{"a": ${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    expect(codesOf(deep)).toEqual(['json_too_deep']);
    expect(codesOf(deep.slice(0, -1))).toEqual(['json_too_deep']);
  });

  it('refuses every number JSON.parse cannot keep exactly, wherever it is (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.double({ min: 2 ** 53, max: 1e300, noNaN: true }),
          fc.constant('1e400'),
          fc.constant(-(2 ** 60)),
        ),
        fc.array(fc.string({ minLength: 1 }), { maxLength: 3 }),
        (unsafe, keys) => {
          const text = keys.reduceRight(
            (inner, key) => `{${JSON.stringify(key)}: ${inner}}`,
            `{"n": [${String(unsafe)}]}`,
          );
          expect(codesOf(text)).toEqual(['json_number_unsafe']);
        },
      ),
    );
    expect(codesOf('{"n": 9007199254740991, "m": -9007199254740991, "f": 1.5e-300}')).toEqual([]);
  });

  it('points at a duplicate with RFC 6901 escapes', () => {
    const result = readJsonText('{"a/b": {"~k": 1, "~k": 2}}');
    expect(result.ok ? [] : result.issues.map((issue) => issue.path)).toEqual(['/a~1b/~0k']);
  });

  it('does not mistake colons and braces inside strings for structure', () => {
    expect(readJsonText('{"a": "x:y{[\\"}", "b": "\\\\"}').ok).toBe(true);
  });

  it('tells truncation inside a string from a syntax error', () => {
    expect(codesOf('{"a": "unfinished')).toEqual(['json_truncated']);
    expect(codesOf('{"a": 1,}')).toEqual(['json_syntax']);
  });

  it('gives the line and column of a syntax error', () => {
    const result = readJsonText('{\n  "a": 1,\n  "b": tru\n}');
    expect(result.ok ? '' : result.issues[0]?.message).toMatch(/line 3, column \d+/);
  });

  it('applies the depth bound before parsing', () => {
    expect(codesOf(`{"a": ${'['.repeat(10)}${']'.repeat(10)}}`, { maxDepth: 10 })).toEqual(['json_too_deep']);
    expect(codesOf(`{"a": ${'['.repeat(9)}${']'.repeat(9)}}`, { maxDepth: 10 })).toEqual([]);
  });

  it('reports the offset where a bad UTF-8 sequence starts', () => {
    const result = readJsonText(
      Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe2, 0x82, 0x22, 0x7d]),
    );
    expect(result.ok ? '' : result.issues[0]?.received).toBe('byte 0xe2 at offset 6');
  });

  it('refuses lone surrogates in keys and values, but not pairs', () => {
    expect(codesOf('{"\\udc00": 1, "b": "\\ud800x"}')).toEqual([
      'json_lone_surrogate',
      'json_lone_surrogate',
    ]);
    expect(codesOf('{"a": "\\ud83d\\ude00"}')).toEqual([]);
  });
});

/** A JSON text built member by member (keys may repeat, colons may be escaped, whitespace may stand before a colon), and whether any object repeats a key. */
interface Built {
  readonly text: string;
  readonly repeats: boolean;
}

const KEYS = ['a', 'b', 'a:b', ':', 'verdict'];
const keyText = (key: string, escapeColons: boolean): string =>
  escapeColons ? JSON.stringify(key).replaceAll(':', '\\u003a') : JSON.stringify(key);

const built: fc.Arbitrary<Built> = fc.letrec<{ node: Built; object: Built }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.jsonValue({ maxDepth: 1 }).map((value) => ({ text: JSON.stringify(value), repeats: false })),
    tie('object'),
    fc.array(tie('node'), { maxLength: 3 }).map((items) => ({
      text: `[${items.map((item) => item.text).join(',')}]`,
      repeats: items.some((item) => item.repeats),
    })),
  ),
  object: fc
    .array(
      fc.tuple(fc.constantFrom(...KEYS), fc.boolean(), tie('node'), fc.constantFrom('', '', ' ', '\n')),
      { maxLength: 4 },
    )
    .map((members) => ({
      text: `{${members.map(([key, escape, value, beforeColon]) => `${keyText(key, escape)}${beforeColon}:${value.text}`).join(',')}}`,
      repeats:
        new Set(members.map(([key]) => key)).size !== members.length ||
        members.some(([, , value]) => value.repeats),
    })),
})).object;

/**
 * JSON texts written member by member (so a key can repeat), with keys and strings that upset
 * counting: `__proto__`, colons and quotes inside, `a` written as \u0061, \u003a, lone surrogate
 * escapes, numbers past 2^53 — at any depth, pretty or compact.
 */
type Node =
  | { readonly kind: 'leaf'; readonly text: string }
  | { readonly kind: 'object'; readonly members: readonly (readonly [Key, Node])[] }
  | { readonly kind: 'array'; readonly items: readonly Node[] };
interface Key {
  readonly name: string;
  readonly escaped: boolean;
  /** Whitespace between the key and its colon (JSON.stringify writes none). */
  readonly beforeColon: string;
}
const escapeAll = (text: string): string =>
  `"${Array.from({ length: text.length }, (_, index) => `\\u${text.charCodeAt(index).toString(16).padStart(4, '0')}`).join('')}"`;
const nasty = fc.constantFrom(
  'a',
  '__proto__',
  'constructor',
  ':',
  'b:',
  '":"',
  '\\',
  '',
  'x\u003ay',
  '\ud800',
  '12:00:00',
  ':x',
  'a\\',
  ' :',
);
const keyArb = fc.record({
  name: fc.oneof(nasty, fc.string({ unit: 'grapheme', maxLength: 4 })),
  escaped: fc.boolean(),
  beforeColon: fc.constantFrom('', '', '', ' ', '\n', '\t', '\r', ' \n '),
});
const leafArb = fc.oneof(
  fc
    .tuple(fc.oneof(nasty, fc.string({ unit: 'grapheme', maxLength: 6 })), fc.boolean())
    .map(([text, escaped]) => (escaped ? escapeAll(text) : JSON.stringify(text))),
  fc.constantFrom('1', '-0', '1e400', '9007199254740993', '-9007199254740992', '0.5', 'true', 'null'),
  fc.integer().map(String),
);
const { node: nodeArb } = fc.letrec<{ node: Node; object: Node; array: Node; leaf: Node }>((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, tie('leaf'), tie('object'), tie('array')),
  leaf: leafArb.map((text) => ({ kind: 'leaf', text })),
  object: fc
    .array(fc.tuple(keyArb, tie('node')), { maxLength: 4 })
    .map((members) => ({ kind: 'object', members })),
  array: fc.array(tie('node'), { maxLength: 3 }).map((items) => ({ kind: 'array', items })),
}));
const write = (node: Node, pretty: boolean): string => {
  const gap = pretty ? ' ' : '';
  switch (node.kind) {
    case 'leaf':
      return node.text;
    case 'array':
      return `[${node.items.map((item) => write(item, pretty)).join(`,${gap}`)}]`;
    case 'object':
      return `{${node.members
        .map(
          ([key, value]) =>
            `${key.escaped ? escapeAll(key.name) : JSON.stringify(key.name)}${key.beforeColon}:${gap}${write(value, pretty)}`,
        )
        .join(`,${gap}`)}}`;
  }
};
const objectText = fc
  .tuple(fc.array(fc.tuple(keyArb, nodeArb), { maxLength: 5 }), fc.boolean())
  .map(([members, pretty]) => write({ kind: 'object', members }, pretty));

describe('readJsonText against its exact reference', () => {
  it('gives the verdict and issues of the exact finders on texts built to upset the counts (property)', () => {
    fc.assert(
      fc.property(objectText, (text) => {
        expect(readJsonText(text)).toEqual(readJsonTextExact(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('and on those texts cut, or with one character changed or doubled (property)', () => {
    fc.assert(
      fc.property(
        objectText,
        fc.nat(),
        fc.constantFrom('cut', 'double', ':', '"', ',', '\\', '}'),
        (text, at, how) => {
          const index = at % Math.max(1, text.length);
          const mutated =
            how === 'cut'
              ? text.slice(0, index)
              : how === 'double'
                ? text.slice(0, index) + text.slice(index, index + 8) + text.slice(index)
                : text.slice(0, index) + how + text.slice(index + 1);
          expect(readJsonText(mutated)).toEqual(readJsonTextExact(mutated));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('accepts no value unsafeNumberIssues would refuse, so a strictly read value skips that walk (property)', () => {
    fc.assert(
      fc.property(objectText, (text) => {
        const read = readJsonText(text);
        if (read.ok) expect(unsafeNumberIssues(read.value)).toEqual([]);
        else if (unsafeNumberIssues(JSON.parse(text)).length > 0)
          expect(read.issues.map((issue) => issue.code)).toContain('json_number_unsafe');
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses a lone surrogate in a text given as a string, raw or escaped (raw ones were accepted)', () => {
    for (const text of ['{"a": "\uD800"}', '{"\uDC00": 1}', '{"a": ["x\uD83D"]}', '{"a": "\\ud800"}'])
      expect(readJsonText(text)).toMatchObject({ ok: false, issues: [{ code: 'json_lone_surrogate' }] });
  });

  it('sees a repeat through an escaped twin and `__proto__`', () => {
    for (const text of [
      '{"a": 1, "\\u0061": 2}',
      '{"__proto__": 1, "__proto__": 2}',
      '{"x": {"\\u005f_proto__": 1, "__proto__": {}}}',
      // Counted by the quotes before colons alone, these write one member and two (the escaped key
      // starts with a colon the text does not show): either would hide its repeat.
      '{"a":1,"a" :2}',
      '{"a":1,"a":2,"\\u003a":3}',
    ])
      expect(readJsonText(text)).toMatchObject({ ok: false, issues: [{ code: 'json_duplicate_key' }] });
    expect(readJsonText('{"a": "\\u0061:", "\\u0061b": 2}')).toMatchObject({ ok: true });
  });
});

describe('duplicateKeyIssues', () => {
  it('finds a repeated key exactly when some object repeats one, as readJsonText does (property)', () => {
    fc.assert(
      fc.property(built, ({ text, repeats }) => {
        const value: unknown = JSON.parse(text);
        const issues = duplicateKeyIssues(text, value);
        expect(issues.length > 0).toBe(repeats);
        if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
          const strict = readJsonText(text);
          expect(issues).toEqual(
            strict.ok ? [] : strict.issues.filter((i) => i.code === 'json_duplicate_key'),
          );
        }
      }),
      { numRuns: 500 },
    );
  });

  it('names where the repeat is: the verdict read as allow is refused', () => {
    const text = '{"type":"response","decision":{"verdict":"deny","verdict":"allow"}}';
    expect(duplicateKeyIssues(text, JSON.parse(text))).toMatchObject([
      { code: 'json_duplicate_key', path: '/decision/verdict' },
    ]);
  });
});
