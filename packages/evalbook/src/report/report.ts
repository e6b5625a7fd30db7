// `evals report`: one streaming pass over the store (attempts, then policy verdicts) builds the
// summary (summary.ts) and, for JSON, writes every attempt as it goes; then the chosen renderer writes
// the summary — JSON (paperclip-evals/report/v1), Markdown for a PR comment, JUnit XML for CI, or one
// self-contained HTML page. Budgets from the environment and the --fail-on gates (gates.ts) are decided
// here too. Retracted attempts, and foreign ones unless includeForeign, are left out of all of it
// (attempts listed, budgets, gates) and counted as left out.
import { displayLocator, jsonText } from '@paperclip-evals/contract';

import { CoverageTally, checkBudget } from './cost.js';
import type { BudgetCheck } from './cost.js';
import { driftThresholdsOf } from './environment.js';
import type { Environment } from './environment.js';
import { assertGatesJudgeable, decideGates } from './gates.js';
import type { FailOn, GateVerdicts } from './gates.js';
import { renderHtml } from './render-html.js';
import type { HtmlAttempt } from './render-html.js';
import { renderJunit } from './render-junit.js';
import { renderMarkdown } from './render-markdown.js';
import { SummaryBuilder } from './summary.js';
import type { CompareSpec, DenominatorPolicy, EvalbookSummary } from './summary.js';
import { withExpectedChecks } from './scoring.js';
import type { AttemptVerdict } from './scoring.js';
import type { LedgerStore, StoredAttempt } from './store.js';
import type { AttemptKey, ScoreRow } from './convert.js';

export const REPORT_V1 = 'paperclip-evals/report/v1';

export type ReportFormat = 'json' | 'md' | 'html' | 'junit';
export const REPORT_FORMATS: readonly ReportFormat[] = ['json', 'md', 'html', 'junit'];

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
  /** Receives the report text in order; awaited, so a slow file or pipe holds the reader back. */
  readonly write: (chunk: string) => Promise<void>;
  /** Called every PROGRESS_EVERY attempts read (for a progress line on a terminal). */
  readonly onProgress?: (attemptsRead: number) => void;
}

/** How often a long report says how far it has read. */
export const PROGRESS_EVERY = 5000;

export interface ReportBudget extends BudgetCheck {
  readonly scope: 'run' | 'config';
  readonly runId: string;
  readonly configId: string | null;
}

export interface ReportResult {
  readonly summary: EvalbookSummary;
  readonly budgets: readonly ReportBudget[];
  /** Every gate's verdict, or null without --fail-on. */
  readonly gate: GateVerdicts | null;
}

type LedgerFields = StoredAttempt['record'];

/**
 * One attempt as the JSON report lists it (schemas/evals/report-v1.schema.json): what a reader
 * needs to trust or question the row.
 */
export interface ReportAttempt extends AttemptKey {
  readonly status: AttemptVerdict['status'];
  readonly statusReason: AttemptVerdict['reason'];
  readonly bundleDigest: string;
  readonly provenance: LedgerFields['provenance'];
  /** `name@version` of the runner package and of its harness driver. */
  readonly runner: { readonly package: string; readonly driver: string };
  readonly terminal: LedgerFields['terminal'];
  readonly failure: LedgerFields['failure'];
  readonly transcript: LedgerFields['transcript'];
  /** How many tool calls the attempt made. */
  readonly toolCalls: number;
  readonly denials: number;
  readonly usage: LedgerFields['usage'];
  readonly cost: LedgerFields['cost'];
  readonly environmentMismatch: LedgerFields['environmentMismatch'];
  readonly checks: readonly Pick<ScoreRow, 'checkId' | 'layer' | 'status' | 'score' | 'reason'>[];
}

/** `evals report --format json` (paperclip-evals/report/v1, schemas/evals/report-v1.schema.json). */
export interface JsonReport {
  readonly schema: typeof REPORT_V1;
  /** The store as displayLocator shows it (a password masked). */
  readonly store: string;
  readonly attempts: readonly ReportAttempt[];
  readonly attemptCount: number;
  readonly summary: EvalbookSummary;
  readonly budgets: readonly ReportBudget[];
  readonly gate: GateVerdicts | null;
}

