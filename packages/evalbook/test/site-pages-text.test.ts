// What the site's own pages say to a new reader (issue 19, a new user's review): the root index says
// what "green" means beside its badge (no regression — and, for a first campaign, no baseline, so
// 50% is never read as healthy), its timelines' captions name each line once, and every amount of
// money on the index and on a public attempt page is money() (the reports' one display form: three
// significant digits below $1, cents from $1), never formatUsd's nine decimals (those stay in the
// JSON), for any figure (fast-check); a public attempt's cost line names each figure once.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { money } from '../src/report/html/html-text.ts';
import { SITE_CAMPAIGN_V1, buildHistory, comparableKeyOf } from '../src/report/site/site-model.ts';
import { renderPublicAttemptPage, renderSiteIndex } from '../src/report/site/site-html.ts';

import type { PublicAttempt } from '../src/report/site/public-projection.ts';
import type { SiteCampaign, SiteCost } from '../src/report/site/site-model.ts';

const lanes = [{ id: 'a', provider: 'p', model: 'm', driver: null }];
const suite = `sha256:${'1'.repeat(64)}`;

function campaign(id: string, minute: number, cost: SiteCost, solved = 6): SiteCampaign {
  return {
    schema: SITE_CAMPAIGN_V1,
    campaignId: id,
    folder: `campaigns/${id}`,
    kind: 'campaign',
    completeness: 'complete',
    partialReasons: [],
    refreshOf: null,
    public: false,
    suiteFingerprint: suite,
    lanes,
    comparableKey: comparableKeyOf(lanes, suite),
    startedAt: `2026-12-01T10:${String(minute).padStart(2, '0')}:00.000Z`,
    providerCalls: 12,
    attempts: 12,
    solved,
    counted: 12,
    passRate: solved / 12,
    statusCounts: {},
    cost,
    cells: [{ caseId: 'c', configId: 'a', solved, counted: 12 }],
    cases: ['c'],
    configs: ['a'],
  };
}

const DEMO_COST: SiteCost = {
  providerReportedNanodollars: 0,
  providerReportedAttempts: 0,
  estimatedNanodollars: 74_954_500,
  estimatedAttempts: 24,
  unpricedAttempts: 0,
};

/** The page's text as a reader sees it: no tags, no style, references decoded, spaces collapsed. */
const shown = (html: string): string =>
  html
    .replace(/<style>[\s\S]*?<\/style>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replaceAll('&amp;', '&')
    .replaceAll('&#39;', "'")
    .replaceAll('&quot;', '"')
    .replace(/\s+/g, ' ');

/** Every dollar amount in a text. */
const amounts = (text: string): string[] =>
  [...text.matchAll(/\$[0-9][0-9,]*(?:\.[0-9]+)?/g)].map((m) => m[0]);

describe('the root index', () => {
  const first = campaign('demo-1', 1, DEMO_COST);
  const second = campaign('demo-2', 2, DEMO_COST);
  const page = shown(renderSiteIndex(buildHistory([first, second])));

  it("says beside a first campaign's green badge that it has no baseline, whatever its pass rate", () => {
    const alone = shown(renderSiteIndex(buildHistory([first])));
    expect(alone).toMatch(/complete green no regression: no baseline to regress against/);
    expect(alone).toMatch(/50\.0%/);
  });

  it("names the baseline beside a later campaign's green badge, and says what green means", () => {
    expect(page).toMatch(/complete green no regression against demo-1/);
    expect(page).toMatch(/Green: a complete campaign in which no case × config regressed/);
  });

  it('names a timeline line once: never "pass rate: pass rate"', () => {
    expect(page).not.toMatch(/pass rate: pass rate/i);
    expect(page).toMatch(/Pass rate \(per complete campaign, oldest left; axis 0 to 100\.0%\)/);
    expect(page).toMatch(/Cost: provider-reported · estimated \(per complete campaign/);
  });

  it("shows the demo's cost as $0.075, never $0.074954500", () => {
    expect(page).toContain('estimated $0.075 (24 of 24 attempts)');
    expect(page).not.toContain('0.074954500');
  });

  it('shows every amount as money() does, for any cost (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5_000_000_000_000 }),
        fc.integer({ min: 1, max: 5_000_000_000_000 }),
        (provider, estimated) => {
          const cost: SiteCost = {
            providerReportedNanodollars: provider,
            providerReportedAttempts: 3,
            estimatedNanodollars: estimated,
            estimatedAttempts: 3,
            unpricedAttempts: 0,
          };
          const html = renderSiteIndex(buildHistory([campaign('x-1', 1, cost), campaign('x-2', 2, cost)]));
          const allowed = new Set([money(provider), money(estimated), money(Math.max(provider, estimated))]);
          for (const amount of amounts(html)) expect(allowed, amount).toContain(amount);
        },
      ),
      { numRuns: 200 },
    );
  });
});

function publicAttempt(cost: PublicAttempt['cost']): PublicAttempt {
  return {
    runId: 'demo-1',
    caseId: 'c',
    configId: 'a',
    attemptId: 'att_1',
    status: 'incomplete',
    runner: { package: 'runner@1', driver: 'driver@1' },
    model: { provider: 'p', requestedModel: 'm', driver: 'd' },
    terminal: { turn: 'completed', run: 'succeeded', workDisposition: 'done' },
    failure: null,
    infrastructureFailure: null,
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2, requestCount: 1, durationMs: 5 },
    startedAt: null,
    cost,
    checks: [],
    tools: [],
    transcript: { complete: false, eventCount: 6 },
    conversation: [],
    conversationWithheld: null,
  };
}

describe('a public attempt page', () => {
  it('names each cost figure once, as money() shows it: the demo line', () => {
    const page = shown(
      renderPublicAttemptPage(
        publicAttempt({
          providerReportedNanodollars: null,
          estimatedNanodollars: 1_787_000,
          coverage: 'estimated',
        }),
        'tests/c.html',
      ),
    );
    expect(page).toContain(
      'cost provider-reported none · estimated $0.00179 (kept apart, never added) · coverage: estimated',
    );
    expect(page).not.toContain('0.001787000');
  });

  it('shows every amount as money() does, for any figures (property)', () => {
    const figure = fc.option(fc.integer({ min: 0, max: 5_000_000_000_000 }), { nil: null });
    fc.assert(
      fc.property(figure, figure, (provider, estimated) => {
        const html = renderPublicAttemptPage(
          publicAttempt({
            providerReportedNanodollars: provider,
            estimatedNanodollars: estimated,
            coverage: 'x',
          }),
          'tests/c.html',
        );
        const allowed = new Set([provider, estimated].filter((n) => n !== null).map((n) => money(n)));
        for (const amount of amounts(shown(html))) expect(allowed, amount).toContain(amount);
      }),
      { numRuns: 300 },
    );
  });
});
