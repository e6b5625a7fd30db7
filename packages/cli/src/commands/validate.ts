// `evals validate`: expand the inputs, parse each attempt input with the contract parser (a
// native-execution bundle, or an eval-session artifact and the bundle it references: dispatched on
// `schema` by node's readBundles), print a table or one JSON report, and return the outcome (ok:
// all valid, invalid, unreadable: an input not read).
import { dirname, join } from 'node:path';

import { isMissingCellArtifact } from '@paperclip-evals/contract';
import { STDIN_INPUT, expandBundleInputs, readBundles } from '@paperclip-evals/node';

import type {
  artifactSuiteFields as ArtifactSuiteFields,
  IngestSummary,
  verifyReferences as VerifyReferences,
} from '@paperclip-evals/evalbook';
import type {
  BundleInput,
  BundleRead,
  EvalSessionEvidence,
  NativeExecutionInput,
} from '@paperclip-evals/node';

import { cliIssues, show, usageError } from '../exit-codes.js';
import { VALIDATE_REPORT_V1 } from '../output-schemas.js';
import { clearProgress, drawProgress, isTerminal, painted, printJson, printLines } from '../print.js';

import type { CliIssue, Outcome } from '../exit-codes.js';
import type { Line } from '../print.js';

import { rootHoldsNoneText } from './ingest.js';

export interface ValidateOptions {
  readonly inputs: readonly string[];
  readonly json: boolean;
  readonly maxBytes: number;
  /**
   * Where a bundle's `artifact://native/` references (transcript, artifacts) resolve, as in ingest:
   * each file there is verified by size and sha256. Without it only an eval-session artifact's
   * bundle files are verified, beside it.
   */
  readonly artifactRoot?: string;
}

/** One input's verdict in `evals validate --json` (schemas/evals/validate-report-v1.schema.json). */
export type ValidateFileReport =
  | {
      readonly input: string;
      readonly status: 'valid';
      readonly fileSha256: string;
      readonly byteSize: number;
      readonly attempt: Pick<
        NativeExecutionInput['bundle']['identity'],
        'runId' | 'caseId' | 'configId' | 'attemptId'
      >;
      readonly events: number;
      /**
       * The bundle's referenced files (transcript, artifacts) verified under `root` (--artifact-root,
       * or beside an eval-session artifact): how many matched, how many could not be (absent there,
       * or not an artifact://native/ reference). A file that differs makes the input invalid.
       */
      readonly references?: { readonly root: string; readonly verified: number; readonly unverified: number };
      /** An eval-session artifact: its digest and outcome (the other fields are of its bundle). */
      readonly evalSession?: {
        readonly artifactSha256: string;
        readonly provider: string;
        /** Upstream's artifact for a matrix cell that retained none: an infrastructure failure of that cell. */
        readonly disposition?: 'cell_artifact_missing';
        readonly infrastructureFailure: {
          readonly class: string;
          readonly category: string;
          readonly retryable: boolean;
        } | null;
      };
    }
  | { readonly input: string; readonly status: 'invalid'; readonly issues: readonly CliIssue[] }
  | {
      readonly input: string;
      readonly status: 'unreadable';
      readonly error: string;
      /** input_missing, input_unreadable or the expander's refusal (input_not_regular_file, …). */
      readonly code: string;
    };

/** `evals validate --json` (paperclip-evals/validate-report/v1). */
export interface ValidateReport {
  readonly schema: typeof VALIDATE_REPORT_V1;
  readonly summary: { readonly valid: number; readonly invalid: number; readonly unreadable: number };
  readonly files: readonly ValidateFileReport[];
}

