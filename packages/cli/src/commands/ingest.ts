// `evals ingest`: stream attempt bundles into an Evalbook store and print what happened (a human
// summary, or one JSON report with --json). A progress line goes to stderr only when it is a TTY.
// Case checks in model layers (llm_judge, embedding) get the provider the checks engine would get
// from the same EVALS_ENGINE_PROVIDER_* variables; without one they are stored not_evaluated.
// With --env, attempts not of its suite are refused (nothing written) unless --keep-foreign.
// Exit: 0 only inserted/duplicates · 1 conflicts, invalid bundles or refused foreign attempts · 2 usage
// error, unreadable input or a bundle the store refused (the others are written).
import { ProviderConfigError, engineOptionsFromEnv } from '@paperclip-evals/checks';
import {
  artifactCountsText,
  formatUsd,
  ingest,
  isEvalbookError,
  ingestExitCode,
} from '@paperclip-evals/evalbook';

import type { Issue } from '@paperclip-evals/contract';
import type { CaseCheckModels, IngestProgress, IngestSummary } from '@paperclip-evals/evalbook';

import { UsageError, show } from '../exit-codes.js';
import { progressText } from '../progress.js';
import { clearProgress, drawProgress, painted, printJson, printLines } from '../print.js';

import type { Line } from '../print.js';

export interface IngestCommandOptions {
  readonly inputs: readonly string[];
  readonly store?: string;
  readonly env?: string;
  readonly artifactRoot?: string;
  readonly keepForeign?: boolean;
  readonly json: boolean;
}

export const INGEST_REPORT_V1 = 'paperclip-evals/ingest-report/v1';

/** `evals ingest --json` (schemas/evals/ingest-report-v1.schema.json): the summary and its exit code. */
export type IngestReport = {
  readonly schema: typeof INGEST_REPORT_V1;
  readonly exitCode: ReturnType<typeof ingestExitCode>;
} & IngestSummary;

export async function runIngest(options: IngestCommandOptions): Promise<number> {
  const started = performance.now();
  const tty = process.stderr.isTTY;
  const onProgress = (progress: IngestProgress): void => {
    const problems = progress.conflicts + progress.invalid + progress.unreadable + progress.storeRefused;
    drawProgress(
      progressText(
        'ingesting',
        progress.processed,
        progress.total,
        (performance.now() - started) / 1000,
        `${progress.inserted} inserted, ${progress.duplicates} duplicate, ${problems} problem(s)`,
      ),
    );
  };
  let summary: IngestSummary;
  try {
    const models = caseCheckModels();
    summary = await ingest({
      ...(models === undefined ? {} : { models }),
      inputs: options.inputs,
      ...(options.store === undefined ? {} : { storeUrl: options.store }),
      ...(options.env === undefined ? {} : { environmentPath: options.env }),
      ...(options.artifactRoot === undefined ? {} : { artifactRoot: options.artifactRoot }),
      ...(tty ? { onProgress } : {}),
      keepForeign: options.keepForeign === true,
      writerThread: true,
    });
  } catch (error) {
    if (isEvalbookError(error, 'paperclip_evalbook_ingest_usage_invalid'))
      throw new UsageError(error.message);
    throw error;
  } finally {
    if (tty) clearProgress();
  }
  const code = ingestExitCode(summary);
  if (options.json) {
    printJson({ schema: INGEST_REPORT_V1, exitCode: code, ...summary } satisfies IngestReport);
    return code;
  }
  const lines: Line[] = [];
  for (const conflict of summary.conflicts)
    lines.push(
      [
        painted('red', 'conflict  '),
        ` ${conflict.input}  ${conflict.key.runId}/${conflict.key.caseId}/${conflict.key.configId}/${conflict.key.attemptId}`,
      ],
      `    stored ${conflict.existingDigest}, this bundle ${conflict.bundleDigest} (nothing overwritten)`,
    );
  const issueLines = (issues: readonly Issue[]): string[] =>
    issues.flatMap((issue) => [
      `    ${issue.code} at ${issue.path === '' || issue.path === undefined ? '(root)' : issue.path}: ${issue.message}`,
      `      expected: ${show(issue.expected)}  received: ${show(issue.received)}`,
    ]);
  for (const invalid of summary.invalid)
    lines.push(
      [painted('red', 'invalid   '), ` ${invalid.input}  ${invalid.issues.length} issue(s), not written`],
      ...issueLines(invalid.issues),
    );
  for (const unreadable of summary.unreadable)
    lines.push([painted('yellow', 'unreadable'), ` ${unreadable.input}  ${unreadable.error}`]);
  for (const refused of summary.storeRefused)
    lines.push(
      [
        painted('red', 'not stored'),
        ` ${refused.input}  ${refused.key.runId}/${refused.key.caseId}/${refused.key.configId}/${refused.key.attemptId}  the store refused this valid bundle (the others were written): ${refused.error.message}`,
      ],
      ...issueLines(refused.error.issues),
    );
  for (const foreign of summary.foreign)
    lines.push(
      [
        painted(summary.keepForeign ? 'yellow' : 'red', 'foreign   '),
        ` ${foreign.input}  ${foreign.key.runId}/${foreign.key.caseId}/${foreign.key.configId}/${foreign.key.attemptId}  ${summary.keepForeign ? 'kept apart: reports leave it out unless --include-foreign' : "not of the environment's suite"}`,
      ],
      ...issueLines(foreign.issues),
    );
  const refusedForeign = !summary.keepForeign && summary.foreign.length > 0;
  if (refusedForeign)
    lines.push(
      '',
      `nothing written: ${summary.foreign.length} attempt(s) are not of the environment's suite. Ingest them with their own environment, correct the environment (ids, digests), or pass --keep-foreign to store them apart (reports leave them out unless --include-foreign).`,
    );
  const total = summary.coverage.pricedTotalNanodollars;
  if (lines.length > 0) lines.push('');
  lines.push(
    `${summary.store}: ${summary.inserted} inserted, ${summary.duplicates} duplicate, ${summary.conflicts.length} conflict, ${summary.invalid.length} invalid, ${summary.unreadable.length} unreadable, ${summary.storeRefused.length} not stored, ${summary.foreign.length} foreign${summary.foreign.length === 0 ? '' : summary.keepForeign ? ' (kept apart)' : ' (refused)'}`,
    summary.inserted === 0
      ? 'cost: no new attempts to price'
      : `cost of the new attempts: ${summary.coverage.text}; priced total ${formatUsd(total)}${summary.coverage.unpriced > 0 ? ' (unpriced attempts are not counted as zero)' : ''}`,
  );
  lines.push(
    `artifacts of the valid attempts: ${artifactCountsText(summary.artifacts)}${options.artifactRoot === undefined ? ' (no --artifact-root: nothing could be verified)' : ''}`,
  );
  const usage = summary.checkModelUsage;
  if (usage !== null)
    lines.push(
      `model calls for case checks: ${usage.model_calls} (${usage.judge_calls} judge), $${usage.cost_usd.toFixed(6)}${usage.unpriced_calls > 0 ? `, ${usage.unpriced_calls} unpriced (not counted as zero)` : ''}`,
    );
  printLines('stdout', lines);
  return code;
}

/** The provider for model-layer case checks, from the engine's variables; undefined when none is set. */
function caseCheckModels(): CaseCheckModels | undefined {
  try {
    return engineOptionsFromEnv(process.env, () => undefined).models;
  } catch (error) {
    if (error instanceof ProviderConfigError) throw new UsageError(error.message);
    throw error;
  }
}
