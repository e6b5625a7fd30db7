// Ingest: stream bundle inputs (files, directories, '-' for stdin) one at a time, parse each with
// the contract parser (a native-execution bundle, or an eval-session artifact and the bundle it
// references, dispatched on `schema`; an artifact's files are verified under its own folder unless
// an artifact root is given), verify transcript/artifact digests under an artifact root, evaluate the
// case's engine checks over the attempt's trace, convert, and write in batched transactions.
// Invalid bundles are reported with every issue and never written. With an environment, an attempt
// not of its suite (a case or config it lacks, another digest) is refused and NOTHING of the run is
// written — a first pass reads and judges every input as the second does (readInput: the same
// reader, parser and verdict, so invalid and unreadable inputs are reported the same) before the
// store is even opened — unless keepForeign stores such attempts apart, marked foreign. A batch the store refuses for what
// one of its records holds is written again bundle by bundle: the store's refusal of a bundle is
// reported with its coded error, and the others are written (writeBatch). An input that is the
// bundle an artifact of the same run read (node's readAttemptInputs: the same file, the same bytes,
// whatever the order) is that attempt, counted once through its artifact (artifactBundles).
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { LAYER_OF, evaluateAssertions, isAssertionType, toTrace } from '@paperclip-evals/checks';
import { DEFAULT_MAX_INPUT_BYTES, displayLocator } from '@paperclip-evals/contract';
import {
  STDIN_INPUT,
  checkContainedReference,
  expandBundleInputs,
  readAttemptInputs,
} from '@paperclip-evals/node';

import type { Assertion, AssertionResult, EngineServerOptions, ModelUsage } from '@paperclip-evals/checks';
import type { Issue, NativeExecution } from '@paperclip-evals/contract';
import type { BundleRead, ContainedFileRefusal, ReadAttemptOptions } from '@paperclip-evals/node';

import { EvalbookError, isEvalbookError } from '../errors.js';
import {
  artifactCountsText,
  attemptArtifactVerification,
  convertArtifact,
  convertBundleFields,
  emptyArtifactCounts,
  withCanonicalForm,
} from './convert.js';
import type {
  ArtifactCounts,
  AttemptKey,
  EnvironmentMismatch,
  LedgerRecord,
  RecordFields,
  ReferenceVerification,
} from './convert.js';
import { CoverageTally } from './cost.js';
import type { CoverageSummary } from './cost.js';
import { caseAssertions, loadEnvironment } from './environment.js';
import type { Environment } from './environment.js';
import {
  DEFAULT_STORE_URL,
  checkSqliteTarget,
  openStore,
  removeCreatedSqliteStore,
  sqliteCreations,
  sqliteStorePath,
} from './open-store.js';
import { isRecordRefusal } from './store.js';
import type { InsertOutcome, LedgerStore } from './store.js';

export interface IngestProgress {
  /** How many inputs there are in all (counted up front, only when progress is asked for). */
  readonly total: number;
  readonly processed: number;
  readonly inserted: number;
  readonly duplicates: number;
  /** Inputs that were the bundles of artifacts read in this run (IngestSummary.artifactBundles). */
  readonly artifactBundles: number;
  readonly conflicts: number;
  readonly invalid: number;
  readonly unreadable: number;
  readonly storeRefused: number;
}

export interface IngestOptions {
  readonly inputs: readonly string[];
  /** `sqlite:PATH` or `postgres://…`; default: the environment's `store`, else `sqlite:.evalbook/evalbook.sqlite`. */
  readonly storeUrl?: string;
  readonly environmentPath?: string;
  readonly artifactRoot?: string;
  readonly batchSize?: number;
  readonly maxBytes?: number;
  /** Called after every written batch, every PROGRESS_INTERVAL_MS while reading, and at the end. */
  readonly onProgress?: (progress: IngestProgress) => void;
  /** Write SQLite batches on a worker thread, overlapping parsing (the CLI does; needs the built package). */
  readonly writerThread?: boolean;
  /** What '-' reads (default: process.stdin). */
  readonly stdin?: AsyncIterable<Uint8Array>;
  /**
   * A model provider for case checks in layers 5–6 (embedding, llm_judge); without it they are stored
   * not_evaluated / provider_not_configured. No model is called for an attempt the store already holds.
   */
  readonly models?: CaseCheckModels;
  /**
   * Store attempts that are not of the environment's suite apart (marked foreign, with the reason)
   * instead of refusing the whole run. Reports leave them out unless asked to include them.
   */
  readonly keepForeign?: boolean;
  /**
   * The runnerd digest qualification verified (when known): an attempt naming another binary is
   * invalid, never stored.
   */
  readonly qualifiedRunnerdSha256?: string;
}

