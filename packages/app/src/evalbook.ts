// Reading the Evalbook: the workflows behind `evals report`, `grid`, `compare`, `runs` and
// `retract`. Each opens the store a request names (never creating one) with its environment file,
// read-only unless the request writes, and closes it on every outcome. The report streams the store
// once into node's writeOutputFile (atomically for a file, in place for a device or FIFO, never
// the SQLite file being reported on), and so is one attempt's replay page; grid and compare summarise it with the report's own drift bars
// and denominator policy, so a gate judges the same numbers in every command.
import { displayLocator } from '@paperclip-evals/contract';
import {
  STDOUT_PATH,
  outputConflictIssues,
  outputConflictText,
  outputConflicts,
  writeOutputFile,
} from '@paperclip-evals/node';
import {
  DEFAULT_STORE_URL,
  PROGRESS_EVERY,
  assertGatesJudgeable,
  assertReportOptions,
  decideGates,
  driftThresholdsOf,
  loadAttemptReplay,
  loadEnvironment,
  migrateStore,
  openStore,
  renderAttemptPage,
  sqliteStorePath,
  summariseStore,
  viewOf,
  withExpectedChecks,
  writeReport,
} from '@paperclip-evals/evalbook';

import type {
  AttemptReplay,
  Comparison,
  CompareSpec,
  Environment,
  EvalbookSummary,
  FailOn,
  GateVerdicts,
  GridView,
  LedgerStore,
  ReportFormat,
  ReportResult,
  ShownView,
  StoreMigration,
  StoreSource,
} from '@paperclip-evals/evalbook';

import { AppError } from './errors.js';

/** Which Evalbook, seen how. */
export interface EvalbookRequest {
  /** `sqlite:PATH` or `postgres://…`; default: the environment's store, else DEFAULT_STORE_URL. */
  readonly store?: string;
  /** The environment file (budgets, denominator policy, drift bars, store). */
  readonly env?: string;
  /** Only this run in the grid and per-config rates. */
  readonly run?: string;
  /** Count attempts kept apart as foreign. */
  readonly includeForeign?: boolean;
  /** Called as attempts are read (every `progressEvery`), by the report, the grid and the comparison alike. */
  readonly onProgress?: (read: number) => void;
  /** Attempts between two onProgress calls (a positive integer); evalbook's PROGRESS_EVERY by default. */
  readonly progressEvery?: number;
}

/**
 * An opened Evalbook as its users get it: the store, and the store's name only as displayLocator
 * shows it (a password masked). The locator itself is never handed out, so no command can print,
 * write or quote it raw.
 */
export interface OpenedEvalbook {
  readonly store: LedgerStore;
  /** The store's locator for display: `postgres://user:***@host/db`, `sqlite:book.sqlite`. */
  readonly storeShown: string;
  /** The SQLite file the store is (sqlite:PATH), else null: no secret in it. */
  readonly sqliteFile: string | null;
  /**
   * The locator itself, only for a worker thread to open the same store (publish's page workers):
   * pass it to openStore and nowhere else — never print, write or quote it (storeShown is for that).
   */
  readonly locatorToOpen: string;
  readonly environment: Environment | undefined;
}

/**
 * Opens the store a request names (it must exist) with its environment: read-only unless the caller
 * writes (`retract`), so a store on a read-only mount can be reported on. A store that cannot be
 * opened is the EvalbookError paperclip_evalbook_store_unusable.
 */
export async function openEvalbook(
  request: Pick<EvalbookRequest, 'store' | 'env'>,
  access: 'read' | 'write' = 'read',
): Promise<OpenedEvalbook> {
  const { environment, storeUrl, source } = await storeNamed(request);
  const store = await openStore(storeUrl, { mustExist: true, readOnly: access === 'read', source });
  return {
    store,
    storeShown: displayLocator(storeUrl),
    sqliteFile: sqliteStorePath(storeUrl),
    locatorToOpen: storeUrl,
    environment,
  };
}

/** The store a request names: --store, else its environment file's store:, else the default; and whence. */
async function storeNamed(request: Pick<EvalbookRequest, 'store' | 'env'>): Promise<{
  readonly environment: Environment | undefined;
  readonly storeUrl: string;
  readonly source: StoreSource;
}> {
  const environment = request.env === undefined ? undefined : await loadEnvironment(request.env);
  const storeUrl = request.store ?? environment?.store ?? DEFAULT_STORE_URL;
  const source: StoreSource =
    request.store !== undefined
      ? { from: 'flag', flag: '--store' }
      : environment?.store !== undefined && request.env !== undefined
        ? { from: 'environment', file: request.env }
        : { from: 'default' };
  return { environment, storeUrl, source };
}

