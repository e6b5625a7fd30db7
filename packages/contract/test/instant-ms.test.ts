// instantMs, the one reading of a contract timestamp as epoch milliseconds: every timestamp the
// contract accepts gives a finite instant — a leap second (23:59:60) included, one second after
// 23:59:59 with the same fraction, where Date.parse gives NaN — and the instants keep the texts' order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { instantMs, isRealInstant } from '../src/native-execution-fields.ts';

const two = (n: number): string => String(n).padStart(2, '0');
const timestamp = fc
  .record({
    year: fc.integer({ min: 1970, max: 2999 }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 31 }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    second: fc.integer({ min: 0, max: 60 }),
    fraction: fc.option(fc.integer({ min: 0, max: 999 }), { nil: undefined }),
  })
  .map(
    ({ year, month, day, hour, minute, second, fraction }) =>
      `${year}-${two(month)}-${two(day)}T${two(hour)}:${two(minute)}:${two(second)}${fraction === undefined ? '' : `.${String(fraction).padStart(3, '0')}`}Z`,
  )
  .filter(isRealInstant);

describe('instantMs', () => {
  it('reads a leap second as one second after 23:59:59, fraction kept (Date.parse: NaN)', () => {
    expect(Date.parse('2016-12-31T23:59:60Z')).toBeNaN();
    expect(instantMs('2016-12-31T23:59:60Z')).toBe(Date.parse('2017-01-01T00:00:00Z'));
    expect(instantMs('2016-12-31T23:59:60.250Z')).toBe(Date.parse('2017-01-01T00:00:00.250Z'));
  });

  it('is Date.parse for every other accepted timestamp, finite for all, and keeps their order', () => {
    fc.assert(
      fc.property(timestamp, timestamp, (a, b) => {
        expect(Number.isSafeInteger(instantMs(a))).toBe(true);
        if (!a.includes(':60')) expect(instantMs(a)).toBe(Date.parse(a));
        // Same-length texts of one shape order as their instants (the leap second's fraction may
        // meet the next day's first second: never before it).
        if (a.length === b.length && a < b) expect(instantMs(a)).toBeLessThanOrEqual(instantMs(b));
      }),
      { numRuns: 2000 },
    );
  });

  it('is NaN for a text that is no timestamp', () => {
    expect(instantMs('')).toBeNaN();
    expect(instantMs('yesterday')).toBeNaN();
  });
});