/** The checks engine's model access, as the engine gets it: one gateway, its session budget spans the run. */
export type CaseCheckModels = NonNullable<EngineServerOptions['models']>;

export interface IngestConflict {
  readonly input: string;
  readonly key: AttemptKey;
  readonly bundleDigest: string;
  readonly existingDigest: string;
}

export interface IngestSummary {
  /** The store as displayLocator shows it (a password masked). */
  readonly store: string;
  readonly processed: number;
  readonly inserted: number;
  readonly duplicates: number;
  /**
   * Inputs that are the native-execution bundle an eval-session artifact of this run read (the same
   * file, the same bytes: a campaign folder walked whole meets each try's bundle below its artifact).
   * That attempt is counted once, through its artifact; these are neither duplicates nor attempts of
   * their own, and not in `artifacts`. A second bare input of the same file is a duplicate.
   */
  readonly artifactBundles: number;
  readonly conflicts: IngestConflict[];
  readonly invalid: { readonly input: string; readonly issues: readonly Issue[] }[];
  /** Each input that could not be read: why, and the rule's code (node's UnreadableInputCode). */
  readonly unreadable: { readonly input: string; readonly error: string; readonly code: string }[];
  /**
   * Valid bundles the store refused to write (each alone, after its batch failed): the store's coded
   * error for it. Every other bundle of the run was written as usual.
   */
  readonly storeRefused: IngestStoreRefusal[];
  /**
   * Attempts not of the environment's suite, each with what differs (field, expected, received).
   * Without keepForeign they were refused and nothing of the run was written (exit 1); with it,
   * those listed were inserted apart, marked foreign.
   */
  readonly foreign: IngestForeign[];
  /** Whether foreign attempts were kept apart (keepForeign) rather than refused. */
  readonly keepForeign: boolean;
  /**
   * Every valid bundle read by this run, by its artifacts' bytes under the artifact root: all
   * verified, some unverified (no root, or a file absent), mismatched (bytes that differ), or refused
   * (a reference not read at all: a `..`, a symbolic link, not a regular file, unreadable). The last
   * two are invalid bundles, never written.
   */
  readonly artifacts: IngestArtifactCounts;
  /** The referenced files absent under --artifact-root, named (a typo must not look like "all unverified"). */
  readonly artifactsMissing: ArtifactsMissing;
  /** Cost coverage of the attempts inserted by this run. */
  readonly coverage: CoverageSummary;
  /** Model calls made for case checks (never the agents' own cost); null without a provider. */
  readonly checkModelUsage: ModelUsage | null;
}

/**
 * What ingest found of each valid bundle's artifacts: the counts every report gives (verified,
 * unverified, mismatched), and the bundles with a reference refused without being read — never a
 * mismatch, since nothing was compared — with how many bundles each reason refused.
 */
export interface IngestArtifactCounts extends ArtifactCounts {
  refused: number;
  /** By reason: how many bundles had a reference refused for it (a bundle counts once per reason). */
  refusedReasons: Record<ContainedFileRefusal, number>;
}

/** How many referenced files the first entries of ArtifactsMissing.files name. */
export const MISSING_ARTIFACTS_LISTED = 50;

/**
 * The references of valid bundles whose file is absent under the `--artifact-root` given: how many,
 * the first MISSING_ARTIFACTS_LISTED (bundle, uri, the path looked at), and whether the root holds
 * none of the referenced files at all — then it is most likely the wrong folder, not missing files.
 */
export interface ArtifactsMissing {
  count: number;
  readonly files: { readonly input: string; readonly uri: string; readonly expectedAt: string }[];
  /** A root was given, some files were referenced, and not one of them is there. */
  rootHoldsNone: boolean;
  /** How many referenced files were found under the root (verified, mismatched or refused). */
  found: number;
}

export const emptyArtifactsMissing = (): ArtifactsMissing => ({
  count: 0,
  files: [],
  rootHoldsNone: false,
  found: 0,
});

export const emptyIngestArtifactCounts = (): IngestArtifactCounts => ({
  ...emptyArtifactCounts(),
  refused: 0,
  refusedReasons: Object.fromEntries(REFUSAL_REASONS.map((reason) => [reason, 0])) as Record<
    ContainedFileRefusal,
    number
  >,
});

/**
 * The counts as ingest says them, after "artifacts of the valid attempts: ": "3 verified, 1
 * unverified, 0 mismatched, 2 refused (1 symlink, 1 not_a_file)" — the reasons only when some are.
 */
export function ingestArtifactCountsText(counts: IngestArtifactCounts): string {
  const reasons = REFUSAL_REASONS.filter((reason) => counts.refusedReasons[reason] > 0).map(
    (reason) => `${counts.refusedReasons[reason]} ${reason}`,
  );
  return `${artifactCountsText(counts)}, ${counts.refused} refused${reasons.length === 0 ? '' : ` (${reasons.join(', ')})`}`;
}

