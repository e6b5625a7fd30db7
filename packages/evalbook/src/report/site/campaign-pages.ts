// One campaign's folder of a published site (issue 19), in ONE streaming pass over the campaign's
// attempts (store.attempts(campaignId), through the run's index): each
// attempt of the campaign (runId = campaignId) is rendered and handed to `emit` as soon as it is read
// (never held as page text: 100,000 attempts are 100,000 writes, not one string; their bundles read
// RENDER_BATCH at a time within a page of 500 of the stream; with claimPage, only the pages this
// thread claims, the others rendered by threads running writeAttemptPages over the same stream),
// then the grid page
// (the report's renderHtml over this campaign's summary), a page per case and campaign.json. A private
// attempt page is the attempt replay's (buildAttemptReplay, renderAttemptPage); a public one is the
// allowlisted projection's. The
// folder's bytes depend on the campaign alone — never on other runs in the store, the store's name
// or the clock, nor on an optional flag (no environment file: a case's prompt or a config's
// model never come from `--env`; the model, provider and driver come from what the ledger holds, the
// attempt's eval session else the campaign record's lane; a case's prompt and description from the
// campaign record's caseDefinitions, record-cases.ts) — so publishing it again gives the same
// bytes. With `public`, every attempt goes
// through the closed allowlist (public-projection.ts), the grid embeds of each attempt only its ids,
// status and page link, and the summary no retraction text. Every file of the folder, private or public, has its credential-shaped values
// masked before it is emitted (contract's maskCredentialShapes: the shapes `evals publish --verify`
// refuses as site_credential), since a published folder is immutable: a retraction reason, a
// failure message, a tool's input or the agent's text holding a token would make it a folder that
// can never verify.
import { maskCredentialShapes } from '@paperclip-evals/contract';

import { EvalbookError } from '../../errors.js';
import { SummaryBuilder } from '../../analysis/summary.js';
import { attemptVerdict } from '../../analysis/scoring.js';
import { renderHtml } from '../html/render-html.js';
import { renderAttemptPageBytes } from '../html/attempt-page.js';
import { esc } from '../html/html-text.js';
import { buildAttemptReplay } from '../attempt-replay.js';
import { HTML_MAX_ATTEMPTS, HTML_MAX_REPLAYS, reportAttempt } from '../model.js';
import { conversationOf, modelOf, publicAttempt } from './public-projection.js';
import { recordCases, recordSuiteText } from './record-cases.js';
import { renderCasePage, renderPublicAttemptPage } from './site-html.js';
import { attemptPage, campaignFolder, casePage } from './site-names.js';
import { SITE_CAMPAIGN_V1, comparableKeyOf, refreshOf } from './site-model.js';

import type { EvalbookSummary, SummaryOptions } from '../../analysis/summary.js';
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
  /**
   * Publishing on several threads: returns the index of the next page of ATTEMPT_PAGE_SIZE attempts
   * (in the campaign's stream) this thread renders, from a counter the threads share, so each page
   * is claimed by one thread, in increasing order. Absent: this thread renders every attempt page.
   */
  readonly claimPage?: () => number;
}

/** What a thread that renders only attempt pages needs (writeAttemptPages). */
export type AttemptPagesOptions = Omit<CampaignPagesOptions, 'claimPage'> & {
  readonly claimPage: () => number;
};

/**
 * Attempts whose bundles are read in one query, and the share of a campaign one thread renders at
 * a time when several publish it (claimPage hands out these pages of the stream by index).
 */
export const ATTEMPT_PAGE_SIZE = 500;

/**
 * Within a claimed page of the stream, attempts are rendered as soon as this many have been read
 * (their bundles in one query): at most this many attempts and bundle texts wait at a time, not a
 * page's 500 (a real campaign's bundles are distinct; what waits long enough to outlive a scavenge
 * is promoted into the old generation as garbage, docs/benchmarks.md run 8).
 */
export const RENDER_BATCH = 50;

