// The rule `evals merge --from-store` copies a shard's try rows by (try-starts.ts), as properties over
// any start and interruption: the rows a copy writes are the very values recordTryStart and
// recordTryInterruption write (so a merged store holds the shard's rows as the shard does); a row
// against itself as read back is a duplicate, the runner's JSON spelled otherwise too; and a row
// with any of its content changed under the same key is a conflict (nothing overwritten). The stores
// apply it in copyIn: ledger-store.test.ts, on SQLite and PostgreSQL.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  tryCopyOutcome,
  tryInterruptionValues,
  tryRowFromDb,
  tryRowValues,
  tryRowsOf,
  tryStartValues,
} from '../src/ledger/try-starts.ts';

import type { CampaignTry, TryRow } from '../src/ledger/try-starts.ts';

/** Any text, U+0000 and astral characters included. */
const text = fc.string({ unit: 'binary', maxLength: 12 });

const campaignTry: fc.Arbitrary<CampaignTry> = fc.record({
  campaignId: text,
  caseId: text,
  configId: text,
  attemptId: text,
  tryNumber: fc.integer({ min: 1, max: 1000 }),
  tryId: text,
  startedAt: text,
  runner: fc.record({
    packageName: text,
    packageVersion: text,
    runnerdSha256: text,
    host: text,
    pid: fc.integer({ min: 1, max: 4_194_304 }),
  }),
  settled: fc.boolean(),
  interruption: fc.option(fc.record({ at: text, reason: text }), { nil: null }),
});

/** A row as a store reads it back (TRY_COLUMNS), from its insert values. */
const readBack = (row: TryRow): TryRow => {
  const [campaign_id, case_id, config_id, attempt_id, try_number, try_id, event, at, detail_json] =
    tryRowValues(row);
  return tryRowFromDb({
    campaign_id: String(campaign_id),
    case_id: String(case_id),
    config_id: String(config_id),
    attempt_id: String(attempt_id),
    try_number: String(try_number),
    try_id: String(try_id),
    event: event as TryRow['event'],
    at: String(at),
    detail_json: String(detail_json),
  });
};

describe('copying try rows (evals merge --from-store)', () => {
  it('writes a start and its interruption with the values the campaign itself appends', () => {
    fc.assert(
      fc.property(campaignTry, (entry) => {
        const rows = tryRowsOf([entry]).map(tryRowValues);
        const interruption =
          entry.interruption === null
            ? []
            : [
                tryInterruptionValues({
                  ...entry,
                  at: entry.interruption.at,
                  reason: entry.interruption.reason,
                }),
              ];
        expect(rows).toEqual([tryStartValues(entry), ...interruption]);
      }),
    );
  });

  it('a row against itself as read back is a duplicate; its detail JSON spelled otherwise too', () => {
    fc.assert(
      fc.property(campaignTry, (entry) => {
        for (const row of tryRowsOf([entry])) {
          expect(tryCopyOutcome(row, readBack(row)).status).toBe('duplicate');
          const respelled = { ...row, detailJson: JSON.stringify(JSON.parse(row.detailJson), null, 2) };
          expect(tryCopyOutcome(row, respelled).status).toBe('duplicate');
        }
        expect(tryCopyOutcome(tryRowsOf([entry])[0]!, undefined).status).toBe('inserted');
      }),
    );
  });

  it('a row with any content changed under the same key is a conflict, both rows given', () => {
    const content = fc.constantFrom('attemptId', 'tryNumber', 'at', 'detailJson');
    fc.assert(
      fc.property(campaignTry, content, text, (entry, field, other) => {
        for (const row of tryRowsOf([entry])) {
          const value =
            field === 'tryNumber'
              ? row.tryNumber + 1
              : field === 'detailJson'
                ? JSON.stringify({ ...(JSON.parse(row.detailJson) as object), changed: other })
                : `${row[field]}${other === '' ? 'x' : other}`;
          const changed = { ...row, [field]: value };
          expect(tryCopyOutcome(changed, row)).toEqual({ status: 'conflict', row: changed, existing: row });
        }
      }),
    );
  });
});