export async function runValidate(options: ValidateOptions): Promise<Outcome> {
  if (options.artifactRoot !== undefined) {
    const { checkArtifactRoot } = await import('@paperclip-evals/evalbook');
    await checkArtifactRoot(options.artifactRoot);
  }
  const targets = await expandInputs(options.inputs);
  const missing: IngestSummary['artifactsMissing'] = { count: 0, found: 0, rootHoldsNone: false, files: [] };
  const reports: ValidateFileReport[] = [];
  const progress = targets.length > 20 && isTerminal('stdout') && isTerminal('stderr');
  // Lines for a pipe or a file are written a few hundred files at a time (one write each, not one
  // per file: ~4% of validating many small bundles); a terminal gets each file's lines at once.
  const perWrite = isTerminal('stdout') ? 1 : LINES_PER_WRITE;
  let lines: Line[] = [];
  const flushLines = (): void => {
    if (lines.length > 0) printLines('stdout', lines);
    lines = [];
  };
  for await (const read of readBundles(targets, { maxBytes: options.maxBytes })) {
    // The Evalbook (its stores, renderers, the checks engine: ~0.1 s of CPU to load) is loaded only
    // for an eval-session artifact read alone, whose stored key it says.
    if (read.status === 'valid' && read.parsed.bundle === null)
      artifactKeyOf ??= (await import('@paperclip-evals/evalbook')).artifactSuiteFields;
    const report = await verifiedReport(read, fileReport(read), options.artifactRoot, missing);
    reports.push(report);
    if (progress) drawProgress({ label: 'validating', parts: [`${reports.length}/${targets.length}`] });
    if (!options.json) {
      lines.push(...formatReport(report));
      if (lines.length >= perWrite) flushLines();
    }
  }
  flushLines();
  if (progress) clearProgress();
  if (options.artifactRoot !== undefined && missing.count > 0 && missing.found === 0)
    printLines('stderr', [
      rootHoldsNoneText(options.artifactRoot, { ...missing, rootHoldsNone: true }, 'validate'),
    ]);

  const count = (status: ValidateFileReport['status']): number =>
    reports.filter((report) => report.status === status).length;
  const summary = { valid: count('valid'), invalid: count('invalid'), unreadable: count('unreadable') };
  if (options.json) {
    printJson({ schema: VALIDATE_REPORT_V1, summary, files: reports } satisfies ValidateReport);
  } else {
    printLines('stdout', [
      '',
      `${summary.valid} valid, ${summary.invalid} invalid, ${summary.unreadable} unreadable`,
    ]);
  }
  if (summary.unreadable > 0) return 'unreadable';
  return summary.invalid > 0 ? 'invalid' : 'ok';
}

/**
 * Files named, files found under directories (walked sorted for `*.json`; symlinks inside are not
 * followed but reported, so nothing is skipped silently), quoted globs and stdin, in argument
 * order — node's expandBundleInputs, as ingest and policy replay read them. Anything that is
 * not a regular file (a FIFO would block the read forever) is refused before it is opened.
 */
async function expandInputs(inputs: readonly string[]): Promise<BundleInput[]> {
  const stdin = inputs.filter((input) => input === STDIN_INPUT).length;
  if (stdin > 1)
    throw usageError('stdin (-) can be given only once: it is read once; give - once (nothing was read)', {
      code: 'stdin_repeated',
      component: STDIN_INPUT,
      expected: '- at most once',
      received: `- ${stdin} times`,
    });
  const targets: BundleInput[] = [];
  for await (const target of expandBundleInputs(inputs)) targets.push(target);
  return targets;
}

/** How many lines `evals validate` gathers before it writes them to a pipe or a file. */
const LINES_PER_WRITE = 500;

let artifactKeyOf: typeof ArtifactSuiteFields | undefined;
let verifyReferencesOf: typeof VerifyReferences | undefined;

/** How many absent files under --artifact-root the warning and `--json` name at most. */
const MISSING_LISTED = 20;

/**
 * A bundle's referenced files, verified where ingest verifies them (the Evalbook's one check), so
 * what validate calls valid ingest never refuses for a file that does not match: under
 * --artifact-root when it is given, else an eval-session artifact's beside it; a bare bundle without
 * --artifact-root has no root. A file absent there is unverified, not invalid, as in ingest; each
 * absent under --artifact-root is tallied in `missing` (a root that holds none is most likely the
 * wrong folder).
 */
async function verifiedReport(
  read: BundleRead,
  report: ValidateFileReport,
  artifactRoot: string | undefined,
  missing: IngestSummary['artifactsMissing'],
): Promise<ValidateFileReport> {
  if (report.status !== 'valid' || read.status !== 'valid') return report;
  const { parsed, input } = read;
  if (parsed.bundle === null) return report;
  const root =
    artifactRoot ??
    (parsed.evalSession !== undefined && input.path !== null ? dirname(input.path) : undefined);
  if (root === undefined) return report;
  verifyReferencesOf ??= (await import('@paperclip-evals/evalbook')).verifyReferences;
  const { issues, verification, absent, found } = await verifyReferencesOf(parsed.bundle, root);
  if (issues.length > 0) return { input: report.input, status: 'invalid', issues: cliIssues(issues) };
  if (root === artifactRoot) {
    missing.found += found;
    for (const uri of absent) {
      missing.count++;
      if (missing.files.length < MISSING_LISTED)
        missing.files.push({
          input: report.input,
          uri,
          expectedAt: join(root, uri.slice(NATIVE_ARTIFACT.length)),
        });
    }
  }
  const verified = [...verification.values()].filter((value) => value === 'verified').length;
  return { ...report, references: { root, verified, unverified: verification.size - verified } };
}