/**
 * `evals migrate`: applies the pending migrations of the existing store a request names (evalbook's
 * migrateStore: never creating one), and says which store, as displayLocator shows it.
 */
export async function migrateEvalbook(
  request: Pick<EvalbookRequest, 'store' | 'env'>,
): Promise<StoreMigration & { readonly storeShown: string }> {
  const { storeUrl, source } = await storeNamed(request);
  return { ...(await migrateStore(storeUrl, { source })), storeShown: displayLocator(storeUrl) };
}

/** Runs `use` over the opened Evalbook and closes it, whatever happens. */
export async function withEvalbook<T>(
  request: Pick<EvalbookRequest, 'store' | 'env'>,
  access: 'read' | 'write',
  use: (book: OpenedEvalbook) => Promise<T>,
): Promise<T> {
  const book = await openEvalbook(request, access);
  try {
    return await use(book);
  } finally {
    await book.store.close();
  }
}

/** The attempts as they are read, `onProgress` told every `every` (writeReport's cadence by default). */
async function* counted<T>(
  attempts: AsyncIterable<T>,
  onProgress?: (read: number) => void,
  every: number = PROGRESS_EVERY,
): AsyncIterable<T> {
  let read = 0;
  for await (const attempt of attempts) {
    if (++read % every === 0) onProgress?.(read);
    yield attempt;
  }
}

export interface ReportRequest extends EvalbookRequest {
  readonly format: ReportFormat;
  /** Where the report goes (node's writeOutputFile); default stdout. */
  readonly out?: string;
  readonly compare?: CompareSpec;
  /** The --fail-on gates (every one must hold). */
  readonly failOn: readonly FailOn[];
  /** Where the HTML report is published: the Markdown report links it (--html-url, md only). */
  readonly htmlUrl?: string;
  /** Which runs the grid surfaces show first (--all-runs: all_runs; default newest_run). */
  readonly gridView?: GridView;
}

/**
 * Writes the report (a gate that needs a comparison none is named for, or an --html-url that is
 * not a plain http(s) URL for the Markdown report, is refused before any store is opened) and
 * returns its summary, budgets and gate verdicts.
 */
export async function reportEvalbook(request: ReportRequest): Promise<ReportResult> {
  assertGatesJudgeable(request.failOn, request.compare);
  assertReportOptions(request);
  return withEvalbook(request, 'read', async (book) => {
    const { store, storeShown, environment } = book;
    if (request.out !== undefined) await refuseOutputOverInputs(request.out, book, request.env);
    let result: ReportResult | undefined;
    // A report is a document (JSON, Markdown, JUnit, HTML), on stdout too: its renderer escapes for its format.
    await writeOutputFile(request.out ?? STDOUT_PATH, async (write) => {
      result = await writeReport({
        store,
        storeUrl: storeShown,
        format: request.format,
        write,
        ...(environment === undefined ? {} : { environment }),
        ...(request.run === undefined ? {} : { runId: request.run }),
        ...(request.compare === undefined ? {} : { compare: request.compare }),
        failOn: request.failOn,
        ...(request.htmlUrl === undefined ? {} : { htmlUrl: request.htmlUrl }),
        ...(request.gridView === undefined ? {} : { gridView: request.gridView }),
        includeForeign: request.includeForeign === true,
        ...(request.onProgress === undefined ? {} : { onProgress: request.onProgress }),
        ...(request.progressEvery === undefined ? {} : { progressEvery: request.progressEvery }),
      });
    });
    if (result === undefined) throw new Error('writeOutputFile returned before the report was written');
    return result;
  });
}

export interface AttemptPageRequest extends Pick<EvalbookRequest, 'store' | 'env' | 'run'> {
  /** The attempt to replay; with `run` when the id is stored in more than one run. */
  readonly attemptId: string;
  /** The attempt's case, when the id is stored under several cases (`--case`). */
  readonly caseId?: string;
  /** The attempt's config, when the id is stored under several configs (`--config`). */
  readonly configId?: string;
  /** Where the page goes (node's writeOutputFile); default stdout. */
  readonly out?: string;
}

/**
 * Writes one attempt's replay page (`evals report --attempt`): the stored attempt found by id (and
 * run), replayed (evalbook's loadAttemptReplay) and rendered as one self-contained page
 * (renderAttemptPage). No such attempt, or one id in several runs without `run`, is the
 * EvalbookError paperclip_evalbook_scope_unknown and nothing is written. Returns the replay.
 */