/** A valid bundle the store refused to write, with the store's coded error (its EvalbookError as JSON). */
export interface IngestStoreRefusal {
  readonly input: string;
  readonly key: AttemptKey;
  readonly bundleDigest: string;
  readonly error: { readonly code: string; readonly message: string; readonly issues: readonly Issue[] };
}

/** An attempt that is not of the environment's suite, and how. */
export interface IngestForeign {
  readonly input: string;
  readonly key: AttemptKey;
  /** One per field that differs, at its JSON pointer in the bundle, with expected and received. */
  readonly issues: readonly Issue[];
}

/** A mistake in how ingest was called (no inputs, stdin twice, an empty directory). */
function usageError(message: string): EvalbookError {
  return new EvalbookError('paperclip_evalbook_ingest_usage_invalid', message);
}

/**
 * 0 only inserted/duplicates (foreign ones kept apart included) · 1 conflicts, invalid bundles or
 * refused foreign attempts · 2 unreadable input or a bundle the store refused (takes precedence).
 */
export function ingestExitCode(summary: IngestSummary): 0 | 1 | 2 {
  if (summary.unreadable.length > 0 || summary.storeRefused.length > 0) return 2;
  const refusedForeign = !summary.keepForeign && summary.foreign.length > 0;
  return summary.conflicts.length > 0 || summary.invalid.length > 0 || refusedForeign ? 1 : 0;
}

/** Where in a bundle each suite field is, and what to call it. */
const MISMATCH_AT: Record<EnvironmentMismatch['field'], { path: string; code: string }> = {
  case: { path: '/identity/caseId', code: 'case_not_in_environment' },
  config: { path: '/identity/configId', code: 'config_not_in_environment' },
  caseSha256: { path: '/input/caseSha256', code: 'case_digest_differs' },
  configSha256: { path: '/input/configSha256', code: 'config_digest_differs' },
};

/** A mismatch as an issue like the parser's: which field, expected (from the environment), received. */
export function foreignIssue(mismatch: EnvironmentMismatch, environment: Environment): Issue {
  const { path, code } = MISMATCH_AT[mismatch.field];
  const ids = (mismatch.field === 'case' ? environment.cases : environment.configs).map((item) => item.id);
  const listed = `${ids.slice(0, 10).join(', ')}${ids.length > 10 ? ', …' : ''}`;
  switch (mismatch.field) {
    case 'case':
    case 'config':
      return {
        code,
        path,
        message: `${mismatch.field} ${JSON.stringify(mismatch.received)} is not in the environment (another suite's bundle, or a mistyped id)`,
        expected: ids.length === 0 ? `no ${mismatch.field} (the environment lists none)` : `one of ${listed}`,
        received: mismatch.received,
      };
    case 'caseSha256':
    case 'configSha256':
      return {
        code,
        path,
        message: `the attempt ran another definition of its ${mismatch.field === 'caseSha256' ? 'case' : 'config'} than the environment's (a stale digest, or another suite's)`,
        expected: mismatch.expected,
        received: mismatch.received,
      };
  }
}

/**
 * The first pass, before the store is opened: every input read and judged exactly as the second pass
 * judges it (readInput: node's read-and-classify loop, the contract's strict parser, the contained
 * reader for an artifact's bundle, the references and the cost), without case checks or a store.
 * Invalid and unreadable inputs are reported as they would be without an environment; the attempts
 * not of the environment's suite are the foreign ones.
 */
async function firstPass(
  inputs: readonly string[],
  context: Omit<ReadContext, 'checks' | 'artifacts' | 'missing'>,
  readOptions: ReadAttemptOptions & { readonly stdin: () => AsyncIterable<Uint8Array> },
): Promise<
  Pick<
    IngestSummary,
    'processed' | 'artifactBundles' | 'invalid' | 'unreadable' | 'foreign' | 'artifacts' | 'artifactsMissing'
  >
