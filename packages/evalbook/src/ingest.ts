// Ingest: stream bundle inputs (files, directories, '-' for stdin) one at a time, parse each with
// the contract parser, verify transcript/artifact digests under an artifact root, evaluate the
// case's engine checks over the attempt's trace, convert, and write in batched transactions.
// Invalid bundles are reported with every issue and never written.
import { lstat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { LAYER_OF, evaluateAssertions, isAssertionType, toTrace } from '@paperclip-evals/checks';
import {
  STDIN_INPUT,
  digestFile,
  expandBundleInputs,
  isContractError,
  isFileSystemError,
  readNativeExecutionFile,
  readNativeExecutionStream,
} from '@paperclip-evals/contract';

import type { Assertion, AssertionResult, EngineServerOptions, ModelUsage } from '@paperclip-evals/checks';
import type {
  BundleInput,
  Issue,
  NativeExecution,
  NativeExecutionInput,
  ParseNativeExecutionOptions,
} from '@paperclip-evals/contract';

import { convertBundle } from './convert.js';
import type { AttemptKey, EnvironmentMismatch, LedgerRecord, ReferenceVerification } from './convert.js';
import { CostInputError, CostRangeError, CoverageTally } from './cost.js';
import type { CoverageSummary } from './cost.js';
import { caseAssertions, loadEnvironment } from './environment.js';
import type { Environment } from './environment.js';
import { DEFAULT_STORE_URL, openStore } from './store.js';
import type { InsertOutcome, LedgerStore } from './store.js';

export interface IngestProgress {
  /** How many inputs there are in all (counted up front, only when progress is asked for). */
  readonly total: number;
  readonly processed: number;
  readonly inserted: number;
  readonly duplicates: number;
  readonly conflicts: number;
  readonly invalid: number;
  readonly unreadable: number;
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
  readonly store: string;
  readonly processed: number;
  readonly inserted: number;
  readonly duplicates: number;
  readonly conflicts: IngestConflict[];
  readonly invalid: { readonly input: string; readonly issues: readonly Issue[] }[];
  readonly unreadable: { readonly input: string; readonly error: string }[];
  /** Inserted attempts whose case/config digest differs from the environment's (flagged, kept apart). */
  readonly environmentMismatches: {
    readonly input: string;
    readonly key: AttemptKey;
    readonly mismatch: readonly EnvironmentMismatch[];
  }[];
  /** Cost coverage of the attempts inserted by this run. */
  readonly coverage: CoverageSummary;
  /** Model calls made for case checks (never the agents' own cost); null without a provider. */
  readonly checkModelUsage: ModelUsage | null;
}

/** A mistake in how ingest was called (no inputs, stdin twice, an empty directory). */
export class IngestUsageError extends Error {
  override readonly name = 'IngestUsageError';
}

/** 0 only inserted/duplicates · 1 conflicts or invalid bundles · 2 unreadable input (takes precedence). */
export function ingestExitCode(summary: IngestSummary): 0 | 1 | 2 {
  if (summary.unreadable.length > 0) return 2;
  return summary.conflicts.length > 0 || summary.invalid.length > 0 ? 1 : 0;
}

/** A progress line a person can follow without it costing anything measurable. */
const PROGRESS_INTERVAL_MS = 250;
const NATIVE_ARTIFACT = 'artifact://native/';

/**
 * Checks the transcript's and artifacts' sha256 under `root`: verified, unverified (no root, not a
 * native artifact URI, or file absent) or mismatched (reported as an issue; the bundle is not written).
 */
export async function verifyReferences(
  bundle: NativeExecution,
  root: string | undefined,
): Promise<{ verification: Map<string, ReferenceVerification>; issues: Issue[] }> {
  const verification = new Map<string, ReferenceVerification>();
  const issues: Issue[] = [];
  const refs = [
    { path: '/transcript', ref: bundle.transcript },
    ...bundle.artifacts.map((ref, index) => ({ path: `/artifacts/${index}`, ref })),
  ];
  for (const { path, ref } of refs) {
    verification.set(ref.uri, 'unverified');
    if (root === undefined || !ref.uri.startsWith(NATIVE_ARTIFACT)) continue;
    const base = resolve(root);
    const file = resolve(base, ref.uri.slice(NATIVE_ARTIFACT.length));
    const inside = relative(base, file);
    if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) {
      issues.push({
        code: 'artifact_uri_outside_root',
        message: `${ref.uri} resolves outside the artifact root`,
        path: `${path}/uri`,
        expected: `a path under ${base}`,
        received: ref.uri,
      });
      verification.set(ref.uri, 'mismatched');
      continue;
    }
    const info = await lstat(file).catch(() => null);
    if (info === null) continue; // absent: unverified
    if (!info.isFile()) {
      issues.push({
        code: 'artifact_not_a_file',
        message: `${file} is not a regular file`,
        path: `${path}/uri`,
        expected: 'a regular file',
        received: ref.uri,
      });
      verification.set(ref.uri, 'mismatched');
      continue;
    }
    const { digest, byteSize } = await digestFile(file);
    if (digest !== ref.sha256 || byteSize !== ref.byteSize) {
      issues.push({
        code: 'artifact_digest_mismatch',
        message: `${ref.uri}: the file under the artifact root does not match the bundle's reference`,
        path: `${path}/${digest !== ref.sha256 ? 'sha256' : 'byteSize'}`,
        expected: digest !== ref.sha256 ? ref.sha256 : ref.byteSize,
        received: digest !== ref.sha256 ? digest : byteSize,
      });
      verification.set(ref.uri, 'mismatched');
    } else verification.set(ref.uri, 'verified');
  }
  return { verification, issues };
}

