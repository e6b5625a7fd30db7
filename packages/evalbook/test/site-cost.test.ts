// Unknown cost is never zero on the published site: a campaign none of whose attempts had a
// provider-reported (or estimated) figure says `none (0 of N attempts)`, never `$0.00`, and its
// history trend point carries null for that kind (no dot drawn at $0), whatever the counts (fast-check).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { SITE_CAMPAIGN_V1, buildHistory, comparableKeyOf } from '../src/report/site/site-model.ts';
import { costText } from '../src/report/site/site-html.ts';

import type { SiteCampaign, SiteCost } from '../src/report/site/site-model.ts';

const lanes = [{ id: 'a', provider: 'p', model: 'm', driver: null }];
const suite = `sha256:${'1'.repeat(64)}`;

const siteCost = fc
  .record({
    provider: fc.integer({ min: 0, max: 4 }),
    estimated: fc.integer({ min: 0, max: 4 }),
    unpriced: fc.integer({ min: 0, max: 4 }),
    nanodollars: fc.integer({ min: 0, max: 10_000_000 }),
  })
  .map(({ provider, estimated, unpriced, nanodollars }): SiteCost => ({
    providerReportedNanodollars: provider === 0 ? 0 : nanodollars,
    providerReportedAttempts: provider,
    estimatedNanodollars: estimated === 0 ? 0 : nanodollars,
    estimatedAttempts: estimated,
    unpricedAttempts: unpriced,
  }));

function campaignWith(cost: SiteCost): SiteCampaign {
  return {
    schema: SITE_CAMPAIGN_V1,
    campaignId: 'camp-0',
    folder: 'campaigns/camp-0',
    kind: 'campaign',
    completeness: 'complete',
    partialReasons: [],
    refreshOf: null,
    public: false,
    suiteFingerprint: suite,
    lanes,
    comparableKey: comparableKeyOf(lanes, suite),
    startedAt: '2026-12-01T10:00:00.000Z',
    providerCalls: 6,
    attempts: 6,
    solved: 3,
    counted: 6,
    passRate: 0.5,
    statusCounts: {},
    cost,
    cells: [],
    cases: [],
    configs: ['a'],
  };
}

describe("the site's cost: a kind no attempt had is none, never $0", () => {
  it('the demo: no provider figure, every attempt estimated', () => {
    const text = costText(
      {
        providerReportedNanodollars: 0,
        providerReportedAttempts: 0,
        estimatedNanodollars: 71_500_000,
        estimatedAttempts: 24,
        unpricedAttempts: 0,
      },
      false,
    );
    expect(text).toContain('provider-reported none (0 of 24 attempts)');
    expect(text).toMatch(/estimated \$0\.0715\d* \(24 of 24 attempts\)/);
    expect(text).not.toMatch(/\$0\.00(?!\d*[1-9])/);
  });

  it('costText and the trend point say none / null exactly when the kind has no attempt (property)', () => {
    fc.assert(
      fc.property(siteCost, (cost) => {
        const text = costText(cost, false);
        expect(text.includes('provider-reported none')).toBe(cost.providerReportedAttempts === 0);
        expect(text.includes('estimated none')).toBe(cost.estimatedAttempts === 0);
        const [group] = buildHistory([campaignWith(cost)]).groups;
        const [point] = group?.points ?? [];
        expect(point?.providerReportedNanodollars).toBe(
          cost.providerReportedAttempts === 0 ? null : cost.providerReportedNanodollars,
        );
        expect(point?.estimatedNanodollars).toBe(
          cost.estimatedAttempts === 0 ? null : cost.estimatedNanodollars,
        );
      }),
    );
  });
});