> {
  const artifacts = emptyIngestArtifactCounts();
  const missing = emptyArtifactsMissing();
  const invalid: IngestSummary['invalid'] = [];
  const unreadable: IngestSummary['unreadable'] = [];
  const foreign: IngestForeign[] = [];
  let processed = 0;
  let artifactBundles = 0;
  for await (const read of readAttemptInputs(inputs, readOptions)) {
    processed++;
    if (read.status === 'artifact_bundle') {
      artifactBundles++;
      continue;
    }
    const judged = await readInput(read, {
      ...context,
      artifacts,
      missing,
      checks: () => Promise.resolve([]),
    });
    if (judged.kind === 'unreadable')
      unreadable.push({ input: read.input.display, error: judged.error, code: judged.code });
    else if (judged.kind === 'invalid') invalid.push({ input: read.input.display, issues: judged.issues });
    else {
      const { fields } = judged.entry;
      if (fields.environmentMismatch.length > 0 && context.environment !== undefined)
        foreign.push({
          input: read.input.display,
          key: fields.key,
          issues: fields.environmentMismatch.map((item) =>
            foreignIssue(item, context.environment as Environment),
          ),
        });
    }
  }
  return {
    processed,
    artifactBundles,
    invalid,
    unreadable,
    foreign,
    artifacts,
    artifactsMissing: settleMissing(missing, context.artifactRoot),
  };
}

/** The tally once every input is read: whether the root given holds none of what was referenced. */
function settleMissing(missing: ArtifactsMissing, root: string | undefined): ArtifactsMissing {
  missing.rootHoldsNone = root !== undefined && missing.count > 0 && missing.found === 0;
  return missing;
}

/** What readInput needs besides the read: the suite, where references resolve, the counts, the checks. */
interface ReadContext {
  readonly environment: Environment | undefined;
  readonly artifactRoot: string | undefined;
  /** Counted as each valid bundle's references are verified. */
  readonly artifacts: IngestArtifactCounts;
  /** Named as each reference absent under the user's artifact root is met. */
  readonly missing: ArtifactsMissing;
  /** The case's engine checks over a bundle's trace. */
  readonly checks: (bundle: NativeExecution) => Promise<readonly AssertionResult[]>;
}

/** An input as ingest judges it: unreadable, invalid (every issue), or an attempt to write. */
type JudgedInput =
  | { readonly kind: 'unreadable'; readonly error: string; readonly code: string }
  | { readonly kind: 'invalid'; readonly issues: readonly Issue[] }
  | { readonly kind: 'entry'; readonly entry: PendingRecord };

/**
 * One read input judged: node's verdict (unreadable, invalid), then a valid bundle's references
 * (verified under the artifact root, else beside its eval-session artifact; a mismatch or refusal is
 * invalid), its case checks and its conversion (a cost that cannot be normalised is invalid). Both
 * passes judge with it, so an input has one verdict with or without an environment.
 */
async function readInput(read: BundleRead, context: ReadContext): Promise<JudgedInput> {
  const target = read.input;
  if (read.status === 'unreadable') return { kind: 'unreadable', error: read.error, code: read.code };
  if (read.status === 'invalid') return { kind: 'invalid', issues: read.error.issues };
  const { parsed } = read;
  const { environment } = context;
  try {
    if (parsed.bundle === null) {
      // An eval-session artifact alone (no bundle beside it): no files to verify, no trace to check.
      const record = convertArtifact(parsed.evalSession, environment === undefined ? {} : { environment });
      context.artifacts.unverified++;
      return { kind: 'entry', entry: { input: target.display, fields: record, record } };
    }
    // An eval-session artifact's bundle files sit beside it: verified there unless a root is given.
    const referenceRoot =
      context.artifactRoot ??
      (parsed.evalSession !== undefined && target.path !== null ? dirname(target.path) : undefined);
    const { verification, refusals, issues, absent, found } = await verifyReferences(
      parsed.bundle,
      referenceRoot,
    );
    // Under the root the user gave, every absent file is named (beside an eval-session artifact, the
    // folder is ours, not a flag to correct).
    if (context.artifactRoot !== undefined && referenceRoot === context.artifactRoot) {
      context.missing.found += found;
      for (const uri of absent) {
        context.missing.count++;
        if (context.missing.files.length < MISSING_ARTIFACTS_LISTED)
          context.missing.files.push({
            input: target.display,
            uri,
            expectedAt: join(context.artifactRoot, uri.slice(NATIVE_ARTIFACT.length)),
          });
      }
    }
    // A refusal is not a mismatch: nothing was compared (and it outranks one of the same bundle).
    if (refusals.size > 0) {
      context.artifacts.refused++;
      for (const reason of refusals) context.artifacts.refusedReasons[reason]++;
    } else context.artifacts[attemptArtifactVerification(verification.values())]++;
    if (issues.length > 0) return { kind: 'invalid', issues };
    const checkResults = await context.checks(parsed.bundle);
    const fields = convertBundleFields(parsed.bundle, {
      fileSha256: parsed.fileSha256,
      verification,
      checkResults,
      ...(environment === undefined ? {} : { environment }),
      ...(parsed.evalSession === undefined ? {} : { evalSession: parsed.evalSession }),
    });
    return { kind: 'entry', entry: { input: target.display, fields, bundle: parsed.bundle } };
  } catch (error) {
    if (
      !isEvalbookError(error, 'paperclip_evalbook_cost_inconsistent') &&
      !isEvalbookError(error, 'paperclip_evalbook_cost_out_of_range')
    )
      throw error;
    return { kind: 'invalid', issues: costIssue(error) };
  }
}

