// Properties of reading numbers as the Attest engine's Go decoder reads them (go-decode.ts) and of
// printing them as its constraint explanations do (spec-fields.ts goFloat: FormatFloat 'f', -1).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { goParseInt64 } from '../src/go-decode.ts';
import { goFloat } from '../src/spec-fields.ts';

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

describe('goParseInt64 (segmentio parse.go:83-157)', () => {
  it('reads every int64 exactly, and a fraction or an exponent as not an int', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: INT64_MIN, max: INT64_MAX }), (value) => {
        expect(goParseInt64(value.toString())).toEqual({ ok: true, value });
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }),
        fc.constantFrom('.0', '.5', 'e2', 'E+1', '.25e-3'),
        (value, tail) => {
          expect(goParseInt64(`${value}${tail}`)).toEqual({ ok: false, problem: 'fraction' });
        },
      ),
    );
  });

  it('refuses every negative number below -2^63', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 200n), max: INT64_MIN - 1n }), (value) => {
        expect(goParseInt64(value.toString())).toEqual({ ok: false, problem: 'overflow' });
      }),
    );
  });

  it('past 2^63 − 1: refused where next < value sees it, else the value mod 2^64, as int64 wraps', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: INT64_MAX + 1n, max: 2n ** 200n }), (value) => {
        const reading = goParseInt64(value.toString());
        if (!reading.ok) {
          expect(reading.problem).toBe('overflow');
          return;
        }
        // Only a step that wrapped and still grew gets through: the value read is the digits'
        // int64 arithmetic, congruent to the number mod 2^64, and never negative.
        expect(BigInt.asIntN(64, value)).toBe(BigInt.asIntN(64, reading.value));
        expect(reading.value >= 0n).toBe(true);
      }),
      { numRuns: 500 },
    );
    expect(goParseInt64('25000000000000000000')).toEqual({ ok: true, value: 6553255926290448384n });
    expect(goParseInt64('9223372036854775808')).toEqual({ ok: false, problem: 'overflow' });
    expect(goParseInt64('99999999999999999999')).toEqual({ ok: false, problem: 'overflow' });
  });
});

describe("goFloat (strconv.FormatFloat(v, 'f', -1, 64))", () => {
  it('is decimal without an exponent, and reads back as the same double', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        const text = goFloat(value);
        expect(text).toMatch(/^-?\d+(\.\d+)?$/);
        expect(Object.is(Number(text), value)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('writes the shortest digits that identify the double, zeros after them (not its exact value)', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        const shortest = Math.abs(value).toExponential().split('e')[0]!.replace('.', '').replace(/^0+/, '');
        const digits = goFloat(value).replace(/[-.]/g, '').replace(/^0+/, '').replace(/0+$/, '');
        expect(digits).toBe(value === 0 ? '' : shortest.replace(/0+$/, ''));
      }),
      { numRuns: 1000 },
    );
    expect(goFloat(Number('12345678901234567891'))).toBe('12345678901234567000');
    expect(goFloat(1e21)).toBe('1000000000000000000000');
    expect(goFloat(1.23456789012345e-10)).toBe('0.000000000123456789012345');
    expect(goFloat(-0)).toBe('-0');
  });
});
