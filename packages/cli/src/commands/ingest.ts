// `evals ingest`: stream attempt bundles (and eval-session artifacts with their bundles) into an
// Evalbook store (the app's ingest workflow, which gives model-layer case checks the checks
// engine's provider settings) and print what happened (a human summary, or one JSON report with
// --json). A progress line goes to stderr only when it is a
// TTY. With --env, attempts not of its suite are refused (nothing written) unless --keep-foreign.
// Outcome: ok (only inserted/duplicates) · rejected (conflicts, invalid bundles or refused foreign
// attempts) · not_stored (an unreadable input or a bundle the store refused; the others are written).
import { ingestAttempts } from '@paperclip-evals/app/ingest';
import { isSha256Digest } from '@paperclip-evals/contract';
import { displayUsd, ingestArtifactCountsText, ingestExitCode } from '@paperclip-evals/evalbook';
import { noticeOnStop } from '@paperclip-evals/node';

import type { Issue } from '@paperclip-evals/contract';
import type { IngestProgress, IngestSummary } from '@paperclip-evals/evalbook';

import { cliIssues, exitCodeForOutcome, show, usageError } from '../exit-codes.js';
import { INGEST_REPORT_V1 } from '../output-schemas.js';
import { progressText } from '../progress.js';
import { clearProgress, drawProgress, isTerminal, painted, printJson, printLines } from '../print.js';

import type { EXIT_FOR_OUTCOME, Outcome } from '../exit-codes.js';
import type { Line } from '../print.js';

export interface IngestCommandOptions {
  readonly inputs: readonly string[];
  readonly store?: string;
  readonly env?: string;
  readonly artifactRoot?: string;
  readonly keepForeign?: boolean;
  readonly runnerdSha256?: string;
  readonly json: boolean;
}

/** What an ingest came to, by the evalbook's verdict on its summary (ingestExitCode's 0, 1, 2). */
const INGEST_OUTCOMES = ['ok', 'rejected', 'not_stored'] as const satisfies readonly Outcome[];

/** `evals ingest --json` (schemas/evals/ingest-report-v1.schema.json): the summary and its exit code. */
export type IngestReport = {
  readonly schema: typeof INGEST_REPORT_V1;
  readonly exitCode: (typeof EXIT_FOR_OUTCOME)[(typeof INGEST_OUTCOMES)[number]];
} & IngestSummary;

/** What an ingest stopped by a signal says on stderr: what it read, what is stored, and that re-running continues. */
export function interruptedText(signal: string, seen: IngestProgress | undefined): string {
  const counts =
    seen === undefined
      ? 'before its first count'
      : `after reading ${seen.processed} of ${seen.total} input(s): at least ${seen.inserted} attempt(s) stored, ${seen.duplicates} already there`;
  return `evals: interrupted (${signal}): ingest stopped ${counts}; every stored attempt is whole (a batch being written was rolled back). Run the same command again to continue: what is stored is a duplicate, skipped, and the rest is ingested`;
}

