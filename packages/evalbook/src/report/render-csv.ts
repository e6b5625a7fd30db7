// The CSV report (`evals report --format csv`), for spreadsheets: a header row, then one row per
// attempt counted (as the JSON report lists them), streamed by report.ts. RFC 4180: fields are
// separated by commas, rows end with CRLF, and a field holding a comma, a quote, CR or LF is quoted
// with its quotes doubled. Every field is text as it reaches a person or a program:
//   - control and format characters (and the backslash) are written as terminalText (contract)
//     writes them, `\u001b`, `\n`, `\\`: a file printed on a terminal or a CI log runs nothing, and
//     every row is one line. The rendering is reversible (read the escapes as a JSON string would);
//   - a field that would start with `=`, `+`, `-`, `@`, TAB, CR or `'` gets one `'` in front
//     (OWASP's CSV-injection rule; `'` too, so the rule is reversible): a spreadsheet never reads a
//     bundle's text as a formula. Remove one leading `'` to read the value back;
//   - a column of recorded free text (status_reason, model, provider, cost_source, failure_code,
//     environment_mismatch) is masked as every report shows recorded text (masked.ts): a reason
//     quoting `password=…` or an `sk-…` key reads `***`. Ids, digests and numbers are as recorded.
// Money is exact: USD as a nine-decimal string (formatUsd), empty when unknown with `unpriced` in
// cost_coverage — never 0. The columns are CSV_COLUMNS; docs/reports.md lists what each holds.
import { terminalText } from '@paperclip-evals/contract';

import { formatUsd } from '../ledger/cost.js';
import { shownText } from './masked.js';
import { attemptArtifactVerification } from '../ledger/convert.js';
import type { AttemptVerdict } from '../analysis/scoring.js';
import type { StoredAttempt } from '../ledger/store.js';

/** The columns, in order (the header row). */
export const CSV_COLUMNS = [
  'run',
  'case',
  'config',
  'attempt',
  'status',
  'status_reason',
  'model',
  'provider',
  'driver',
  'runner_package',
  'started_at',
  'duration_ms',
  'input_tokens',
  'output_tokens',
  'total_tokens',
  'requests',
  'cost_usd',
  'cost_coverage',
  'cost_source',
  'provider_reported_usd',
  'estimated_usd',
  'pricing_version',
  'legacy_ledger_usd',
  'checks_passed',
  'checks_failed',
  'checks_soft_failed',
  'checks_errored',
  'checks_not_evaluated',
  'tool_calls',
  'denials',
  'terminal_turn',
  'terminal_run',
  'failure_class',
  'failure_code',
  'transcript_complete',
  'artifacts',
  'environment_mismatch',
  'bundle_digest',
] as const;

export type CsvColumn = (typeof CSV_COLUMNS)[number];

/** Characters a spreadsheet reads as the start of a formula (OWASP), and the `'` that marks the guard. */
const FORMULA_START = /^[=+\-@\t\r']/;
/** Characters that make RFC 4180 quote a field. */
const NEEDS_QUOTES = /[",\r\n]/;

/** One field: escaped as terminal text, guarded against formulas, quoted when RFC 4180 needs it. */
export function csvField(value: string): string {
  const shown = terminalText(value);
  const guarded = FORMULA_START.test(shown) ? `'${shown}` : shown;
  return NEEDS_QUOTES.test(guarded) ? `"${guarded.replaceAll('"', '""')}"` : guarded;
}

/** One row of fields, CRLF-terminated. */
function csvLine(fields: readonly string[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

/** The header row. */
export function csvHeader(): string {
  return csvLine(CSV_COLUMNS);
}

/** USD with nine decimals, exact ("0.003750000"); empty when unknown. */
const usd = (nanodollars: number | null): string =>
  nanodollars === null ? '' : formatUsd(nanodollars).slice(1);

/**
 * One attempt's row. `model` is the eval-session's requested model when the attempt came through
 * one, else the environment config's model when the report has an environment, else empty.
 */
export function csvRow(stored: StoredAttempt, verdict: AttemptVerdict, configModel?: string): string {
  const { record, key } = stored;
  const cost = record.cost;
  const checks = (status: string): string =>
    String(stored.scores.filter((score) => score.status === status).length);
  const source =
    cost.coverage === 'provider_reported'
      ? (cost.providerReportedProvenance ?? '')
      : cost.coverage === 'unpriced'
        ? cost.notes.join(' ')
        : `estimate:${cost.estimateSource ?? '?'}`;
  const row: Record<CsvColumn, string> = {
    run: key.runId,
    case: key.caseId,
    config: key.configId,
    attempt: key.attemptId,
    status: verdict.status,
    status_reason: shownText(verdict.reason ?? ''),
    model: shownText(record.evalSession?.requestedModel ?? configModel ?? ''),
    provider: shownText(record.evalSession?.provider ?? ''),
    driver: `${record.runner.driverKind}@${record.runner.driverVersion}`,
    runner_package: `${record.runner.packageName}@${record.runner.packageVersion}`,
    started_at: record.startedAt ?? '',
    duration_ms: String(record.usage.durationMs),
    input_tokens: String(record.usage.inputTokens),
    output_tokens: String(record.usage.outputTokens),
    total_tokens: String(record.usage.totalTokens),
    requests: String(record.usage.requestCount),
    cost_usd: usd(cost.effectiveNanodollars),
    cost_coverage: cost.coverage,
    cost_source: shownText(source),
    provider_reported_usd: usd(cost.providerReportedNanodollars),
    estimated_usd: usd(cost.estimatedNanodollars),
    pricing_version: cost.pricingVersion ?? '',
    legacy_ledger_usd: usd(cost.legacyLedgerNanodollars),
    checks_passed: checks('pass'),
    checks_failed: checks('fail'),
    checks_soft_failed: checks('soft_fail'),
    checks_errored: checks('error'),
    checks_not_evaluated: checks('not_evaluated'),
    tool_calls: String(record.toolCalls.length),
    denials: String(record.denials),
    terminal_turn: record.terminal.turn,
    terminal_run: record.terminal.run,
    failure_class: record.failure?.classification ?? '',
    failure_code: shownText(record.failure?.code ?? ''),
    transcript_complete: String(record.transcript.complete),
    artifacts: attemptArtifactVerification(record.references.map((reference) => reference.verification)),
    environment_mismatch: shownText(
      record.environmentMismatch
        .map(
          (mismatch) =>
            `${mismatch.field}: expected ${mismatch.expected ?? 'none'}, received ${mismatch.received}`,
        )
        .join('; '),
    ),
    bundle_digest: stored.bundleDigest,
  };
  return csvLine(CSV_COLUMNS.map((column) => row[column]));
}
