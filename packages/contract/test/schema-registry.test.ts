// The schema registry: every schema compiles strictly; `format: date-time` is ajv-formats' RFC 3339
// (our own schemas' meaning), while the PRP `instant` judges timestamps exactly as upstream's format.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { UPSTREAM_DATE_TIME } from '../src/native-execution-fields.ts';
import { SCHEMA_IDS, createSchemaAjv } from '../src/schema-registry.ts';

describe('the schema registry', () => {
  it('compiles every schema it names', () => {
    const ajv = createSchemaAjv();
    for (const id of Object.values(SCHEMA_IDS)) expect(typeof ajv.getSchema(id), id).toBe('function');
  });

  it('keeps RFC 3339 for format: date-time (checks traces, qualification records)', () => {
    const dateTime = createSchemaAjv().compile({ type: 'string', format: 'date-time' });
    for (const text of ['2026-11-30T12:00:00Z', '2026-11-30T12:00:00.5+01:00', '2026-11-30t12:00:00.123456z'])
      expect(dateTime(text), text).toBe(true);
    for (const text of ['2026-02-30T12:00:00Z', '2026-11-30T24:00:00Z', '2026-11-30', 'yesterday'])
      expect(dateTime(text), text).toBe(false);
  });

  it("judges a PRP instant exactly as upstream's date-time format (property)", () => {
    const instant = createSchemaAjv().getSchema(`${SCHEMA_IDS.prpEventV1}#/$defs/instant`);
    if (instant === undefined) throw new Error('no PRP instant definition');
    const digit = fc.constantFrom('0', '1', '2', '3', '4', '5', '6', '7', '8', '9');
    const twoDigits = fc.tuple(digit, digit).map((d) => d.join(''));
    const timestamp = fc
      .tuple(
        fc.tuple(digit, digit, digit, digit).map((d) => d.join('')),
        twoDigits,
        twoDigits,
        fc.constantFrom('T', 't', ' ', 'X'),
        twoDigits,
        twoDigits,
        twoDigits,
        fc.constantFrom('', '.0', '.12', '.123', '.1234', '.123456', '.123456789', '.'),
        fc.constantFrom('Z', 'z', '+02:00', '-0530', '', 'Q'),
      )
      .map(
        (parts) =>
          `${parts.slice(0, 3).join('-')}${parts[3]}${parts.slice(4, 7).join(':')}${parts[7]}${parts[8]}`,
      );
    let accepted = 0;
    fc.assert(
      fc.property(fc.oneof(timestamp, fc.string()), (text) => {
        const verdict = instant(text) === true;
        if (verdict) accepted += 1;
        expect(verdict, text).toBe(UPSTREAM_DATE_TIME.test(text));
      }),
      { numRuns: 20_000 },
    );
    expect(accepted).toBeGreaterThan(30); // about one generated timestamp in a hundred has upstream's shape
    expect(instant('2026-11-30T12:00:00.123Z')).toBe(true);
    expect(instant('2026-11-30T12:00:00.123\nZ')).toBe(false);
  });
});
