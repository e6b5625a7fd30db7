// The site's history (issue 19) as rules over any set of campaigns (fast-check): never depends on
// the order campaign.json files are read in; a baseline is always an earlier complete campaign of
// the same comparable group (same lanes and suite) — never partial, unknown, a re-render or another
// suite; trend points are only complete campaigns; latest is never a re-render and latest green is
// a green listed campaign.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { SITE_CAMPAIGN_V1, buildHistory, comparableKeyOf } from '../src/report/site/site-model.ts';

import type { SiteCampaign } from '../src/report/site/site-model.ts';

const lanesA = [{ id: 'a', provider: 'p', model: 'm', driver: null }];
const lanesB = [{ id: 'a', provider: 'p', model: 'other', driver: null }];
const SUITES = [`sha256:${'1'.repeat(64)}`, `sha256:${'2'.repeat(64)}`];

const campaign = fc
  .record({
    minute: fc.integer({ min: 0, max: 50 }),
    kind: fc.constantFrom<SiteCampaign['kind'][]>('campaign', 'rerender', 'run'),
    complete: fc.boolean(),
    lanes: fc.constantFrom(lanesA, lanesB),
    suite: fc.constantFrom(...SUITES),
    cells: fc.array(
      fc.record({ caseId: fc.constantFrom('c1', 'c2', 'c3'), solved: fc.integer({ min: 0, max: 3 }) }),
      { maxLength: 3 },
    ),
  })
  .map(({ minute, kind, complete, lanes, suite, cells }) => ({
    minute,
    kind,
    complete,
    lanes,
    suite,
    cells,
  }));

const campaigns = fc.uniqueArray(campaign, { maxLength: 12, selector: (entry) => entry.minute }).map((list) =>
  list.map((entry, index): SiteCampaign => {
    const id = `camp-${index}`;
    const lanes = entry.kind === 'run' ? [] : entry.lanes;
    const suite = entry.kind === 'run' ? null : entry.suite;
    const seen = new Set<string>();
    const cells = entry.cells
      .filter((cell) => !seen.has(cell.caseId) && seen.add(cell.caseId))
      .map((cell) => ({ caseId: cell.caseId, configId: 'a', solved: cell.solved, counted: 3 }));
    return {
      schema: SITE_CAMPAIGN_V1,
      campaignId: id,
      folder: `campaigns/${id}`,
      kind: entry.kind,
      completeness: entry.kind === 'run' ? 'unknown' : entry.complete ? 'complete' : 'partial',
      partialReasons: entry.kind !== 'run' && !entry.complete ? ['budget_stop'] : [],
      refreshOf: null,
      public: false,
      suiteFingerprint: suite,
      lanes,
      comparableKey: comparableKeyOf(lanes, suite),
      startedAt: new Date(Date.UTC(2026, 10, 1) + entry.minute * 60_000).toISOString(),
      providerCalls: entry.kind === 'run' ? null : entry.kind === 'rerender' ? 0 : 6,
      attempts: 6,
      solved: 3,
      counted: 6,
      passRate: 0.5,
      statusCounts: {},
      cost: {
        providerReportedNanodollars: 1,
        providerReportedAttempts: 1,
        estimatedNanodollars: 2,
        estimatedAttempts: 1,
        unpricedAttempts: 4,
      },
      cells,
      cases: cells.map((cell) => cell.caseId),
      configs: ['a'],
    };
  }),
);

describe('buildHistory', () => {
  it('does not depend on the order the campaigns are read in', () => {
    fc.assert(
      fc.property(
        campaigns.chain((list) =>
          fc.tuple(
            fc.constant(list),
            fc.shuffledSubarray(list, { minLength: list.length, maxLength: list.length }),
          ),
        ),
        ([list, shuffled]) => {
          expect(buildHistory(shuffled)).toEqual(buildHistory(list));
        },
      ),
    );
  });

  it('compares only with an earlier complete campaign of the same lanes and suite', () => {
    fc.assert(
      fc.property(campaigns, (list) => {
        const byId = new Map(list.map((entry) => [entry.campaignId, entry]));
        const history = buildHistory(list);
        for (const entry of [...history.campaigns, ...history.rerenders]) {
          const self = byId.get(entry.campaignId);
          if (entry.baseline === null) {
            expect(entry.regressions).toEqual([]);
            continue;
          }
          const base = byId.get(entry.baseline);
          expect(self?.kind).not.toBe('rerender');
          expect(base).toMatchObject({
            kind: 'campaign',
            completeness: 'complete',
            comparableKey: self?.comparableKey,
          });
          expect((base?.startedAt ?? '') < (self?.startedAt ?? '')).toBe(true);
          // The NEWEST such campaign before it.
          const before = self?.startedAt ?? '';
          const key = self?.comparableKey;
          const between = list.filter(
            (other) =>
              other.kind === 'campaign' &&
              other.completeness === 'complete' &&
              other.comparableKey === key &&
              (other.startedAt ?? '') > (base?.startedAt ?? '') &&
              (other.startedAt ?? '') < before,
          );
          expect(between).toEqual([]);
        }
      }),
    );
  });

  it('keeps partial, unknown and re-rendered campaigns out of trends, latest green and (re-renders) latest', () => {
    fc.assert(
      fc.property(campaigns, (list) => {
        const byId = new Map(list.map((entry) => [entry.campaignId, entry]));
        const history = buildHistory(list);
        for (const group of history.groups) {
          for (const point of group.points)
            expect(byId.get(point.campaignId)).toMatchObject({
              kind: 'campaign',
              completeness: 'complete',
              comparableKey: group.comparableKey,
            });
          const times = group.points.map((point) => point.startedAt ?? '');
          expect([...times].sort()).toEqual(times);
        }
        expect(history.rerenders.every((entry) => entry.kind === 'rerender')).toBe(true);
        expect(history.campaigns.some((entry) => entry.kind === 'rerender')).toBe(false);
        if (history.latest !== null) expect(byId.get(history.latest)?.kind).not.toBe('rerender');
        if (history.latestGreen !== null)
          expect(byId.get(history.latestGreen)).toMatchObject({ kind: 'campaign', completeness: 'complete' });
        const listed = history.campaigns.map((entry) => entry.startedAt ?? '');
        expect([...listed].sort().reverse()).toEqual(listed);
      }),
    );
  });
});
