// Tests for RFC 8785 canonical JSON: the RFC's own examples, every refusal, and properties over random JSON.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { canonicalBytes, canonicalize } from '../src/canonical-json.js';
import { ContractError } from '../src/errors.js';

function doubleFromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

function refusal(value: unknown): { code: string; rule: string | undefined; path: string | undefined } {
  try {
    canonicalize(value);
  } catch (error) {
    if (!(error instanceof ContractError)) throw error;
    expect(error.issues).toHaveLength(1);
    return { code: error.code, rule: error.issues[0]?.code, path: error.issues[0]?.path };
  }
  throw new Error('canonicalize did not refuse');
}

/**
 * A deep copy whose object members are inserted in the order `order` gives their entries.
 * Object.fromEntries keeps a `__proto__` member an own property, as JSON.parse does.
 */
function reinsert(value: unknown, order: (entries: [string, unknown][]) => [string, unknown][]): unknown {
  if (Array.isArray(value)) return value.map((item) => reinsert(item, order));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(order(Object.entries(value)).map(([key, item]) => [key, reinsert(item, order)]));
}

/** True when some object in `value` has an array-index-like member name, which JS objects enumerate first. */
function hasIndexLikeName(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasIndexLikeName);
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(([key, item]) => /^(0|[1-9]\d*)$/.test(key) || hasIndexLikeName(item));
}

/** JSON values as JSON.parse returns them (no -0, which JSON.parse yields only from "-0"). */
const jsonValue = fc.jsonValue().map((value) => JSON.parse(JSON.stringify(value)) as unknown);

describe('canonicalize: RFC 8785 examples', () => {
  it('serialises the §3.2.2 example to the exact §3.2.4 bytes', () => {
    const input = String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`;
    const expected = String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`;
    const bytes = [
      '7b 22 6c 69 74 65 72 61 6c 73 22 3a 5b 6e 75 6c 6c 2c 74 72 75 65 2c 66 61 6c 73 65 5d 2c 22 6e',
      '75 6d 62 65 72 73 22 3a 5b 33 33 33 33 33 33 33 33 33 2e 33 33 33 33 33 33 33 2c 31 65 2b 33 30',
      '2c 34 2e 35 2c 30 2e 30 30 32 2c 31 65 2d 32 37 5d 2c 22 73 74 72 69 6e 67 22 3a 22 e2 82 ac 24',
      '5c 75 30 30 30 66 5c 6e 41 27 42 5c 22 5c 5c 5c 5c 5c 22 2f 22 7d',
    ].join(' ');

    const value: unknown = JSON.parse(input);
    expect(canonicalize(value)).toBe(expected);
    expect(Buffer.from(canonicalBytes(value)).toString('hex').match(/../g)?.join(' ')).toBe(bytes);
  });

  it('sorts the §3.2.3 member names by UTF-16 code units', () => {
    const input = String.raw`{
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis"
    }`;
    const expected =
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
      '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}';

    expect(canonicalize(JSON.parse(input))).toBe(expected);
  });

  it.each([
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ])('serialises the Appendix B double 0x%s as %s', (bits, expected) => {
    expect(canonicalize(doubleFromBits(bits))).toBe(expected);
  });

  it.each([['7fffffffffffffff'], ['7ff0000000000000'], ['fff0000000000000']])(
    'refuses the Appendix B non-finite double 0x%s',
    (bits) => {
      expect(refusal([doubleFromBits(bits)])).toEqual({
        code: 'paperclip_canonical_json_invalid',
        rule: 'non_finite_number',
        path: '/0',
      });
    },
  );
});