/** A bundle whose cost cannot be normalised, as an issue like the parser's. */
function costIssue(error: CostInputError | CostRangeError): Issue {
  return error instanceof CostInputError
    ? {
        code: 'cost_figures_inconsistent',
        message: error.message,
        path: error.path,
        expected: error.expected,
        received: error.received,
      }
    : {
        code: 'cost_out_of_range',
        message: error.message,
        path: '/usage',
        expected: 'a cost within the safe bound',
        received: 'too large',
      };
}

/** Files read (and parsed) ahead of the one being converted and written. */
const READ_AHEAD = 4;

/**
 * Yields targets in order, each file's read already under way: while one bundle is parsed and
 * converted, the next files' opens and reads wait on the disk instead of the CPU waiting on them.
 * Stdin (no path) and refused targets carry no read. At most READ_AHEAD bundles are held.
 */
async function* readAhead(
  targets: AsyncGenerator<BundleInput>,
  parseOptions: ParseNativeExecutionOptions,
): AsyncGenerator<{ target: BundleInput; reading: Promise<NativeExecutionInput> | undefined }> {
  const window: { target: BundleInput; reading: Promise<NativeExecutionInput> | undefined }[] = [];
  let exhausted = false;
  const fill = async (): Promise<void> => {
    while (!exhausted && window.length < READ_AHEAD) {
      const next = await targets.next();
      if (next.done === true) {
        exhausted = true;
        return;
      }
      const target = next.value;
      const reading =
        target.path === null || target.refused !== undefined
          ? undefined
          : readNativeExecutionFile(target.path, parseOptions);
      // Its failure is reported when its turn comes; until then it must not count as unhandled.
      reading?.catch(() => undefined);
      window.push({ target, reading });
    }
  };
  await fill();
  for (let entry = window.shift(); entry !== undefined; entry = window.shift()) {
    await fill();
    yield entry;
  }
}

