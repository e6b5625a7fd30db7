// The plan's part of a campaign's identity, as `evals run` checks it before the join: a recorded
// campaign (read as the ledger keeps it: untrusted JSON) of another suite, plan or shard differs on
// exactly those fields; the same campaign — whatever its run settings (ceiling, retries,
// parallelism: a resume may change them) — differs on none.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { parseEnvironment } from '@paperclip-evals/evalbook';

import { planCampaign } from '../src/plan.ts';
import { planIdentity, planIdentityDifferences } from '../src/record.ts';
import { suiteEnvironment } from './support/stand-in.ts';

const cases = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ id: `c${index}`, behaviour: 'succeed' }));
const planOf = (count: number, options: Parameters<typeof suiteEnvironment>[1] = {}) =>
  planCampaign(parseEnvironment(suiteEnvironment(cases(count), options)), { campaignId: 'camp' });
/** A record as the ledger returns it: JSON, the identity fields and others. */
const asRecorded = (identity: ReturnType<typeof planIdentity>): Record<string, unknown> =>
  JSON.parse(JSON.stringify({ ...identity, schema: 'evals-campaign/v1', attempts: [] })) as Record<
    string,
    unknown
  >;

describe('planIdentityDifferences', () => {
  it('the same campaign under other run settings differs on nothing', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 1, max: 100 }),
        (count, retries, ceiling) => {
          const recorded = asRecorded(planIdentity(planOf(count), null));
          const now = planIdentity(planOf(count, { retries, maxCostUsd: ceiling }), null);
          expect(planIdentityDifferences(recorded, now)).toEqual([]);
        },
      ),
    );
  });

  it('another suite, plan or shard differs on those fields, with the recorded value and this run’s', () => {
    const recorded = asRecorded(planIdentity(planOf(3), null));
    const other = planIdentity(planOf(2), null);
    expect(planIdentityDifferences(recorded, other).map((d) => d.field)).toEqual([
      'suiteFingerprint',
      'planDigest',
    ]);
    const sharded = planIdentity(planOf(3), { index: 1, count: 2 });
    expect(planIdentityDifferences(recorded, sharded)).toEqual([
      { field: 'shard', recorded: 'the whole campaign', now: 'shard 1/2' },
    ]);
  });

  it('a recorded value of the wrong shape is a difference, never a match', () => {
    const identity = planIdentity(planOf(1), null);
    for (const broken of [
      { suiteFingerprint: 7 },
      { planDigest: null },
      { shard: 'all' },
      { shard: undefined },
    ])
      expect(
        planIdentityDifferences({ ...asRecorded(identity), ...broken }, identity).length,
        JSON.stringify(broken),
      ).toBe(1);
  });
});