/** Reads a stream whole, stopping once it passes `limit` (the parser refuses that size anyway). */
async function readUpTo(stream: AsyncIterable<Uint8Array>, limit: number): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream) {
    chunks.push(chunk);
    size += chunk.byteLength;
    if (size > limit) break;
  }
  return Buffer.concat(chunks, size);
}

/** A progress line a person can follow without it costing anything measurable. */
const PROGRESS_INTERVAL_MS = 250;
const NATIVE_ARTIFACT = 'artifact://native/';

/** The issue code of each reason the artifact root's reader refuses a reference. */
const REFUSAL_CODE: Record<ContainedFileRefusal, string> = {
  outside_root: 'artifact_uri_outside_root',
  symlink: 'artifact_symlink_refused',
  not_a_file: 'artifact_not_a_file',
  unreadable: 'artifact_unreadable',
};
/** Every reason the artifact root's reader refuses a reference, in the order they are listed. */
const REFUSAL_REASONS = Object.keys(REFUSAL_CODE) as ContainedFileRefusal[];
const REFUSAL_EXPECTED: Record<ContainedFileRefusal, string> = {
  outside_root: 'a plain path under the artifact root (no empty, "." or ".." segments)',
  symlink: 'a path with no symbolic link under the artifact root',
  not_a_file: 'a regular file',
  unreadable: 'a file Evals can read',
};

/**
 * Checks the transcript's and artifacts' sha256 under `root`: verified, unverified (no root, not a
 * native artifact URI, or file absent) or mismatched (a digest or size that differs), or refused
 * without reading it — a path with `..`, a symbolic link anywhere under the root, not a regular
 * file, or one the file system will not let us read (checkContainedReference): each reason in
 * `refusals`, and the reference left unverified. A mismatch or refusal is an issue: the bundle is
 * not written.
 */
export async function verifyReferences(
  bundle: NativeExecution,
  root: string | undefined,
): Promise<{
  verification: Map<string, ReferenceVerification>;
  refusals: Set<ContainedFileRefusal>;
  issues: Issue[];
  /** The native references whose file is absent under the root. */
  absent: string[];
  /** How many native references have a file there (whatever came of it). */
  found: number;
}> {
  const verification = new Map<string, ReferenceVerification>();
  const absent: string[] = [];
  let found = 0;
  const refusals = new Set<ContainedFileRefusal>();
  const issues: Issue[] = [];
  const refs = [
    { path: '/transcript', ref: bundle.transcript },
    ...bundle.artifacts.map((ref, index) => ({ path: `/artifacts/${index}`, ref })),
  ];
  for (const { path, ref } of refs) {
    verification.set(ref.uri, 'unverified');
    if (root === undefined || !ref.uri.startsWith(NATIVE_ARTIFACT)) continue;
    // Never outside the root, links included (node's one artifact-reference check): a link, a
    // `..` or a file that is not regular is refused, and nothing outside the root is ever read.
    const checked = await checkContainedReference(root, ref.uri.slice(NATIVE_ARTIFACT.length), ref);
    if (checked.kind === 'absent') {
      absent.push(ref.uri); // absent: unverified, and named
      continue;
    }
    found++;
    if (checked.kind === 'refused') {
      issues.push({
        code: REFUSAL_CODE[checked.reason],
        message: `${ref.uri}: ${checked.message}`,
        path: `${path}/uri`,
        expected: REFUSAL_EXPECTED[checked.reason],
        received: ref.uri,
      });
      refusals.add(checked.reason);
      continue;
    }
    const [field] = checked.mismatches;
    if (field !== undefined) {
      issues.push({
        code: 'artifact_digest_mismatch',
        message: `${ref.uri}: the file under the artifact root does not match the bundle's reference`,
        path: `${path}/${field}`,
        expected: field === 'sha256' ? ref.sha256 : ref.byteSize,
        received: field === 'sha256' ? checked.digest : checked.byteSize,
      });
      verification.set(ref.uri, 'mismatched');
    } else verification.set(ref.uri, 'verified');
  }
  return { verification, refusals, issues, absent, found };
}

/** A bundle whose cost cannot be normalised, as issues like the parser's. */
function costIssue(error: EvalbookError): readonly Issue[] {
  return error.code === 'paperclip_evalbook_cost_inconsistent'
    ? error.issues
    : [
        {
          code: 'cost_out_of_range',
          message: error.message,
          path: '/usage',
          expected: 'a cost within the safe bound',
          received: 'too large',
        },
      ];
}

