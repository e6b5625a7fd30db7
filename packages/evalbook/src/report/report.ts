// `evals report`: one streaming pass over the store (attempts, then policy verdicts) builds the
// summary (summary.ts) and, for JSON and CSV, writes every attempt as it goes; then the chosen
// renderer writes the summary — JSON (paperclip-evals/report/v1), Markdown for a PR comment, JUnit XML
// for CI, or one self-contained HTML page (CSV is its rows only: one per attempt, for spreadsheets). Budgets from the environment and the --fail-on gates (gates.ts) are decided
// here too. Retracted attempts, and foreign ones unless includeForeign, are left out of all of it
// (attempts listed, budgets, gates) and counted as left out. What the renderers read (the JSON
// report's attempt row, budgets, the result) is the report model, model.ts. The HTML page embeds
// every attempt when they fit in HTML_MAX_ATTEMPTS; otherwise each cell's fair share, newest run and
// non-solved attempts first (embed-quotas.ts): the pass keeps their keys, and only the chosen
// attempts are read again, by key.
import { displayLocator, jsonText } from '@paperclip-evals/contract';

import { CoverageTally, checkBudget } from '../ledger/cost.js';
import { EvalbookError } from '../errors.js';
import { configOf, driftThresholdsOf } from '../ledger/environment.js';
import type { Environment } from '../ledger/environment.js';
import { assertGatesJudgeable, decideGates } from '../analysis/gates.js';
import type { FailOn } from '../analysis/gates.js';
import { buildAttemptReplay } from './attempt-replay.js';
import { renderHtml } from './html/render-html.js';
import type { HtmlAttempt } from './html/render-html.js';
import { csvHeader, csvRow } from './render-csv.js';
import { JunitAttempts, renderJunit } from './render-junit.js';
import { htmlReportHref, renderMarkdown } from './render-markdown.js';
import { HTML_MAX_ATTEMPTS, HTML_MAX_REPLAYS, REPORT_V1, reportAttempt } from './model.js';
import type { JsonReport, ReportBudget, ReportFormat, ReportResult } from './model.js';
import { SummaryBuilder } from '../analysis/summary.js';
import type { CompareSpec, DenominatorPolicy } from '../analysis/summary.js';
import { viewOf } from '../analysis/grid-view.js';
import type { GridView } from '../analysis/grid-view.js';
import { attemptVerdict, withExpectedChecks } from '../analysis/scoring.js';
import { EmbedKeys, embedQuotas, fairOrder } from './embed-quotas.js';
import type { AttemptVerdict } from '../analysis/scoring.js';
import type { AttemptKey } from '../ledger/convert.js';
import type { LedgerStore, StoredAttempt } from '../ledger/store.js';

export interface ReportOptions {
  readonly store: LedgerStore;
  /** How the store was named (shown in the report as displayLocator shows it: a password masked). */
  readonly storeUrl: string;
  readonly format?: ReportFormat;
  /** Supplies budgets, the denominator policy and the title; optional. */
  readonly environment?: Environment;
  readonly runId?: string;
  readonly compare?: CompareSpec;
  /** The --fail-on gates: every one is judged and must hold. */
  readonly failOn?: readonly FailOn[];
  /** Count attempts kept apart as foreign (default: left out, and said so). */
  readonly includeForeign?: boolean;
  /** Where the HTML report is published (http(s)); the Markdown report links it. Markdown only. */
  readonly htmlUrl?: string;
  /**
   * Which runs the grid surfaces show, and every verdict and rate beside them (Markdown's grid,
   * Configs and verdict line, JUnit's testcases, the HTML report's grid, configs and plots, the
   * below:RATE gate, a comparison of configs; the JSON report's gridView and view): the newest run
   * with each cell's trend (default), or all runs pooled.
   */
  readonly gridView?: GridView;
  /** Receives the report text in order; awaited, so a slow file or pipe holds the reader back. */
  readonly write: (chunk: string) => Promise<void>;
  /** Called every `progressEvery` attempts read (for a progress line on a terminal). */
  readonly onProgress?: (attemptsRead: number) => void;
  /** How many attempts between two onProgress calls (a positive integer); PROGRESS_EVERY by default. */
  readonly progressEvery?: number;
}

/** How often a long report says how far it has read. */
export const PROGRESS_EVERY = 5000;
/** Flushes buffered JSON attempt lines every this many attempts. */
const CHUNK_ATTEMPTS = 200;

/**
 * Throws EvalbookError paperclip_evalbook_report_option_invalid for an htmlUrl that is not a plain
 * http(s) URL (htmlReportHref) or that is given for a format other than Markdown — before any store
 * is read, so the mistake costs nothing.
 */