describe('canonicalize: other serialisation', () => {
  it('writes literals, empty containers and nested values without whitespace', () => {
    expect(canonicalize({ b: [], a: {}, c: [null, true, false, 'x', -1.5, { z: 1, y: [2] }] })).toBe(
      '{"a":{},"b":[],"c":[null,true,false,"x",-1.5,{"y":[2],"z":1}]}',
    );
  });

  it('escapes control characters in lowercase hex and leaves other characters raw', () => {
    expect(canonicalize('\u0000\b\t\n\f\r\u001f\u007f</script>\u2028')).toBe(
      '"\\u0000\\b\\t\\n\\f\\r\\u001f\u007f</script>\u2028"',
    );
  });

  it('accepts objects with a null prototype and well-formed surrogate pairs', () => {
    const object = Object.assign(Object.create(null) as Record<string, unknown>, { '\ud83d\ude00': 'ok' });
    expect(canonicalize(object)).toBe('{"\ud83d\ude00":"ok"}');
  });

  it('keeps a __proto__ member as an ordinary member', () => {
    expect(canonicalize(JSON.parse('{"b":2,"__proto__":1}'))).toBe('{"__proto__":1,"b":2}');
  });

  it('writes the same value twice when it is shared rather than circular', () => {
    const shared = { a: 1 };
    expect(canonicalize([shared, { shared }])).toBe('[{"a":1},{"shared":{"a":1}}]');
  });

  it('writes a document deeper than the lean path goes (the careful path takes over) the same way', () => {
    let deep: unknown = { z: 1, a: [] };
    for (let depth = 0; depth < 1500; depth++) deep = depth % 2 === 0 ? [deep] : { k: deep };
    const expected = JSON.stringify(deep).replace('{"z":1,"a":[]}', '{"a":[],"z":1}');
    expect(canonicalize(deep)).toBe(expected);
  });
});

describe('canonicalize: refusals', () => {
  class Point {
    constructor(readonly x: number) {}
  }
  const circular: Record<string, unknown> = { a: [] };
  (circular.a as unknown[]).push(circular);
  const holey: unknown[] = [1];
  holey[2] = 3;

  it.each<[string, unknown, string, string]>([
    ['NaN', { a: [1, { 'b/c': Number.NaN }] }, 'non_finite_number', '/a/1/b~1c'],
    ['Infinity', { 'x~y': Infinity }, 'non_finite_number', '/x~0y'],
    ['-Infinity', -Infinity, 'non_finite_number', ''],
    ['a lone high surrogate in a value', { s: ['ok', 'a\ud800b'] }, 'lone_surrogate', '/s/1'],
    ['a lone low surrogate in a value', { s: '\udc00' }, 'lone_surrogate', '/s'],
    ['a reversed surrogate pair', ['\ude00\ud83d'], 'lone_surrogate', '/0'],
    ['a lone high surrogate in a key', { a: { 'k\ud83d': 1 } }, 'lone_surrogate', '/a/k\ud83d'],
    ['a lone low surrogate in a key', { '\ude00': 1 }, 'lone_surrogate', '/\ude00'],
    ['undefined as a member', { a: undefined }, 'unsupported_value', '/a'],
    ['undefined in an array', [1, undefined], 'unsupported_value', '/1'],
    ['undefined at the root', undefined, 'unsupported_value', ''],
    ['a bigint', { n: 1n }, 'unsupported_value', '/n'],
    ['a function', { f: () => 1 }, 'unsupported_value', '/f'],
    ['a symbol', [Symbol('s')], 'unsupported_value', '/0'],
    ['a Date', { when: new Date(0) }, 'unsupported_value', '/when'],
    ['a Map', { m: new Map() }, 'unsupported_value', '/m'],
    ['a class instance', { p: new Point(1) }, 'unsupported_value', '/p'],
    ['a boxed string', { s: new String('x') }, 'unsupported_value', '/s'],
    ['a sparse array hole', { a: holey }, 'unsupported_value', '/a/1'],
    ['a circular reference', circular, 'unsupported_value', '/a/0'],
  ])('refuses %s', (_name, value, rule, path) => {
    expect(refusal(value)).toEqual({ code: 'paperclip_canonical_json_invalid', rule, path });
  });

  it('names the offending type and location in the message', () => {
    expect(() => canonicalize({ when: [new Date(0)] })).toThrow(
      "cannot canonicalize: Date is not a plain object or array at '/when/0'",
    );
  });
});

