// The schema registry: every schema compiles strictly, and the fast date-time format gives
// exactly ajv-formats' verdicts.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { SCHEMA_IDS, createSchemaAjv } from '../src/schema-registry.ts';

const addFormats = addFormatsPlugin as unknown as (ajv: Ajv2020) => Ajv2020;

describe('the schema registry', () => {
  it('compiles every schema it names', () => {
    const ajv = createSchemaAjv();
    for (const id of Object.values(SCHEMA_IDS)) expect(typeof ajv.getSchema(id), id).toBe('function');
  });

  it('judges date-times exactly as ajv-formats does (property)', () => {
    const ours = createSchemaAjv().compile({ type: 'string', format: 'date-time' });
    const plain = new Ajv2020();
    addFormats(plain);
    const reference = plain.compile({ type: 'string', format: 'date-time' });
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
        fc.constantFrom('', '.0', '.123', '.123456789', '.1234567890', '.'),
        fc.constantFrom('Z', 'z', '+02:00', '-0530', '', 'Q'),
      )
      .map(
        (parts) =>
          `${parts.slice(0, 3).join('-')}${parts[3]}${parts.slice(4, 7).join(':')}${parts[7]}${parts[8]}`,
      );
    fc.assert(
      fc.property(fc.oneof(timestamp, fc.string()), (text) => {
        expect(ours(text)).toBe(reference(text));
      }),
      { numRuns: 20_000 },
    );
    for (const text of [
      '2024-02-29T00:00:00Z',
      '2023-02-29T00:00:00Z',
      '1900-02-29T00:00:00Z',
      '2000-02-29T23:59:59.5Z',
    ]) {
      expect(ours(text), text).toBe(reference(text));
    }
  });
});