/** One attempt as the JSON report lists it: what a reader needs to trust or question the row. */
export function reportAttempt(stored: StoredAttempt, verdict: AttemptVerdict): ReportAttempt {
  const record = stored.record;
  return {
    ...stored.key,
    status: verdict.status,
    statusReason: verdict.reason,
    bundleDigest: stored.bundleDigest,
    provenance: record.provenance,
    runner: {
      package: `${record.runner.packageName}@${record.runner.packageVersion}`,
      driver: `${record.runner.driverKind}@${record.runner.driverVersion}`,
    },
    terminal: record.terminal,
    failure: record.failure,
    transcript: record.transcript,
    toolCalls: record.toolCalls.length,
    denials: record.denials,
    usage: record.usage,
    cost: record.cost,
    environmentMismatch: record.environmentMismatch,
    checks: stored.scores.map((score) => ({
      checkId: score.checkId,
      layer: score.layer,
      status: score.status,
      score: score.score,
      reason: score.reason,
    })),
  };
}

/** The HTML page embeds at most this many attempts for drill-down; the rest are counted, not shown. */
export const HTML_MAX_ATTEMPTS = 5000;
/** Flushes buffered JSON attempt lines every this many attempts. */
const CHUNK_ATTEMPTS = 200;

/** Writes the report; returns the summary, budgets and gate outcome (for the exit code). */
export async function writeReport(options: ReportOptions): Promise<ReportResult> {
  const format = options.format ?? 'json';
  const failOn = options.failOn ?? [];
  assertGatesJudgeable(failOn, options.compare);
  const policy: DenominatorPolicy = options.environment?.report?.denominator ?? 'all_attempts';
  const environment = options.environment;
  const builder = new SummaryBuilder({
    policy,
    driftThresholdOf: driftThresholdsOf(environment),
    ...(options.runId === undefined ? {} : { runId: options.runId }),
    ...(options.compare === undefined ? {} : { compare: options.compare }),
    includeForeign: options.includeForeign === true,
    retractions: await options.store.retractions(),
  });
  const budgetTallies = new BudgetTallies();
  const htmlAttempts: HtmlAttempt[] = [];

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
  let count = 0;
  let buffer = '';
  let read = 0;
  for await (const stored of withExpectedChecks(options.store.attempts(), environment)) {
    if (++read % PROGRESS_EVERY === 0) options.onProgress?.(read);
    const verdict = builder.add(stored);
    // Left out (retracted, foreign): not listed, not in a budget. With --run, the attempts listed and
    // the budgets are that run's (the summary's totals are too).
    if (verdict === null || !builder.inScope(stored.key.runId)) continue;
    budgetTallies.add(stored);
    if (format === 'json') {
      // jsonText: exact JSON that is as safe as the CLI's --json when it lands on a terminal or CI log.
      buffer += `${count === 0 ? '' : ','}\n${jsonText(reportAttempt(stored, verdict))}`;
      if ((count + 1) % CHUNK_ATTEMPTS === 0) {
        await options.write(buffer);
        buffer = '';
      }
    } else if (format === 'html' && htmlAttempts.length < HTML_MAX_ATTEMPTS)
      htmlAttempts.push({ ...reportAttempt(stored, verdict), toolCallDetails: stored.record.toolCalls });
    count++;
  }
  for await (const verdict of options.store.policyVerdicts()) builder.addPolicyVerdict(verdict);
  const summary = builder.build();
  const budgets = budgetTallies.checks(options.environment);
  const gate = decideGates(failOn, summary);
  const title = options.environment?.report?.title ?? options.environment?.name ?? 'Evalbook report';

  if (format === 'json') {
    const tail: Pick<JsonReport, 'attemptCount' | 'summary' | 'budgets' | 'gate'> = {
      attemptCount: count,
      summary,
      budgets,
      gate,
    };
    const fields = Object.entries(tail)
      .map(([name, value]) => `${jsonText(name)}: ${jsonText(value, 2)}`)
      .join(',\n');
    await options.write(`${buffer}\n],\n${fields}\n}\n`);
  } else if (format === 'md') await options.write(renderMarkdown({ title, summary, budgets, gate }));
  else if (format === 'junit') await options.write(renderJunit({ title, summary, gate }));
  else
    await options.write(
      renderHtml({
        title,
        storeUrl: displayLocator(options.storeUrl),
        summary,
        budgets,
        gate,
        attempts: htmlAttempts,
      }),
    );
  return { summary, budgets, gate };
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