export async function writeAttemptPage(request: AttemptPageRequest): Promise<AttemptReplay> {
  return withEvalbook(request, 'read', async (book) => {
    const { store, environment } = book;
    if (request.out !== undefined) await refuseOutputOverInputs(request.out, book, request.env);
    const replay = await loadAttemptReplay({
      store,
      attemptId: request.attemptId,
      ...(request.run === undefined ? {} : { runId: request.run }),
      ...(request.caseId === undefined ? {} : { caseId: request.caseId }),
      ...(request.configId === undefined ? {} : { configId: request.configId }),
      ...(environment === undefined ? {} : { environment }),
    });
    const title = `${environment?.report?.title ?? environment?.name ?? 'Evalbook'}: attempt ${replay.key.attemptId}`;
    await writeOutputFile(request.out ?? STDOUT_PATH, (write) => write(renderAttemptPage(replay, { title })));
    return replay;
  });
}

/**
 * The output must name none of the report's inputs (node's outputConflicts): not the SQLite file
 * being reported on nor its -wal/-shm/-journal files (the report would replace the ledger), not the
 * environment file — through a symlink or a hard link too.
 */
async function refuseOutputOverInputs(
  out: string,
  book: OpenedEvalbook,
  env: string | undefined,
): Promise<void> {
  const conflicts = await outputConflicts(
    [{ flag: '--out', path: out }],
    [
      ...(book.sqliteFile === null
        ? []
        : [{ flag: '--store', path: book.sqliteFile, kind: 'sqlite' as const }]),
      ...(env === undefined ? [] : [{ flag: '--env', path: env }]),
    ],
  );
  if (conflicts.length === 0) return;
  const store = conflicts.some(({ input }) => input.flag === '--store');
  throw new AppError(
    'paperclip_app_request_invalid',
    `${conflicts.map(outputConflictText).join('; ')}${store ? ` — --out ${out} is the Evalbook being reported on (${book.storeShown})` : ''}: the report would replace it. Name another file for --out`,
    outputConflictIssues(conflicts),
  );
}

/**
 * The Evalbook's summary (grid, rates, comparison when asked), as `evals report` computes it; a
 * comparison of configs pairs the view's runs (the newest run by default, every run with all_runs).
 */
export async function summariseEvalbook(
  request: EvalbookRequest,
  compare?: CompareSpec,
  view: GridView = 'newest_run',
): Promise<EvalbookSummary> {
  return withEvalbook(request, 'read', async ({ store, environment }) => {
    const reading = {
      attempts: () =>
        counted(withExpectedChecks(store.attempts(), environment), request.onProgress, request.progressEvery),
      policyVerdicts: () => store.policyVerdicts(),
    };
    return summariseStore(reading, {
      policy: environment?.report?.denominator ?? 'all_attempts',
      // The same drift bars as `evals report`, so a gate judges the same numbers in both.
      driftThresholdOf: driftThresholdsOf(environment),
      ...(request.run === undefined ? {} : { runId: request.run }),
      ...(compare === undefined ? {} : { compare }),
      view,
      includeForeign: request.includeForeign === true,
      retractions: await store.retractions(),
      retried: await store.retriedTries(),
      ...(environment === undefined ? {} : { suite: environment }),
    });
  });
}

export interface CompareRequest extends EvalbookRequest {
  readonly compare: CompareSpec;
  readonly failOn: readonly FailOn[];
  /** Which runs configs are compared in, and the gates judged in: newest_run (default) or all_runs (--all-runs). */
  readonly view?: GridView;
}

export interface CompareOutcome {
  readonly summary: EvalbookSummary;
  readonly comparison: Comparison;
  /** The view the configs were compared and the gates judged in (evalbook's viewOf). */
  readonly view: ShownView;
  /** Every gate's verdict, or null without gates. */
  readonly gate: GateVerdicts | null;
}

/** A paired comparison and its gates' verdicts (a gate that cannot be judged is refused before any store is opened). */
export async function compareInEvalbook(request: CompareRequest): Promise<CompareOutcome> {
  assertGatesJudgeable(request.failOn, request.compare);
  const view = request.view ?? 'newest_run';
  const summary = await summariseEvalbook(request, request.compare, view);
  if (summary.comparison === null) throw new Error('the summary of a comparison has no comparison');
  return {
    summary,
    comparison: summary.comparison,
    view: viewOf(summary, view),
    gate: decideGates(request.failOn, summary, view),
  };
}