/** Ingests every input into the store; never throws for a bad bundle (it is reported instead). */
/**
 * An --artifact-root (ingest's and validate's) is a directory, checked before any input is read: a
 * typo would otherwise leave every reference unverified, quietly.
 */
export async function checkArtifactRoot(artifactRoot: string): Promise<void> {
  const root = await stat(artifactRoot).catch(() => null);
  if (root?.isDirectory() !== true)
    throw usageError(
      `--artifact-root ${artifactRoot}: ${root === null ? 'no such directory' : 'not a directory'} (expected the directory artifact://native/ references resolve under; without it nothing could be verified)`,
    );
}

export async function ingest(options: IngestOptions): Promise<IngestSummary> {
  if (options.inputs.length === 0) throw usageError('no inputs: name bundle files, directories or -');
  if (options.inputs.filter((input) => input === STDIN_INPUT).length > 1)
    throw usageError('stdin (-) can be given only once');
  const batchSize = options.batchSize ?? 200;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1)
    throw usageError('batchSize must be a positive integer');
  if (options.artifactRoot !== undefined) await checkArtifactRoot(options.artifactRoot);
  const environment: Environment | undefined =
    options.environmentPath === undefined ? undefined : await loadEnvironment(options.environmentPath);
  const assertionsByCase = new Map<string, Assertion[]>(
    (environment?.cases ?? []).map((envCase) => [envCase.id, caseAssertions(envCase)]),
  );
  const storeUrl = options.storeUrl ?? environment?.store ?? DEFAULT_STORE_URL;
  // Before any bundle is read: a SQLite path that is not a file, or in a missing folder (a typo), is
  // refused at once, naming it, even when no batch would follow.
  await checkSqliteTarget(storeUrl);
  const keepForeign = options.keepForeign === true;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_INPUT_BYTES;
  // Stdin can be read once: when the first pass reads it, the second reads what it kept.
  let stdinBytes: Promise<Buffer> | undefined;
  const readStdin = (): Promise<Buffer> =>
    (stdinBytes ??= readUpTo(options.stdin ?? process.stdin, maxBytes));
  const parseOptions: ReadAttemptOptions = {
    ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
    ...(options.qualifiedRunnerdSha256 === undefined
      ? {}
      : { qualifiedRunnerdSha256: options.qualifiedRunnerdSha256 }),
  };
  if (environment !== undefined && !keepForeign) {
    const first = await firstPass(
      options.inputs,
      { environment, artifactRoot: options.artifactRoot },
      { ...parseOptions, stdin: () => stdinAgain(readStdin()) },
    );
    // Refused: nothing of the run is written, and every input is reported as the second pass would.
    if (first.foreign.length > 0)
      return {
        store: displayLocator(storeUrl),
        ...first,
        inserted: 0,
        duplicates: 0,
        conflicts: [],
        storeRefused: [],
        keepForeign,
        coverage: new CoverageTally().summary(),
        checkModelUsage: null,
      };
  }
  const stdin = (): AsyncIterable<Uint8Array> =>
    stdinBytes === undefined ? (options.stdin ?? process.stdin) : stdinAgain(stdinBytes);
  // A SQLite store that is not there yet is created only when there is a batch to write, and removed
  // again if the run ends (or fails) with nothing in it: a failed ingest leaves no empty Evalbook
  // behind for a later report to read as "no attempts". An existing store is opened at once.
  const sqlitePath = sqliteStorePath(storeUrl);
  const creations = sqlitePath === null || existsSync(sqlitePath) ? null : sqliteCreations(sqlitePath);
  const openOptions = { writerThread: options.writerThread === true };
  let store: LedgerStore | undefined =
    creations === null ? await openStore(storeUrl, openOptions) : undefined;
  const writableStore = async (): Promise<LedgerStore> => (store ??= await openStore(storeUrl, openOptions));

  let processed = 0;
  let inserted = 0;
  let duplicates = 0;
  let artifactBundles = 0;
  const conflicts: IngestConflict[] = [];
  const invalid: IngestSummary['invalid'] = [];
  const unreadable: IngestSummary['unreadable'] = [];
  const storeRefused: IngestStoreRefusal[] = [];
  const foreign: IngestForeign[] = [];
  const coverage = new CoverageTally();
  const artifacts = emptyIngestArtifactCounts();
  const missing = emptyArtifactsMissing();
  let pending: PendingRecord[] = [];
  let total = 0;
  let lastProgress = performance.now();
  // Counted up front (a directory walk, no reads) only when someone watches: the ETA needs it.
  if (options.onProgress !== undefined) {
    const targets = expandBundleInputs(options.inputs);
    while ((await targets.next()).done !== true) total++;
  }
  const progress = (): void =>
    options.onProgress?.({
      total,
      processed,
      inserted,
      duplicates,
      artifactBundles,
      conflicts: conflicts.length,
      invalid: invalid.length,
      unreadable: unreadable.length,
      storeRefused: storeRefused.length,
    });

  const recordOutcomes = (batch: typeof pending, outcomes: readonly BatchOutcome[]): void => {
    outcomes.forEach((outcome, index) => {
      const entry = batch[index];
      if (entry === undefined) return;
      if (outcome.status === 'store_refused')
        storeRefused.push({
          input: entry.input,
          key: entry.fields.key,
          bundleDigest: entry.record?.bundleDigest ?? '',
          error: { code: outcome.error.code, message: outcome.error.message, issues: outcome.error.issues },
        });
      else if (outcome.status === 'inserted') {
        inserted++;
        coverage.add(entry.fields.cost);
        if (entry.fields.environmentMismatch.length > 0 && environment !== undefined)
          foreign.push({
            input: entry.input,
            key: outcome.key,
            issues: entry.fields.environmentMismatch.map((item) => foreignIssue(item, environment)),
          });
      } else if (outcome.status === 'duplicate') duplicates++;
      else
        conflicts.push({
          input: entry.input,
          key: outcome.key,
          bundleDigest: outcome.bundleDigest,
          existingDigest: outcome.existingDigest,
        });
    });
    progress();
  };

  // One batch is written while the next is parsed (a store may write on another thread or server):
  // at most one in flight, so outcomes are recorded in input order and memory stays bounded.
  let inflight: Promise<void> = Promise.resolve();
  const flush = async (): Promise<void> => {
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    const writer = await writableStore();
    // A bundle the store already holds from a file of the same sha256 is a duplicate whatever else:
    // the same bytes parse to the same bundle, whose canonical digest is the one held (rows are
    // append-only), so its canonical form and digest — a fifth of ingest's work — are not made. One
    // lookup per batch, before the one in flight is done (what it writes is found by the store, as
    // any duplicate is); none in a store this run created (it holds only this run's batches).
    const asked = creations === null ? batch.filter((entry) => entry.bundle !== undefined) : [];
    const digests = await writer.heldDigests(
      asked.map(({ fields }) => ({ key: fields.key, fileSha256: fields.fileSha256 ?? '' })),
    );
    const held = new Map(asked.map((entry, index) => [entry, digests[index] ?? null]));
    const records: LedgerRecord[] = [];
    const known = batch.map((entry): BatchOutcome | undefined => {
      const digest = held.get(entry) ?? null;
      if (digest !== null) return { status: 'duplicate', key: entry.fields.key, bundleDigest: digest };
      entry.record ??= withCanonicalForm(entry.fields, entry.bundle as NativeExecution);
      records.push(entry.record);
      return undefined;
    });
    await inflight;
    inflight = (records.length === 0 ? Promise.resolve([]) : writeBatch(writer, records)).then((outcomes) => {
      let written = 0;
      recordOutcomes(
        batch,
        known.map((outcome) => outcome ?? (outcomes[written++] as BatchOutcome)),
      );
    });
    // Awaited at the next flush or at the end; until then a failure must not count as unhandled.
    inflight.catch(() => undefined);
  };

  try {
    const reads = readAttemptInputs(options.inputs, {
      ...parseOptions,
      stdin,
      // No read-ahead: a bundle is read with synchronous calls (node's readFileBytes), ~10 µs from
      // the page cache, so there is no wait to overlap (through the thread pool, reading 4 files
      // ahead kept the CPU busy while ~150 µs of calls per file were in flight).
    });
    for await (const read of reads) {
      const target = read.input;
      processed++;
      if (options.onProgress !== undefined && performance.now() - lastProgress >= PROGRESS_INTERVAL_MS) {
        lastProgress = performance.now();
        progress();
      }
      // The bundle an artifact of this run read, met again bare: that attempt, counted through its artifact.
      if (read.status === 'artifact_bundle') {
        artifactBundles++;
        continue;
      }
      const judged = await readInput(read, {
        environment,
        artifactRoot: options.artifactRoot,
        artifacts,
        missing,
        checks: (bundle) =>
          evaluateCaseChecks(
            bundle,
            assertionsByCase.get(bundle.identity.caseId) ?? [],
            options.models,
            store,
          ),
      });
      if (judged.kind === 'unreadable') {
        unreadable.push({ input: target.display, error: judged.error, code: judged.code });
        continue;
      }
      if (judged.kind === 'invalid') {
        invalid.push({ input: target.display, issues: judged.issues });
        continue;
      }
      const { entry } = judged;
      // Found by the first pass, unless the file changed since: never written without keepForeign.
      const { fields } = entry;
      if (fields.environmentMismatch.length > 0 && !keepForeign && environment !== undefined) {
        foreign.push({
          input: target.display,
          key: fields.key,
          issues: fields.environmentMismatch.map((item) => foreignIssue(item, environment)),
        });
        continue;
      }
      // In a store this run created nothing is held, so nothing is asked at the flush: the canonical
      // form is made now, while the parsed bundle is young, and the bundle is not kept for the batch
      // (200 parsed bundles outliving the young generation's collections were much of ingest's GC).
      pending.push(
        creations === null || entry.bundle === undefined
          ? entry
          : { input: entry.input, fields, record: withCanonicalForm(fields, entry.bundle) },
      );
      if (pending.length >= batchSize) await flush();
    }
    await flush();
    await inflight;
  } finally {
    await closeIngestStore(store, creations);
  }
  return {
    store: displayLocator(storeUrl),
    processed,
    inserted,
    duplicates,
    artifactBundles,
    conflicts,
    invalid,
    unreadable,
    storeRefused,
    foreign,
    keepForeign,
    artifacts,
    artifactsMissing: settleMissing(missing, options.artifactRoot),
    coverage: coverage.summary(),
    checkModelUsage: options.models === undefined ? null : { ...options.models.gateway.sessionUsage },
  };
}

