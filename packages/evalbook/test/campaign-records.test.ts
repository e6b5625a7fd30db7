// The ledger's rule for a campaign's records (campaign-records.ts) as properties over any records:
// every record of one plan is kept (a newer one is `revised`, never refused), another plan under the
// id is refused, and the current record is the newest by its own time, then by sequence — whatever
// order the records were appended or read in.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { campaignDecision, campaignRow, currentCampaigns } from '../src/ledger/campaign-records.ts';

import type { StoredCampaign } from '../src/ledger/campaign-records.ts';

const PLAN = `sha256:${'b'.repeat(64)}`;
const record = (id: string, minute: number, extra: Record<string, unknown> = {}) => ({
  schema: 'evals-campaign/v1',
  campaignId: id,
  planDigest: PLAN,
  timing: { finishedAt: `2026-12-01T10:${String(minute).padStart(2, '0')}:00.000Z` },
  ...extra,
});

/** What a store holds after appending `records` in this order (duplicates skipped, as the stores do). */
function append(records: readonly Record<string, unknown>[]): StoredCampaign[] {
  const held: StoredCampaign[] = [];
  for (const value of records) {
    const row = campaignRow({ campaignId: String(value.campaignId), record: value });
    const mine = held.filter((entry) => entry.campaignId === row.campaignId);
    if (campaignDecision(row, mine) !== 'duplicate')
      held.push({
        campaignId: row.campaignId,
        sequence: held.length + 1,
        recordDigest: row.digest,
        record: value,
      });
  }
  return held;
}

describe('campaign records in the ledger', () => {
  it('keeps every record of a plan and makes the newest by its own time current, whatever the append order', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 59 }), { minLength: 1, maxLength: 6 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 59 }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 0, max: 1000 }),
        (minutesA, minutesB, seed) => {
          const records = [
            ...minutesA.map((minute) => record('a', minute)),
            ...minutesB.map((minute) => record('b', minute)),
          ];
          // Any order: a merge may copy an older record in after a newer one.
          const shuffled = [...records].sort(
            (x, y) => ((JSON.stringify(x).length * seed) % 7) - ((JSON.stringify(y).length * seed) % 7),
          );
          const held = append([...shuffled, ...shuffled]);
          expect(held).toHaveLength(records.length);
          const current = new Map(currentCampaigns(held).map((entry) => [entry.campaignId, entry]));
          expect(current.get('a')?.record).toEqual(record('a', Math.max(...minutesA)));
          expect(current.get('b')?.record).toEqual(record('b', Math.max(...minutesB)));
          expect(current.get('a')?.records).toBe(minutesA.length);
          // Read back in any order, the same answer.
          expect(currentCampaigns([...held].reverse())).toEqual(currentCampaigns(held));
        },
      ),
    );
  });

  it('breaks a tie of the records’ own time by the ledger’s sequence (the later appended)', () => {
    const held = append([record('a', 5, { n: 1 }), record('a', 5, { n: 2 })]);
    expect(currentCampaigns(held)[0]?.record).toEqual(record('a', 5, { n: 2 }));
  });

  it('refuses a record of another plan under an id that holds one, naming both plan digests', () => {
    const other = `sha256:${'c'.repeat(64)}`;
    expect(() => append([record('a', 1), record('a', 2, { planDigest: other })])).toThrow(
      expect.objectContaining({
        code: 'paperclip_evalbook_campaign_conflict',
        issues: [
          expect.objectContaining({
            code: 'campaign_id_reused',
            expected: expect.stringContaining(PLAN) as unknown,
            received: `plan digest ${other}`,
          }),
        ],
      }),
    );
  });
});