const NATIVE_ARTIFACT = 'artifact://native/';

/** One input's verdict, as node's read-and-classify loop found it. */
function fileReport(read: BundleRead): ValidateFileReport {
  const input = read.input.display;
  if (read.status === 'unreadable')
    return { input, status: 'unreadable', error: read.error, code: read.code };
  if (read.status === 'invalid')
    return {
      input,
      status: 'invalid',
      // Over the size limit: the flag that raises it is named where the refusal is read.
      issues: cliIssues(read.error.issues).map((issue) =>
        issue.code === 'input_too_large'
          ? { ...issue, message: `${issue.message}: --max-bytes raises it (to at most 512 MiB)` }
          : issue,
      ),
    };
  const { parsed } = read;
  // An eval-session artifact alone: the key it is stored under (it names no run, case or config).
  const { runId, caseId, configId, attemptId } =
    parsed.bundle === null
      ? (artifactKeyOf as typeof ArtifactSuiteFields)(parsed.evalSession.artifact)
      : parsed.bundle.identity;
  return {
    input,
    status: 'valid',
    fileSha256: parsed.fileSha256,
    byteSize: parsed.byteSize,
    attempt: { runId, caseId, configId, attemptId },
    events: parsed.bundle === null ? 0 : parsed.bundle.events.length,
    ...(parsed.evalSession === undefined ? {} : { evalSession: evalSessionSummary(parsed.evalSession) }),
  };
}

function evalSessionSummary(evidence: EvalSessionEvidence): NonNullable<ValidFileReport['evalSession']> {
  const failure = evidence.artifact.infrastructureFailure ?? evidence.artifact.accountingFailure;
  return {
    artifactSha256: evidence.artifactSha256,
    provider: evidence.artifact.provider,
    ...(isMissingCellArtifact(evidence.artifact) ? { disposition: 'cell_artifact_missing' as const } : {}),
    infrastructureFailure:
      failure === undefined
        ? null
        : { class: failure.class, category: failure.category, retryable: failure.retryable },
  };
}

type ValidFileReport = Extract<ValidateFileReport, { status: 'valid' }>;

/** A valid file's referenced files as its line says them (nothing when no root was there to verify under). */
function referencesText(references: ValidFileReport['references']): string {
  if (references === undefined) return '';
  const total = references.verified + references.unverified;
  return `; ${references.verified} of ${total} referenced file(s) verified under ${references.root}${references.unverified > 0 ? ` (${references.unverified} not there: unverified)` : ''}`;
}

/** A file's lines (the input's name and every issue are text from input: printLines renders them). */
function formatReport(report: ValidateFileReport): Line[] {
  switch (report.status) {
    case 'valid':
      return [
        [
          painted('green', 'valid  '),
          `  ${report.input}  `,
          painted(
            'dim',
            report.evalSession === undefined
              ? `${report.events} events, ${report.fileSha256}`
              : report.evalSession.disposition === 'cell_artifact_missing'
                ? `eval-session artifact ${report.evalSession.artifactSha256}: a campaign matrix cell that retained no attempt (ci_cell_artifact_missing): an infrastructure failure of that cell, no session ran, cost unknown`
                : `eval-session artifact ${report.evalSession.artifactSha256}${report.evalSession.infrastructureFailure === null ? '' : ` (infrastructure failure ${report.evalSession.infrastructureFailure.class}, ${report.evalSession.infrastructureFailure.retryable ? 'retryable' : 'not retryable'})`}; ${report.events === 0 && report.fileSha256 === report.evalSession.artifactSha256 ? 'no bundle beside it (no native-execution evidence: never scored solved)' : `its bundle: ${report.events} events, ${report.fileSha256}`}`,
          ),
          painted('dim', referencesText(report.references)),
        ],
      ];
    case 'unreadable':
      return [[painted('yellow', 'error  '), `  ${report.input}  ${report.error}`]];
    case 'invalid': {
      const count = `${report.issues.length} issue${report.issues.length === 1 ? '' : 's'}`;
      return [
        [painted('red', 'invalid'), `  ${report.input}  ${count}`],
        ...report.issues.flatMap((issue) => [
          `    ${issue.code} at ${issue.path === '' || issue.path === undefined ? '(root)' : issue.path}: ${issue.message}`,
          `      expected: ${show(issue.expected)}`,
          `      received: ${show(issue.received)}`,
        ]),
      ];
    }
  }
}