export async function runIngest(options: IngestCommandOptions): Promise<Outcome> {
  const started = performance.now();
  const tty = isTerminal('stderr');
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
  if (options.runnerdSha256 !== undefined && !isSha256Digest(options.runnerdSha256))
    throw usageError(
      `--runnerd-sha256 ${JSON.stringify(options.runnerdSha256)} is not a digest: give sha256: followed by 64 lowercase hex digits (evals digest FILE prints it); nothing was read`,
      {
        code: 'option_value_invalid',
        component: '--runnerd-sha256',
        expected: 'sha256: followed by 64 lowercase hex digits',
        received: options.runnerdSha256,
      },
    );
  // The counts so far, for what an interruption says: every attempt counted inserted is committed
  // (a batch in flight when the signal came is rolled back whole).
  let seen: IngestProgress | undefined;
  const track = (progress: IngestProgress): void => {
    seen = progress;
    if (tty) onProgress(progress);
  };
  const releaseNotice = noticeOnStop((signal) => {
    if (tty) clearProgress();
    printLines('stderr', [interruptedText(signal, seen)]);
  });
  let summary: IngestSummary;
  try {
    summary = await ingestAttempts({
      variables: process.env,
      inputs: options.inputs,
      ...(options.store === undefined ? {} : { storeUrl: options.store }),
      ...(options.env === undefined ? {} : { environmentPath: options.env }),
      ...(options.artifactRoot === undefined ? {} : { artifactRoot: options.artifactRoot }),
      ...(options.runnerdSha256 === undefined ? {} : { qualifiedRunnerdSha256: options.runnerdSha256 }),
      onProgress: track,
      keepForeign: options.keepForeign === true,
      writerThread: true,
    });
  } finally {
    releaseNotice();
    if (tty) clearProgress();
  }
  const outcome = INGEST_OUTCOMES[ingestExitCode(summary)];
  // A diagnostic, with or without --json: a wrong root must not read as "all unverified".
  if (summary.artifactsMissing.rootHoldsNone)
    printLines('stderr', [rootHoldsNoneText(options.artifactRoot ?? '', summary.artifactsMissing)]);
  if (options.json) {
    printJson({
      schema: INGEST_REPORT_V1,
      exitCode: exitCodeForOutcome(outcome),
      ...summary,
      // every issue as the CLI prints one (cliIssue): the schema's members, nothing a package added
      invalid: summary.invalid.map((invalid) => ({ ...invalid, issues: cliIssues(invalid.issues) })),
      storeRefused: summary.storeRefused.map((refused) => ({
        ...refused,
        error: { ...refused.error, issues: cliIssues(refused.error.issues) },
      })),
      foreign: summary.foreign.map((foreign) => ({ ...foreign, issues: cliIssues(foreign.issues) })),
    } satisfies IngestReport);
    return outcome;
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
  // What to do, once: the ledger is append-only, so another bundle never replaces a stored one.
  const [first] = summary.conflicts;
  if (first !== undefined)
    lines.push(
      `    the ledger keeps the first bundle of an attempt id: ingest a re-run under its own run or attempt id; to leave a stored attempt out of every count: evals retract --run ${first.key.runId} --attempt ${first.key.attemptId} --reason TEXT --by NAME`,
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
  const missing = summary.artifactsMissing;
  for (const file of missing.files.slice(0, MISSING_SHOWN))
    lines.push([
      painted('yellow', 'missing   '),
      ` ${file.input}  ${file.uri}: no file at ${file.expectedAt} (unverified)`,
    ]);
  if (missing.count > MISSING_SHOWN)
    lines.push(
      `    … and ${missing.count - MISSING_SHOWN} more referenced file(s) missing (--json names the first ${missing.files.length})`,
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
    ...(summary.artifactBundles === 0 ? [] : [artifactBundlesText(summary.artifactBundles)]),
    summary.inserted === 0
      ? 'cost: no new attempts to price'
      : `cost of the new attempts: ${summary.coverage.text}; priced total ${displayUsd(total)}${summary.coverage.unpriced > 0 ? ' (unpriced attempts are not counted as zero)' : ''}`,
  );
  lines.push(
    `artifacts of the valid attempts: ${ingestArtifactCountsText(summary.artifacts)}${options.artifactRoot === undefined && summary.artifacts.verified + summary.artifacts.mismatched + summary.artifacts.refused === 0 ? ' (no --artifact-root: nothing could be verified)' : ''}`,
  );
  const usage = summary.checkModelUsage;
  if (usage !== null)
    lines.push(
      `model calls for case checks: ${usage.model_calls} (${usage.judge_calls} judge), ${displayUsd(usage.cost_usd * 1e9)}${usage.unpriced_calls > 0 ? `, ${usage.unpriced_calls} unpriced (not counted as zero)` : ''}`,
    );
  printLines('stdout', lines);
  return outcome;
}

/**
 * The inputs that were the bundles of artifacts read in the same run (a campaign folder walked
 * whole): each attempt is counted once, through its artifact — not a duplicate, not unverified.
 */
function artifactBundlesText(count: number): string {
  return `${count} bundle(s) already read through their eval-session artifacts in this run: the same files, counted once, as their artifacts' attempts (not duplicates)`;
}

/** How many missing referenced files the summary names (--json: up to MISSING_ARTIFACTS_LISTED). */
const MISSING_SHOWN = 20;

/** The warning for a root that holds none of the referenced files: most likely the wrong folder. */
export function rootHoldsNoneText(
  root: string,
  missing: IngestSummary['artifactsMissing'],
  command: 'ingest' | 'validate' = 'ingest',
): string {
  const [first] = missing.files;
  const example = first === undefined ? '' : ` (${first.uri} was looked for at ${first.expectedAt})`;
  return `evals ${command}: warning artifact_root_holds_none: --artifact-root ${root} holds none of the ${missing.count} file(s) the attempts reference${example}: most likely the wrong folder, not missing files. Give the folder artifact://native/ paths resolve under — artifact://native/P is read as <root>/P — often the folder above or below this one`;
}
