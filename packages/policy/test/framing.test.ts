// Frame parsing properties (fast-check; line splitting is @paperclip-evals/node's): member spans
// agree with JSON.parse, and now_ms is a signed 64-bit integer read from its text —
// exact for every value in range, refused for every fraction, exponent or out-of-range token.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  I64_MAX,
  I64_MIN,
  compactJson,
  findMembers,
  lastMember,
  memberSpansFor,
  parseI64,
} from '../src/framing.ts';
import { bundleOf, writeRate } from '@paperclip-evals/test-kit/policy-bundles';
import { drive } from './support/session.ts';

const i64 = fc.bigInt({ min: I64_MIN, max: I64_MAX });

describe('findMembers', () => {
  it('finds each chosen top-level member exactly where JSON.parse does, and no other', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.array(fc.string(), { maxLength: 3 }),
        fc.constantFrom(0, 2),
        (object, absent, indent) => {
          const text = JSON.stringify(object, null, indent);
          // Compared with what JSON.parse reads from the same text (JSON has no -0: it is written 0).
          const parsed = JSON.parse(text) as Record<string, unknown>;
          const keys = [...Object.keys(parsed), ...absent.filter((key) => !Object.hasOwn(parsed, key))];
          const spans = memberSpansFor(keys);
          expect(findMembers(text, 0, text.length, keys, spans)).toBe(true);
          keys.forEach((key, index) => {
            const [start = -1, end = -1] = [spans[2 * index], spans[2 * index + 1]];
            if (!Object.hasOwn(parsed, key)) expect([start, end]).toEqual([-1, -1]);
            else expect(JSON.parse(text.slice(start, end))).toEqual(parsed[key]);
          });
        },
      ),
    );
  });

  it('reads escaped keys as JSON.parse does, and the last of duplicate keys', () => {
    const text = '{"now\\u005fms": 1, "id": "a", "id": {"id": 2}}';
    const spans = memberSpansFor(['now_ms', 'id']);
    findMembers(text, 0, text.length, ['now_ms', 'id'], spans);
    expect(text.slice(spans[0], spans[1])).toBe('1');
    expect(text.slice(spans[2], spans[3])).toBe('{"id": 2}');
  });

  it('lastMember finds the last member where JSON.parse does, or declines', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.string(),
        fc.oneof(fc.array(fc.jsonValue()), fc.dictionary(fc.string(), fc.jsonValue())),
        fc.constantFrom(0, 2),
        (object, key, value, indent) => {
          const text = JSON.stringify({ ...object, [key]: value }, null, indent);
          const span = lastMember(text, key);
          const parsed = JSON.parse(text) as Record<string, unknown>;
          const lastKey = Object.keys(parsed).at(-1);
          if (lastKey !== key || key.includes('\\') || JSON.stringify(key) !== `"${key}"`) return; // declining is allowed
          expect(span).toBeDefined();
          if (span !== undefined) expect(JSON.parse(text.slice(span.start, span.end))).toEqual(parsed[key]);
        },
      ),
    );
  });

  it('lastMember declines a key that only ends like the one asked for, or a primitive value', () => {
    expect(lastMember('{"a":1,"xstate_out":{"c":[]}}', 'state_out')).toBeUndefined();
    expect(lastMember('{"a":"\\"state_out\\":","b":{"c":[]}}', 'state_out')).toBeUndefined();
    expect(lastMember('{"state_out":7}', 'state_out')).toBeUndefined();
    expect(lastMember('{"state_out": {"c":["}"]} }', 'state_out')).toEqual({ start: 14, end: 25 });
  });

  it('compactJson only drops whitespace outside strings', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const compact = compactJson(JSON.stringify(value, null, 2));
        expect(compact).toBe(JSON.stringify(value));
      }),
    );
  });
});

describe('now_ms', () => {
  it('parseI64 is exact over the whole signed 64-bit range', () => {
    fc.assert(fc.property(i64, (value) => parseI64(value.toString()) === value));
  });

  it('parseI64 refuses fractions, exponents, leading zeros and values out of range', () => {
    const bad = fc.oneof(
      fc.tuple(i64, fc.nat()).map(([n, f]) => `${n}.${f}`),
      fc.tuple(i64, fc.integer({ min: -20, max: 20 })).map(([n, e]) => `${n}e${e}`),
      fc.bigInt({ min: I64_MAX + 1n, max: I64_MAX * 4n }).map(String),
      fc.bigInt({ min: I64_MIN * 4n, max: I64_MIN - 1n }).map(String),
      fc.nat().map((n) => `0${n}`),
    );
    fc.assert(fc.property(bad, (token) => parseI64(token) === undefined));
  });

  it('reaches the registers unchanged through the producer, even past 2^53', () => {
    fc.assert(
      fc.property(i64, (nowMs) => {
        const producer = drive();
        producer.send({ type: 'bundle', bundle: bundleOf(writeRate) });
        const reply = producer.session.handle({
          kind: 'line',
          text: `{"type":"row","id":1,"event":{"tool_name":"Write"},"state_in":{"c":[0],"f":[false],"t":[0,0,0]},"now_ms":${nowMs}}`,
        });
        expect(reply).toContain(`"state_out":{"c":[1],"f":[false],"t":[${nowMs},0,0],"a":[],"run":null}`);
      }),
      { numRuns: 200 },
    );
  });

  it('is a row error (OL-1240) for any float token, never coerced', () => {
    fc.assert(
      fc.property(
        fc
          .double({ noNaN: true, noDefaultInfinity: true })
          .filter((x) => !Number.isInteger(x) || String(x).includes('e')),
        (x) => {
          const producer = drive();
          producer.send({ type: 'bundle', bundle: bundleOf() });
          const reply = producer.sendLine(`{"type":"row","id":1,"event":{},"now_ms":${String(x)}}`);
          expect(reply).toMatchObject({ error: { code: 'OL-1240' } });
        },
      ),
      { numRuns: 200 },
    );
  });
});