/**
 * A converted attempt waiting for its batch: a bundle's record is completed with its canonical form
 * at the flush, unless the store already holds it from the same bytes (then it is a duplicate).
 */
interface PendingRecord {
  readonly input: string;
  readonly fields: RecordFields;
  /** The parsed bundle, for its canonical form; absent for an eval-session artifact alone. */
  readonly bundle?: NativeExecution;
  record?: LedgerRecord;
}

/** A record's outcome, or the store's refusal of it (written alone, it still failed). */
type BatchOutcome = InsertOutcome | { readonly status: 'store_refused'; readonly error: EvalbookError };

/**
 * Writes a batch in one transaction; when the store refuses it for what a record holds (a
 * store EvalbookError with store_record_refused: nothing of the batch was written), writes each record alone,
 * in order, so that one record the store cannot take costs only itself. Any other failure (a lost
 * connection, a read-only or full store) ends the run as before: batches already written stay.
 */
export async function writeBatch(
  store: LedgerStore,
  records: readonly LedgerRecord[],
): Promise<BatchOutcome[]> {
  try {
    return await store.insertBatch(records);
  } catch (error) {
    if (!isRecordRefusal(error)) throw error;
    if (records.length === 1) return [{ status: 'store_refused', error }];
  }
  const outcomes: BatchOutcome[] = [];
  for (const record of records)
    try {
      outcomes.push(...(await store.insertBatch([record])));
    } catch (error) {
      if (!isRecordRefusal(error)) throw error;
      outcomes.push({ status: 'store_refused', error });
    }
  return outcomes;
}

