// The report model: what every renderer reads (the JSON report's attempt row, budgets, the result of
// a report) and the JSON report's own shape (paperclip-evals/report/v1). report.ts builds it and the
// renderers (markdown, JUnit, CSV, HTML) import it; it imports no renderer.
import { shownText } from './masked.js';

import type { GridView, ShownView } from '../analysis/grid-view.js';
import type { GateVerdicts } from '../analysis/gates.js';
import type { AttemptVerdict } from '../analysis/scoring.js';
import type { EvalbookSummary } from '../analysis/summary.js';
import type { AttemptKey, ScoreRow } from '../ledger/convert.js';
import type { BudgetCheck } from '../ledger/cost.js';
import type { StoredAttempt } from '../ledger/store.js';

export const REPORT_V1 = 'paperclip-evals/report/v1';

export type ReportFormat = 'json' | 'md' | 'html' | 'junit' | 'csv';
export const REPORT_FORMATS: readonly ReportFormat[] = ['json', 'md', 'html', 'junit', 'csv'];

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
  /** The eval-session artifact the attempt came through (without the artifact itself), if any. */
  readonly evalSession?: Omit<NonNullable<LedgerFields['evalSession']>, 'artifact'>;
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
  /** Which runs the report's grid surfaces show first: newest_run (default) or all_runs (--all-runs). */
  readonly gridView: GridView;
  /** The view the report's verdicts, rates and gates follow: its kind, run and runs, in words too. */
  readonly view: ShownView;
  readonly summary: EvalbookSummary;
  readonly budgets: readonly ReportBudget[];
  readonly gate: GateVerdicts | null;
}

/**
 * One attempt as the JSON report lists it: what a reader needs to trust or question the row. Its
 * free text — the status reason, the failure's code and message, the transcript's omission reason,
 * each check's reason, the environment mismatches' values — is shown masked
 * (masked.ts shownText), as every report shows recorded text; ids, digests, statuses and numbers are
 * kept as recorded (docs/reports.md).
 */
export function reportAttempt(stored: StoredAttempt, verdict: AttemptVerdict): ReportAttempt {
  const record = stored.record;
  const shown = (value: string | null): string | null => (value === null ? null : shownText(value));
  return {
    ...stored.key,
    status: verdict.status,
    statusReason: shown(verdict.reason),
    bundleDigest: stored.bundleDigest,
    provenance: record.provenance,
    runner: {
      package: `${record.runner.packageName}@${record.runner.packageVersion}`,
      driver: `${record.runner.driverKind}@${record.runner.driverVersion}`,
    },
    terminal: record.terminal,
    failure:
      record.failure === null
        ? null
        : {
            ...record.failure,
            code: shownText(record.failure.code),
            message: shownText(record.failure.message),
          },
    ...(record.evalSession === undefined ? {} : { evalSession: withoutArtifact(record.evalSession) }),
    transcript: { ...record.transcript, omissionReason: shown(record.transcript.omissionReason) },
    toolCalls: record.toolCalls.length,
    denials: record.denials,
    usage: record.usage,
    cost: record.cost,
    environmentMismatch: record.environmentMismatch.map((mismatch) => ({
      ...mismatch,
      expected: shown(mismatch.expected),
      received: shownText(mismatch.received),
    })),
    checks: stored.scores.map((score) => ({
      checkId: score.checkId,
      layer: score.layer,
      status: score.status,
      score: score.score,
      reason: shown(score.reason),
    })),
  };
}

function withoutArtifact({
  artifact: _artifact,
  ...summary
}: NonNullable<LedgerFields['evalSession']>): NonNullable<ReportAttempt['evalSession']> {
  return summary;
}

/** The HTML page embeds at most this many attempts for drill-down; the rest are counted, not shown. */
export const HTML_MAX_ATTEMPTS = 5000;
/**
 * Of those, the first this many carry their replay (about 10 KB of HTML each for a short attempt);
 * the drill-down names the command that writes any other's (`evals report --attempt`).
 */
export const HTML_MAX_REPLAYS = 500;