/** One counted attempt of the campaign, in the store's order. */
interface CountedAttempt {
  readonly stored: StoredAttempt;
  readonly verdict: AttemptVerdict;
  /** Its page's path in the folder, and its case page's. */
  readonly page: string;
  readonly caseHref: string;
  /** Its index among the campaign's counted attempts. */
  readonly position: number;
}

interface RecordFields {
  readonly complete?: boolean;
  readonly partial?: readonly string[];
  readonly suiteFingerprint?: string;
  readonly lanes?: readonly { id: string; provider: string; model: string; driver: string | null }[];
  readonly totals?: { readonly tries?: number };
  readonly timing?: { readonly startedAt?: string };
}

/**
 * The options with an emit that masks credential-shaped values in every text file; the one file
 * given as bytes, a private attempt page, is masked as every attempt page is (renderAttemptPageBytes).
 */
function masking<T extends CampaignPagesOptions>(options: T): T {
  const { emit } = options;
  return {
    ...options,
    emit: (path: string, content: string | Uint8Array) =>
      emit(path, typeof content === 'string' ? maskCredentialShapes(content) : content),
  };
}

/** Writes the campaign's pages through `emit` and returns its campaign.json (also emitted). */
export async function writeCampaignPages(unmasked: CampaignPagesOptions): Promise<SiteCampaign> {
  const options = masking(unmasked);
  const { store, campaignId } = options;
  const siteId = options.siteId ?? campaignId;
  const record = options.record as RecordFields | null;
  const builder = new SummaryBuilder(await summaryOptions(options));
  const cases = new Map<string, CaseRow[]>();
  const embedded: HtmlAttempt[] = [];
  const cost = {
    providerReportedNanodollars: 0,
    providerReportedAttempts: 0,
    estimatedNanodollars: 0,
    estimatedAttempts: 0,
    unpricedAttempts: 0,
  };
  // When the campaign's first try started, as the ledger holds it (set as the attempts are read).
  const first: { start: string | null } = { start: null };
  let seen = 0;
  // The grid embeds the first HTML_MAX_ATTEMPTS attempts, the first HTML_MAX_REPLAYS of them with
  // their replay, built after the stream — never kept from their page's render: replays of the
  // render that outlive it make V8 allocate every later page's replay objects straight into the old
  // generation (allocation-site pretenuring): 100,000 attempts' Mark-Compacts reclaimed 1,048 MB of
  // garbage with them kept, 607 MB without (docs/benchmarks.md, run 8).
  const replayed: CountedAttempt[] = [];
  const pages = pageContext(options);
  await streamAttemptPages(options, pages, {
    verdictOf: (stored) => {
      seen++;
      return builder.add(stored);
    },
    counted: (attempt) => {
      const { stored, verdict, page, position } = attempt;
      // Each embedded attempt links its page; a public grid's row is the public page's identity and
      // status only (no reason, cost or replay: the drill-down links the allowlisted page instead).
      if (position < HTML_MAX_ATTEMPTS) {
        if (options.public) embedded.push({ ...publicRow(stored, verdict), replay: null, page });
        else {
          embedded.push({ ...reportAttempt(stored, verdict), replay: null, page });
          if (position < HTML_MAX_REPLAYS) replayed.push(attempt);
        }
      }
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
      if (started !== null && (first.start === null || started < first.start)) first.start = started;
    },
  });
  for (let start = 0; start < replayed.length; start += RENDER_BATCH) {
    const batch = replayed.slice(start, start + RENDER_BATCH);
    const texts = await store.getBundles(batch.map(({ stored }) => stored.bundleDigest));
    for (const attempt of batch) {
      const entry = embedded[attempt.position];
      const replay = pages.replayOf(attempt, texts.get(attempt.stored.bundleDigest) ?? null);
      if (entry !== undefined) embedded[attempt.position] = { ...entry, replay };
    }
  }
  if (seen === 0)
    throw new EvalbookError(
      'paperclip_evalbook_scope_unknown',
      `the store holds no attempt of campaign ${JSON.stringify(campaignId)}: name a campaign (or run) that \`evals runs\` lists`,
      [
        {
          code: 'campaign_unknown',
          message: `no attempt with runId ${JSON.stringify(campaignId)}`,
          component: '--campaign',
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
    storeLabel: 'Campaign',
    storeUrl: `${campaignId}${siteId === campaignId ? '' : ` (re-rendered as ${siteId})`}${options.public ? ' (public projection)' : ''}`,
    summary,
    budgets: [],
    gate: null,
    attempts: embedded,
    site: {
      casePages: Object.fromEntries([...cases.keys()].sort().map((caseId) => [caseId, casePage(caseId)])),
    },
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
  // A campaign's calls are the tries the ledger holds of it (each an attempt), not the newest
  // record's run's: a rerun that found every try in the ledger (a no-op resume) is the same
  // campaign, with the same calls and the same folder, never a re-render.
  const kind: SiteKind =
    siteId !== campaignId || refreshOf(campaignId) !== null
      ? 'rerender'
      : record === null
        ? 'run'
        : 'campaign';
  // A retried try made its calls too, though only the final try of a planned attempt counts.
  const providerCalls =
    kind === 'rerender' ? 0 : record === null ? null : full.attempts + full.leftOut.retried;
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
    // When its first try started (the ledger's), not when its newest record's run did.
    startedAt: first.start ?? record?.timing?.startedAt ?? null,
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
 * Renders only the attempt pages this thread claims (publishing on several threads): the same
 * stream, in the same order and with the same verdicts as writeCampaignPages, so a page's attempts
 * and bytes are the same whichever thread renders it; the summary, grid and case pages are the
 * other thread's (writeCampaignPages).
 */
export async function writeAttemptPages(unmasked: AttemptPagesOptions): Promise<void> {
  const options = masking(unmasked);
  // The summary's own rule (SummaryBuilder.add): an attempt left out (retracted, retried, foreign) has no page.
  const rule = new SummaryBuilder(await summaryOptions(options));
  await streamAttemptPages(options, pageContext(options), {
    verdictOf: (stored) =>
      rule.leftOut(stored) === null ? attemptVerdict(stored.record, stored.scores) : null,
    counted: () => undefined,
  });
}

/** The campaign's summary settings: the one place writeCampaignPages and writeAttemptPages take them from. */
async function summaryOptions(options: CampaignPagesOptions): Promise<SummaryOptions> {
  const { store, campaignId } = options;
  return {
    policy: 'all_attempts',
    // A campaign wholly retracted since is still a folder: nothing of it counts, and it says so.
    leftOutRunAllowed: true,
    runId: campaignId,
    retractions: (await store.retractions()).filter((retraction) => retraction.runId === campaignId),
    retried: (await store.retriedTries()).filter((key) => key.runId === campaignId),
  };
}

/** What an attempt page is rendered from besides its attempt and bundle: the ledger alone. */
interface PageContext {
  /** The private page's replay (config model from the ledger, case prompt from the record). */
  readonly replayOf: (attempt: CountedAttempt, bundleText: string | null) => AttemptReplay;
  /** The page's bytes or text (private: the replay's; public: the allowlisted projection's). */
  readonly render: (attempt: CountedAttempt, bundleText: string | null) => string | Uint8Array;
}

function pageContext(options: CampaignPagesOptions): PageContext {
  const { campaignId } = options;
  const siteId = options.siteId ?? campaignId;
  const record = options.record as RecordFields | null;
  // A lane is a config of the suite (its id is the config's): its provider, model and driver.
  const laneOf = new Map((record?.lanes ?? []).map((lane) => [lane.id, lane]));
  const caseOf = recordCases(options.record);
  const suiteText = recordSuiteText(options.record);
  const replayOf = ({ stored, verdict }: CountedAttempt, bundleText: string | null): AttemptReplay =>
    withLedgerModel(
      buildAttemptReplay({ attempt: stored, bundleText, verdict, case: caseOf(stored.key.caseId) }),
      modelOf(stored, laneOf.get(stored.key.configId) ?? null),
    );
  return {
    replayOf,
    render: (attempt, bundleText) => {
      const { stored, verdict, caseHref } = attempt;
      // Private: the attempt replay (one model, one renderer, as the report's drill-down). Public:
      // the closed allowlist, rendered apart (the replay shows tool inputs and results).
      if (options.public) {
        const lane = laneOf.get(stored.key.configId) ?? null;
        return renderPublicAttemptPage(
          publicAttempt(stored, verdict, { conversation: conversationOf(bundleText), lane, suiteText }),
          caseHref,
        );
      }
      return renderAttemptPageBytes(replayOf(attempt, bundleText), {
        title: `Attempt ${stored.key.attemptId}`,
        links: [
          { href: '../../../index.html', label: 'All campaigns' },
          { href: '../index.html', label: `Campaign ${siteId}` },
          { href: `../${caseHref}`, label: `case ${stored.key.caseId}` },
        ],
      });
    },
  };
}

interface StreamHooks {
  /** The attempt's verdict, or null when it is left out (no page, counted nowhere). */
  readonly verdictOf: (stored: StoredAttempt) => AttemptVerdict | null;
  /** Each counted attempt, in the store's order, as it is read. */
  readonly counted: (attempt: CountedAttempt) => void;
}

/**
 * One pass over the campaign's attempts (store.attempts(campaignId), through the run's index: a
 * publication of N campaigns reads each attempt once; the runId check stays for a store that streams
 * all): each counted attempt is handed to `counted` as it is read, and the attempt pages of the pages
 * this thread claims (all of them without claimPage) are rendered and emitted RENDER_BATCH at a
 * time, their bundles read in one query (not one per attempt, a round trip each on PostgreSQL).
 */
async function streamAttemptPages(
  options: CampaignPagesOptions,
  pages: PageContext,
  hooks: StreamHooks,
): Promise<void> {
  const { store, campaignId, claimPage } = options;
  let claimed = claimPage?.() ?? 0;
  let position = 0;
  let waiting: CountedAttempt[] = [];
  const renderWaiting = async (): Promise<void> => {
    if (waiting.length === 0) return;
    const texts = await store.getBundles(waiting.map(({ stored }) => stored.bundleDigest));
    for (const attempt of waiting)
      await options.emit(attempt.page, pages.render(attempt, texts.get(attempt.stored.bundleDigest) ?? null));
    waiting = [];
  };
  for await (const stored of store.attempts(campaignId)) {
    if (stored.key.runId !== campaignId) continue;
    const verdict = hooks.verdictOf(stored);
    if (verdict === null) continue;
    const attempt: CountedAttempt = {
      stored,
      verdict,
      page: attemptPage(stored.key),
      caseHref: casePage(stored.key.caseId),
      position,
    };
    hooks.counted(attempt);
    const index = Math.floor(position / ATTEMPT_PAGE_SIZE);
    position++;
    const mine = claimPage === undefined || index === claimed;
    if (mine) waiting.push(attempt);
    if (waiting.length === RENDER_BATCH) await renderWaiting();
    if (position % ATTEMPT_PAGE_SIZE === 0) {
      // The end of a page of the stream: this thread's is rendered, and it claims its next one.
      await renderWaiting();
      if (claimPage !== undefined && mine) claimed = claimPage();
    }
  }
  await renderWaiting();
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

/** A public grid's row for an attempt, field by field (the public page's own identity and status). */
function publicRow(stored: StoredAttempt, verdict: AttemptVerdict): Readonly<Record<string, unknown>> {
  const { runId, caseId, configId, attemptId } = stored.key;
  return { runId, caseId, configId, attemptId, status: verdict.status };
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
