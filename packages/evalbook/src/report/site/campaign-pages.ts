// One campaign's folder of a published site (issue 19), in ONE streaming pass over the campaign's
// attempts (store.attempts(campaignId), through the run's index): each
// attempt of the campaign (runId = campaignId) is rendered and handed to `emit` as soon as it is read
// (never held as page text: 100,000 attempts are 100,000 writes, not one string; their bundles read
// 500 at a time), then the grid page
// (the report's renderHtml over this campaign's summary), a page per case and campaign.json. A private
// attempt page is the attempt replay's (buildAttemptReplay, renderAttemptPage); a public one is the
// allowlisted projection's. The
// folder's bytes depend on the campaign alone — never on other runs in the store, the store's name
// or the clock, nor on an optional flag (no environment file: a case's prompt or a config's
// model never come from `--env`; the model, provider and driver come from what the ledger holds, the
// attempt's eval session else the campaign record's lane; a case's prompt and description from the
// campaign record's caseDefinitions, record-cases.ts) — so publishing it again gives the same
// bytes. With `public`, every attempt goes
// through the closed allowlist (public-projection.ts), the grid embeds no attempt and the summary
// no retraction text.
import { EvalbookError } from '../../errors.js';
import { SummaryBuilder } from '../../analysis/summary.js';
import { renderHtml } from '../html/render-html.js';
import { renderAttemptPageBytes } from '../html/attempt-page.js';
import { esc } from '../html/html-text.js';
import { buildAttemptReplay } from '../attempt-replay.js';
import { HTML_MAX_ATTEMPTS, HTML_MAX_REPLAYS, reportAttempt } from '../model.js';
import { conversationOf, modelOf, publicAttempt } from './public-projection.js';
import { recordCases } from './record-cases.js';
import { renderCasePage, renderPublicAttemptPage } from './site-html.js';
import { attemptPage, campaignFolder, casePage } from './site-names.js';
import { SITE_CAMPAIGN_V1, comparableKeyOf, refreshOf } from './site-model.js';

import type { EvalbookSummary } from '../../analysis/summary.js';
import type { LedgerStore, StoredAttempt } from '../../ledger/store.js';
import type { AttemptVerdict } from '../../analysis/scoring.js';
import type { AttemptReplay } from '../attempt-replay.js';
import type { HtmlAttempt } from '../html/render-html.js';
import type { CaseRow } from './site-html.js';
import type { SiteCampaign, SiteCompleteness, SiteKind, SiteLane } from './site-model.js';

export interface CampaignPagesOptions {
  readonly store: LedgerStore;
  readonly campaignId: string;
  /** The campaign's evals-campaign/v1 record from the ledger, or null (a run ingested without one). */
  readonly record: Readonly<Record<string, unknown>> | null;
  readonly public: boolean;
  /**
   * The id the folder is published under when it is not the campaign's: a re-render
   * `<campaignId>-report-<n>` (upstream's report refresh: no provider call, listed apart).
   */
  readonly siteId?: string;
  /** Receives each file of the folder (a path inside it, and its text or UTF-8 bytes), awaited one at a time. */
  readonly emit: (path: string, content: string | Uint8Array) => Promise<void>;
}

/** Attempts whose bundles are read in one query. */
const BUNDLE_PAGE = 500;

interface RecordFields {
  readonly complete?: boolean;
  readonly partial?: readonly string[];
  readonly suiteFingerprint?: string;
  readonly lanes?: readonly { id: string; provider: string; model: string; driver: string | null }[];
  readonly totals?: { readonly tries?: number };
  readonly timing?: { readonly startedAt?: string };
}