/** Ingests every input into the store; never throws for a bad bundle (it is reported instead). */
export async function ingest(options: IngestOptions): Promise<IngestSummary> {
  if (options.inputs.length === 0)
    throw new IngestUsageError('no inputs: name bundle files, directories or -');
  if (options.inputs.filter((input) => input === STDIN_INPUT).length > 1)
    throw new IngestUsageError('stdin (-) can be given only once');
  const batchSize = options.batchSize ?? 200;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1)
    throw new IngestUsageError('batchSize must be a positive integer');
  const environment: Environment | undefined =
    options.environmentPath === undefined ? undefined : await loadEnvironment(options.environmentPath);
  const assertionsByCase = new Map<string, Assertion[]>(
    (environment?.cases ?? []).map((envCase) => [envCase.id, caseAssertions(envCase)]),
  );
  const storeUrl = options.storeUrl ?? environment?.store ?? DEFAULT_STORE_URL;
  const store = await openStore(storeUrl, { writerThread: options.writerThread === true });

  let processed = 0;
  let inserted = 0;
  let duplicates = 0;
  const conflicts: IngestConflict[] = [];
  const invalid: IngestSummary['invalid'] = [];
  const unreadable: IngestSummary['unreadable'] = [];
  const mismatches: IngestSummary['environmentMismatches'] = [];
  const coverage = new CoverageTally();
  let pending: { input: string; record: LedgerRecord }[] = [];
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
      conflicts: conflicts.length,
      invalid: invalid.length,
      unreadable: unreadable.length,
    });

  const recordOutcomes = (batch: typeof pending, outcomes: readonly InsertOutcome[]): void => {
    outcomes.forEach((outcome, index) => {
      const entry = batch[index];
      if (entry === undefined) return;
      if (outcome.status === 'inserted') {
        inserted++;
        coverage.add(entry.record.cost);
        if (entry.record.environmentMismatch.length > 0)
          mismatches.push({
            input: entry.input,
            key: outcome.key,
            mismatch: entry.record.environmentMismatch,
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
    await inflight;
    inflight = store.insertBatch(batch.map((entry) => entry.record)).then((outcomes) => {
      recordOutcomes(batch, outcomes);
    });
    // Awaited at the next flush or at the end; until then a failure must not count as unhandled.
    inflight.catch(() => undefined);
  };

  const parseOptions = options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes };
  try {
    for await (const { target, reading } of readAhead(expandBundleInputs(options.inputs), parseOptions)) {
      processed++;
      if (options.onProgress !== undefined && performance.now() - lastProgress >= PROGRESS_INTERVAL_MS) {
        lastProgress = performance.now();
        progress();
      }
      if (target.refused !== undefined) {
        unreadable.push({ input: target.display, error: target.refused });
        continue;
      }
      let parsed: NativeExecutionInput;
      try {
        parsed = await (reading ?? readNativeExecutionStream(options.stdin ?? process.stdin, parseOptions));
      } catch (error) {
        if (isContractError(error)) invalid.push({ input: target.display, issues: error.issues });
        else if (isFileSystemError(error)) unreadable.push({ input: target.display, error: error.message });
        else throw error;
        continue;
      }
      const { verification, issues } = await verifyReferences(parsed.bundle, options.artifactRoot);
      if (issues.length > 0) {
        invalid.push({ input: target.display, issues });
        continue;
      }
      const checkResults = await evaluateCaseChecks(
        parsed.bundle,
        assertionsByCase.get(parsed.bundle.identity.caseId) ?? [],
        options.models,
        store,
      );
      let record: LedgerRecord;
      try {
        record = convertBundle(parsed.bundle, {
          fileSha256: parsed.fileSha256,
          verification,
          checkResults,
          ...(environment === undefined ? {} : { environment }),
        });
      } catch (error) {
        if (!(error instanceof CostInputError || error instanceof CostRangeError)) throw error;
        invalid.push({ input: target.display, issues: [costIssue(error)] });
        continue;
      }
      pending.push({ input: target.display, record });
      if (pending.length >= batchSize) await flush();
    }
    await flush();
    await inflight;
  } finally {
    await store.close();
  }
  return {
    store: storeUrl,
    processed,
    inserted,
    duplicates,
    conflicts,
    invalid,
    unreadable,
    environmentMismatches: mismatches,
    coverage: coverage.summary(),
    checkModelUsage: options.models === undefined ? null : { ...options.models.gateway.sessionUsage },
  };
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
  store: LedgerStore,
): Promise<readonly AssertionResult[]> {
  if (assertions.length === 0) return [];
  if (models === undefined || !assertions.some(usesModel))
    return (await evaluateAssertions(toTrace(bundle), assertions)).results;
  const { runId, caseId, configId, attemptId } = bundle.identity;
  if ((await store.getAttempt({ runId, caseId, configId, attemptId })) !== null) return [];
  return (
    await evaluateAssertions(toTrace(bundle), assertions, {
      models: { ...models, calls: models.gateway.forBatch() },
    })
  ).results;
}