describe('canonicalize: properties', () => {
  it('is stable: canonicalising the parsed output gives the same output', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalize(value);
        expect(canonicalize(JSON.parse(text))).toBe(text);
      }),
    );
  });

  it('does not depend on member insertion order', () => {
    fc.assert(
      fc.property(jsonValue, fc.infiniteStream(fc.nat()), (value, choices) => {
        const iterator = choices[Symbol.iterator]();
        const shuffle = (entries: [string, unknown][]): [string, unknown][] => {
          const shuffled: [string, unknown][] = [];
          while (entries.length > 0)
            shuffled.push(...entries.splice((iterator.next().value ?? 0) % entries.length, 1));
          return shuffled;
        };
        expect(canonicalize(reinsert(value, shuffle))).toBe(canonicalize(value));
      }),
    );
  });

  it('parses back to a value equal to the input', () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        expect(JSON.parse(canonicalize(value))).toStrictEqual(value);
      }),
    );
  });

  it('equals JSON.stringify of a copy with sorted members, when no member name is index-like', () => {
    const sortByName = (entries: [string, unknown][]): [string, unknown][] =>
      entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    fc.assert(
      fc.property(jsonValue, (value) => {
        fc.pre(!hasIndexLikeName(value));
        expect(canonicalize(value)).toBe(JSON.stringify(reinsert(value, sortByName)));
      }),
    );
  });

  it('writes every well-formed string as JSON.stringify does: quotes, backslashes, control characters (property)', () => {
    const text = fc.string({ unit: 'binary' }).filter((value) => value.isWellFormed());
    const awkward = fc
      .array(fc.constantFrom('"', '\\', '\u0000', '\n', '\u001f', '\u007f', '\u2028', 'é', '😀', 'a'), {
        maxLength: 12,
      })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.oneof(text, awkward), (value) => {
        expect(canonicalize(value)).toBe(JSON.stringify(value));
        expect(canonicalize({ [value]: [value] })).toBe(
          `{${JSON.stringify(value)}:[${JSON.stringify(value)}]}`,
        );
      }),
      { numRuns: 500 },
    );
  });

  it('refuses every unpaired surrogate, in a string with or without escapes, a key, or two strings side by side, at its pointer (property)', () => {
    // The lean path checks the whole text once for strings it writes as they are: a surrogate at one
    // string's end and another at the next one's start must not read as a pair.
    const piece = fc.constantFrom('a', '"', '\\', '\n', '\ud83d', '\ude00', '\ud83d\ude00', 'é', ':');
    const text = fc.array(piece, { maxLength: 6 }).map((parts) => parts.join(''));
    const value = fc.letrec<{ node: unknown }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.integer(),
        fc.array(tie('node'), { maxLength: 4 }),
        fc.array(fc.tuple(text, tie('node')), { maxLength: 4 }).map((entries) => Object.fromEntries(entries)),
      ),
    })).node;
    /** The first unpaired surrogate in document order (members sorted), or undefined. */
    const firstLone = (v: unknown, path: string): string | undefined => {
      if (typeof v === 'string') return v.isWellFormed() ? undefined : path;
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          const found = firstLone(v[i], `${path}/${i}`);
          if (found !== undefined) return found;
        }
        return undefined;
      }
      if (typeof v !== 'object' || v === null) return undefined;
      for (const key of Object.keys(v).sort()) {
        const at = `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
        if (!key.isWellFormed()) return at;
        const found = firstLone((v as Record<string, unknown>)[key], at);
        if (found !== undefined) return found;
      }
      return undefined;
    };
    fc.assert(
      fc.property(value, (v) => {
        const lone = firstLone(v, '');
        if (lone === undefined) {
          expect(canonicalize(v)).toBe(canonicalize(JSON.parse(canonicalize(v))));
          expect(canonicalize(v).isWellFormed()).toBe(true);
        } else
          expect(refusal(v)).toEqual({
            code: 'paperclip_canonical_json_invalid',
            rule: 'lone_surrogate',
            path: lone,
          });
      }),
      { numRuns: 1000 },
    );
    expect(refusal(['\ud83d', '\ude00'])).toMatchObject({ rule: 'lone_surrogate', path: '/0' });
    expect(refusal({ a: '\ud83d', b: '\ude00' })).toMatchObject({ rule: 'lone_surrogate', path: '/a' });
  });

  it('differs from JSON.stringify of sorted members when names are index-like', () => {
    const value = { '': 1, '10': 2, '9': 3, a: 4 };
    expect(canonicalize(value)).toBe('{"":1,"10":2,"9":3,"a":4}');
    expect(JSON.stringify(value)).toBe('{"9":3,"10":2,"":1,"a":4}');
  });
});