/** Writes the campaign's pages through `emit` and returns its campaign.json (also emitted). */
export async function writeCampaignPages(options: CampaignPagesOptions): Promise<SiteCampaign> {
  const { store, campaignId } = options;
  const siteId = options.siteId ?? campaignId;
  const record = options.record as RecordFields | null;
  // A lane is a config of the suite (its id is the config's): its provider, model and driver.
  const laneOf = new Map((record?.lanes ?? []).map((lane) => [lane.id, lane]));
  const caseOf = recordCases(options.record);
  const builder = new SummaryBuilder({
    policy: 'all_attempts',
    // A campaign wholly retracted since is still a folder: nothing of it counts, and it says so.
    leftOutRunAllowed: true,
    runId: campaignId,
    retractions: (await store.retractions()).filter((retraction) => retraction.runId === campaignId),
  });
  const cases = new Map<string, CaseRow[]>();
  const embedded: HtmlAttempt[] = [];
  const cost = {
    providerReportedNanodollars: 0,
    providerReportedAttempts: 0,
    estimatedNanodollars: 0,
    estimatedAttempts: 0,
    unpricedAttempts: 0,
  };
  let firstStart: string | null = null;
  let seen = 0;
  // Attempt pages are rendered a page of BUNDLE_PAGE attempts at a time: their bundles read in one
  // query (not one per attempt, a round trip each on PostgreSQL), then each page emitted in order.
  let waiting: { stored: StoredAttempt; verdict: AttemptVerdict; page: string; caseHref: string }[] = [];
  const renderWaiting = async (): Promise<void> => {
    const texts = await store.getBundles(waiting.map(({ stored }) => stored.bundleDigest));
    for (const { stored, verdict, page, caseHref } of waiting) {
      const bundleText = texts.get(stored.bundleDigest) ?? null;
      // Private: the attempt replay (one model, one renderer, as the report's drill-down). Public:
      // the closed allowlist, rendered apart (the replay shows tool inputs and results).
      const lane = laneOf.get(stored.key.configId) ?? null;
      const replay = options.public
        ? null
        : withLedgerModel(
            buildAttemptReplay({ attempt: stored, bundleText, verdict, case: caseOf(stored.key.caseId) }),
            modelOf(stored, lane),
          );
      await options.emit(
        page,
        replay === null
          ? renderPublicAttemptPage(
              publicAttempt(stored, verdict, conversationOf(bundleText), lane),
              caseHref,
            )
          : renderAttemptPageBytes(replay, {
              title: `Attempt ${stored.key.attemptId}`,
              links: [
                { href: '../../../index.html', label: 'All campaigns' },
                { href: '../index.html', label: `Campaign ${siteId}` },
                { href: `../${caseHref}`, label: `case ${stored.key.caseId}` },
              ],
            }),
      );
      if (replay !== null && embedded.length < HTML_MAX_ATTEMPTS)
        embedded.push({
          ...reportAttempt(stored, verdict),
          replay: embedded.length < HTML_MAX_REPLAYS ? replay : null,
        });
    }
    waiting = [];
  };
  // The campaign's attempts alone, through the run's index: a publication of N campaigns reads each
  // attempt once, never the whole store once per campaign (the check stays for a store that streams all).
  for await (const stored of store.attempts(campaignId)) {
    if (stored.key.runId !== campaignId) continue;
    seen++;
    const verdict = builder.add(stored);
    if (verdict === null) continue;
    const page = attemptPage(stored.key);
    const caseHref = casePage(stored.key.caseId);
    waiting.push({ stored, verdict, page, caseHref });
    if (waiting.length === BUNDLE_PAGE) await renderWaiting();
    let rows = cases.get(stored.key.caseId);
    if (rows === undefined) cases.set(stored.key.caseId, (rows = []));
    rows.push({
      configId: stored.key.configId,
      attemptId: stored.key.attemptId,
      status: verdict.status,
      page,
    });
    const figures = stored.record.cost;
    if (figures.providerReportedNanodollars !== null) {
      cost.providerReportedNanodollars += figures.providerReportedNanodollars;
      cost.providerReportedAttempts++;
    }
    if (figures.estimatedNanodollars !== null) {
      cost.estimatedNanodollars += figures.estimatedNanodollars;
      cost.estimatedAttempts++;
    }
    if (figures.providerReportedNanodollars === null && figures.estimatedNanodollars === null)
      cost.unpricedAttempts++;
    const started = stored.record.startedAt ?? null;
    if (started !== null && (firstStart === null || started < firstStart)) firstStart = started;
  }
  await renderWaiting();
  if (seen === 0)
    throw new EvalbookError(
      'paperclip_evalbook_scope_unknown',
      `the store holds no attempt of campaign ${JSON.stringify(campaignId)}: name a campaign or run \`evals runs\` lists`,
      [
        {
          code: 'campaign_unknown',
          message: `no attempt with runId ${JSON.stringify(campaignId)}`,
          path: '/campaign',
          expected: 'a run id of the store (a campaign runs its attempts under its campaign id)',
          received: campaignId,
        },
      ],
    );
  for await (const verdict of store.policyVerdicts())
    if (verdict.key.runId === campaignId) builder.addPolicyVerdict(verdict);
  const full = builder.build();
  const summary = options.public ? publicSummary(full) : full;
  const folder = campaignFolder(siteId);

  const grid = renderHtml({
    title: `Campaign ${siteId}`,
    // Never the store's name: the folder must not depend on where the store was read from.
    storeUrl: `campaign ${campaignId}${siteId === campaignId ? '' : ` (re-rendered as ${siteId})`}${options.public ? ' (public projection)' : ''}`,
    summary,
    budgets: [],
    gate: null,
    attempts: embedded,
  });
  const nav = `<nav class="site-nav"><a href="../../index.html">All campaigns</a> · cases: ${[...cases.keys()]
    .sort()
    .map((caseId) => `<a href="${esc(casePage(caseId))}">${esc(caseId)}</a>`)
    .join(' · ')}</nav>`;
  await options.emit('index.html', grid.replace('<main>\n', `<main>\n${nav}\n`));
  for (const caseId of [...cases.keys()].sort()) {
    const rows = cases.get(caseId) ?? [];
    await options.emit(casePage(caseId), renderCasePage({ campaignId: siteId }, caseId, rows));
  }

  const lanes: SiteLane[] = (record?.lanes ?? []).map(({ id, provider, model, driver }) => ({
    id,
    provider,
    model,
    driver,
  }));
  const suiteFingerprint = record?.suiteFingerprint ?? null;
  const completeness: SiteCompleteness =
    record === null ? 'unknown' : record.complete === true ? 'complete' : 'partial';
  // A re-render under another id made no provider call: upstream's report refresh (providerCalls 0).
  const providerCalls = siteId !== campaignId ? 0 : record === null ? null : (record.totals?.tries ?? null);
  const kind: SiteKind =
    siteId !== campaignId
      ? 'rerender'
      : record === null
        ? 'run'
        : providerCalls === 0 || refreshOf(campaignId) !== null
          ? 'rerender'
          : 'campaign';
  const cells = full.grid.map((cell) => ({
    caseId: cell.caseId,
    configId: cell.configId,
    solved: cell.solved,
    counted: cell.denominator.counted,
  }));
  const solved = cells.reduce((sum, cell) => sum + cell.solved, 0);
  const counted = cells.reduce((sum, cell) => sum + cell.counted, 0);
  const campaign: SiteCampaign = {
    schema: SITE_CAMPAIGN_V1,
    campaignId: siteId,
    folder,
    kind,
    completeness,
    partialReasons: completeness === 'partial' ? [...(record?.partial ?? [])] : [],
    refreshOf:
      kind === 'rerender' ? (refreshOf(siteId) ?? (siteId === campaignId ? null : campaignId)) : null,
    public: options.public,
    suiteFingerprint,
    lanes,
    comparableKey: comparableKeyOf(lanes, suiteFingerprint),
    startedAt: record?.timing?.startedAt ?? firstStart,
    providerCalls,
    attempts: full.attempts,
    solved,
    counted,
    passRate: counted === 0 ? null : solved / counted,
    statusCounts: full.statusCounts,
    cost,
    cells,
    cases: full.cases,
    configs: full.configs,
  };
  await options.emit('campaign.json', `${JSON.stringify(campaign, null, 2)}\n`);
  return campaign;
}