export function assertReportOptions(options: Pick<ReportOptions, 'format' | 'htmlUrl'>): void {
  if (options.htmlUrl === undefined) return;
  if ((options.format ?? 'json') !== 'md')
    throw new EvalbookError(
      'paperclip_evalbook_report_option_invalid',
      `--html-url links the published HTML report from the Markdown report: it needs --format md (received --format ${options.format ?? 'json'})`,
    );
  htmlReportHref(options.htmlUrl);
}

/** Writes the report; returns the summary, budgets and gate outcome (for the exit code). */
export async function writeReport(options: ReportOptions): Promise<ReportResult> {
  const format = options.format ?? 'json';
  const gridView = options.gridView ?? 'newest_run';
  const failOn = options.failOn ?? [];
  assertGatesJudgeable(failOn, options.compare);
  assertReportOptions(options);
  const policy: DenominatorPolicy = options.environment?.report?.denominator ?? 'all_attempts';
  const environment = options.environment;
  const builder = new SummaryBuilder({
    policy,
    driftThresholdOf: driftThresholdsOf(environment),
    ...(options.runId === undefined ? {} : { runId: options.runId }),
    ...(options.compare === undefined ? {} : { compare: options.compare }),
    view: gridView,
    includeForeign: options.includeForeign === true,
    retractions: await options.store.retractions(),
    retried: await options.store.retriedTries(),
    ...(environment === undefined ? {} : { suite: environment }),
  });
  const budgetTallies = new BudgetTallies();
  const htmlAttempts: HtmlAttempt[] = [];
  const embedKeys = new EmbedKeys<AttemptKey>(HTML_MAX_ATTEMPTS);
  /** The first HTML_MAX_ATTEMPTS attempts: the page's, when every attempt fits. */
  const embedded: Embedded[] = [];
  const junitAttempts = new JunitAttempts();

  // The JSON report (JsonReport) is streamed member by member, in this order: its head, each
  // attempt, then the tail.
  const head: Pick<JsonReport, 'schema' | 'store'> = {
    schema: REPORT_V1,
    store: displayLocator(options.storeUrl),
  };
  if (format === 'json')
    await options.write(
      `{\n"schema": ${jsonText(head.schema)},\n"store": ${jsonText(head.store)},\n"attempts": [`,
    );
  else if (format === 'csv') await options.write(csvHeader());
  let count = 0;
  let buffer = '';
  let read = 0;
  const every = options.progressEvery ?? PROGRESS_EVERY;
  for await (const stored of withExpectedChecks(options.store.attempts(), environment)) {
    if (++read % every === 0) options.onProgress?.(read);
    const verdict = builder.add(stored);
    // Left out (retracted, foreign): not listed, not in a budget; a retried try is not listed
    // either, but what it spent was spent. With --run, the attempts listed and the budgets are that
    // run's (the summary's totals are too).
    if (!builder.inScope(stored.key.runId)) continue;
    if (verdict === null) {
      if (builder.leftOut(stored) === 'retried') budgetTallies.add(stored);
      continue;
    }
    budgetTallies.add(stored);
    if (format === 'json') {
      // jsonText: exact JSON that is as safe as the CLI's --json when it lands on a terminal or CI log.
      buffer += `${count === 0 ? '' : ','}\n${jsonText(reportAttempt(stored, verdict))}`;
      if ((count + 1) % CHUNK_ATTEMPTS === 0) {
        await options.write(buffer);
        buffer = '';
      }
    } else if (format === 'csv') {
      buffer += csvRow(stored, verdict, configOf(environment, stored.key.configId)?.model);
      if ((count + 1) % CHUNK_ATTEMPTS === 0) {
        await options.write(buffer);
        buffer = '';
      }
    } else if (format === 'junit') junitAttempts.add(stored, verdict);
    else if (format === 'html') {
      const { runId, caseId, configId } = stored.key;
      embedKeys.add(runId, caseId, configId, verdict.status === 'solved', stored.key);
      if (embedded.length < HTML_MAX_ATTEMPTS) embedded.push({ stored, verdict });
    }
    count++;
  }
  for await (const verdict of options.store.policyVerdicts()) builder.addPolicyVerdict(verdict);
  const summary = builder.build();
  if (format === 'html') {
    const chosen =
      count > HTML_MAX_ATTEMPTS
        ? await readChosen(
            options,
            embedKeys.chosen(embedQuotas(builder.cellRunCounts(), summary.runs, HTML_MAX_ATTEMPTS)),
          )
        : embedded;
    // Cell by cell in turn (each cell's newest run and non-solved first), so the replays the page
    // carries (the first HTML_MAX_REPLAYS) reach every cell before a second attempt of any.
    const ordered = fairOrder(chosen, summary.runs, (entry) => ({
      ...entry.stored.key,
      solved: entry.verdict.status === 'solved',
    }));
    for (const { stored, verdict } of ordered)
      htmlAttempts.push({
        ...reportAttempt(stored, verdict),
        // The drill-down's replay of the attempt: the same model and renderer as its own page.
        replay:
          htmlAttempts.length < HTML_MAX_REPLAYS
            ? buildAttemptReplay({
                attempt: stored,
                bundleText: await options.store.getBundle(stored.bundleDigest),
                verdict,
                ...(environment === undefined ? {} : { environment }),
              })
            : null,
      });
  }
  const budgets = budgetTallies.checks(options.environment);
  const gate = decideGates(failOn, summary, gridView);
  const title = options.environment?.report?.title ?? options.environment?.name ?? 'Evalbook report';

  if (format === 'json') {
    const tail: Pick<JsonReport, 'attemptCount' | 'gridView' | 'view' | 'summary' | 'budgets' | 'gate'> = {
      attemptCount: count,
      gridView,
      view: viewOf(summary, gridView),
      summary,
      budgets,
      gate,
    };
    const fields = Object.entries(tail)
      .map(([name, value]) => `${jsonText(name)}: ${jsonText(value, 2)}`)
      .join(',\n');
    await options.write(`${buffer}\n],\n${fields}\n}\n`);
  } else if (format === 'csv') await options.write(buffer);
  else if (format === 'md')
    await options.write(
      renderMarkdown({
        title,
        summary,
        budgets,
        gate,
        gridView,
        ...(options.htmlUrl === undefined ? {} : { htmlUrl: options.htmlUrl }),
      }),
    );
  else if (format === 'junit')
    await options.write(renderJunit({ title, summary, gate, gridView, attempts: junitAttempts }));
  else
    await options.write(
      renderHtml({
        title,
        storeUrl: displayLocator(options.storeUrl),
        summary,
        budgets,
        gate,
        gridView,
        attempts: htmlAttempts,
      }),
    );
  return { summary, budgets, gate };
}

