// Strict JSON text reading: property tests over generated JSON and bytes, plus the edge cases.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { readJsonText } from '../src/json-text.ts';

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