/**
 * The replay with its config's model and driver from the ledger (the attempt's eval session, else the
 * campaign record's lane), never from an environment file: a site's pages depend on the ledger alone.
 */
function withLedgerModel(replay: AttemptReplay, model: ReturnType<typeof modelOf>): AttemptReplay {
  const named = [model.provider, model.requestedModel].filter((part) => part !== null).join(' · ');
  return {
    ...replay,
    config: { model: named === '' ? null : named, driver: model.driver, description: null },
  };
}

/**
 * The summary a public grid shows, field by field: the same aggregates (counts, rates, intervals,
 * ids), no retraction text (who retracted what, and why, stays private), no comparison, nothing
 * keyed by check id (check drift, soft failures, check rates: a runner's per-call check ids carry
 * session ids), and of the suite's identity only the configs' model and driver (no prompt).
 */
function publicSummary(summary: EvalbookSummary): EvalbookSummary {
  return {
    schema: summary.schema,
    denominatorPolicy: summary.denominatorPolicy,
    runScope: summary.runScope,
    attempts: summary.attempts,
    statusCounts: summary.statusCounts,
    leftOut: summary.leftOut,
    includeForeign: summary.includeForeign,
    foreignIncluded: summary.foreignIncluded,
    retractions: [],
    artifactVerification: summary.artifactVerification,
    runs: summary.runs,
    cases: summary.cases,
    configs: summary.configs,
    grid: summary.grid,
    gridRuns: summary.gridRuns,
    configStats: summary.configStats,
    latestConfigStats: summary.latestConfigStats,
    trend: summary.trend,
    flakyCells: summary.flakyCells,
    coverage: summary.coverage,
    comparison: null,
    policy: summary.policy,
    latestRun: summary.latestRun,
    latestGrid: summary.latestGrid,
    checkDrift: [],
    softFailures: [],
    checkRates: [],
    perCallObservations: summary.perCallObservations,
    // Model/config identity is public; a case's prompt and description are the suite's, not published.
    identity: {
      cases: [],
      configs: summary.identity.configs.map(({ configId, model, driver }) => ({
        configId,
        model,
        driver,
        description: null,
      })),
    },
  };
}