/** An attempt the page may embed, with its verdict. */
interface Embedded {
  readonly stored: StoredAttempt;
  readonly verdict: AttemptVerdict;
}

/**
 * The chosen attempts, read again by key (with the environment's expected checks, as in the pass):
 * what the page embeds when not every attempt fits.
 */
async function readChosen(options: ReportOptions, keys: readonly AttemptKey[]): Promise<Embedded[]> {
  async function* read(): AsyncIterable<StoredAttempt> {
    for (const key of keys) {
      const stored = await options.store.getAttempt(key);
      if (stored !== null) yield stored;
    }
  }
  const chosen: Embedded[] = [];
  for await (const stored of withExpectedChecks(read(), options.environment))
    chosen.push({ stored, verdict: attemptVerdict(stored.record, stored.scores) });
  return chosen;
}

/** Cost per run and per (run, config), for the environment's budgets. */
class BudgetTallies {
  private readonly byRun = new Map<string, CoverageTally>();
  private readonly byRunConfig = new Map<string, { runId: string; configId: string; tally: CoverageTally }>();

  add(stored: StoredAttempt): void {
    const { runId, configId } = stored.key;
    let run = this.byRun.get(runId);
    if (run === undefined) this.byRun.set(runId, (run = new CoverageTally()));
    run.add(stored.record.cost);
    const key = JSON.stringify([runId, configId]);
    let config = this.byRunConfig.get(key);
    if (config === undefined)
      this.byRunConfig.set(key, (config = { runId, configId, tally: new CoverageTally() }));
    config.tally.add(stored.record.cost);
  }

  checks(environment: Environment | undefined): ReportBudget[] {
    const limits = environment?.budgets;
    const budgets: ReportBudget[] = [];
    if (limits?.perRunUsd !== undefined)
      for (const [runId, tally] of this.byRun)
        budgets.push({
          scope: 'run',
          runId,
          configId: null,
          ...checkBudget(limits.perRunUsd, tally.summary()),
        });
    if (limits?.perConfigUsd !== undefined)
      for (const { runId, configId, tally } of this.byRunConfig.values())
        budgets.push({
          scope: 'config',
          runId,
          configId,
          ...checkBudget(limits.perConfigUsd, tally.summary()),
        });
    return budgets;
  }
}