async function* stdinAgain(bytes: Promise<Buffer>): AsyncGenerator<Uint8Array> {
  yield await bytes;
}

/** Closes the store; one this run created is removed again when it holds no attempt. */
async function closeIngestStore(
  store: LedgerStore | undefined,
  creations: ReturnType<typeof sqliteCreations> | null,
): Promise<void> {
  if (store === undefined) return;
  const empty = creations !== null && (await store.countAttempts().catch(() => -1)) === 0;
  await store.close();
  if (empty) await removeCreatedSqliteStore(creations);
}

const usesModel = (assertion: Assertion): boolean =>
  isAssertionType(assertion.type) && (LAYER_OF[assertion.type] === 5 || LAYER_OF[assertion.type] === 6);

/**
 * The engine's verdicts on a case's checks over the attempt's trace. Without a provider the model
 * layers are not_evaluated (provider_not_configured), never a pass; with one, no model is called for
 * an attempt the store already holds (it will be a duplicate or a conflict, and is not written).
 */
async function evaluateCaseChecks(
  bundle: NativeExecution,
  assertions: readonly Assertion[],
  models: CaseCheckModels | undefined,
  /** Undefined while a new store is not created yet (so it holds no attempt). */
  store: LedgerStore | undefined,
): Promise<readonly AssertionResult[]> {
  if (assertions.length === 0) return [];
  if (models === undefined || !assertions.some(usesModel))
    return (await evaluateAssertions(toTrace(bundle), assertions)).results;
  const { runId, caseId, configId, attemptId } = bundle.identity;
  if (store !== undefined && (await store.getAttempt({ runId, caseId, configId, attemptId })) !== null)
    return [];
  return (
    await evaluateAssertions(toTrace(bundle), assertions, {
      models: { ...models, calls: models.gateway.forBatch() },
    })
  ).results;
}
