// The ledger store interface: append-only, keyed by (runId, caseId, configId, attemptId) plus the
// bundle's canonical digest. SQLite (embedded default) and PostgreSQL (shared) implement the same
// asynchronous interface, and one behaviour suite (test/ledger-store.test.ts) runs on both.
import { existsSync } from 'node:fs';
import { rm, rmdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import {
  displayLocator,
  isContractError,
  maskSecrets,
  outputTarget,
  secretsIn,
} from '@paperclip-evals/contract';

import type { Layer } from '@paperclip-evals/checks';
import type { Issue } from '@paperclip-evals/contract';

import type { AttemptKey, LedgerRecord, ScoreRow } from './convert.js';
import type { PolicyVerdict, PolicyVerdictInput, PolicyVerdictOutcome } from './policy-verdicts.js';
import type { Retraction, RetractionOutcome, RetractionRequest } from './retraction.js';

/** What happened to one record of a batch. */
export type InsertOutcome =
  | { readonly status: 'inserted'; readonly key: AttemptKey; readonly bundleDigest: string }
  /** Same identity, same digest: already there, skipped. */
  | { readonly status: 'duplicate'; readonly key: AttemptKey; readonly bundleDigest: string }
  /** Same identity, different digest: nothing overwritten. */
  | {
      readonly status: 'conflict';
      readonly key: AttemptKey;
      readonly bundleDigest: string;
      readonly existingDigest: string;
    };

/** A stored attempt as read back (the record as converted, without the raw bundle text). */
export interface StoredAttempt {
  readonly key: AttemptKey;
  readonly bundleDigest: string;
  readonly record: Omit<LedgerRecord, 'rawCanonical' | 'scores'>;
  readonly scores: readonly ScoreRow[];
}

export interface LedgerStore {
  /** `sqlite` or `postgres`. */
  readonly kind: string;
  /** Writes a batch in ONE transaction: all records' outcomes, or (on an error) nothing at all. */
  insertBatch(records: readonly LedgerRecord[]): Promise<InsertOutcome[]>;
  getAttempt(key: AttemptKey): Promise<StoredAttempt | null>;
  /** The raw bundle's canonical JSON text by its digest, or null. */
  getBundle(digest: string): Promise<string | null>;
  countAttempts(): Promise<number>;
  /**
   * Every stored attempt in insertion order, streamed one at a time. Within one batch the order is
   * the store's: SQLite keeps the batch's order, PostgreSQL writes (and so lists) it by identity.
   */
  attempts(): AsyncIterable<StoredAttempt>;
  /**
   * Writes policy verdicts in ONE transaction: each verdict's outcome (inserted, duplicate, conflict,
   * or refused when its attempt is not in the ledger with that bundle), or on an error nothing at all.
   */
  insertPolicyVerdicts(verdicts: readonly PolicyVerdictInput[]): Promise<PolicyVerdictOutcome[]>;
  /** Every stored policy verdict in insertion order (within a batch, the store's order, as for attempts), paged. */
  policyVerdicts(): AsyncIterable<PolicyVerdict>;
  /** Appends one scored run of a check (the checks engine's drift history). */
  appendDriftRun(run: DriftRunRecord): Promise<void>;
  /**
   * What a drift query needs of one check, oldest first: up to `eligible` of the newest passing or
   * soft-failing runs before the newest run, then the newest run itself (whatever its status).
   */
  driftWindow(checkId: string, eligible: number): Promise<DriftRunRecord[]>;
  /**
   * Appends the retraction of a run or of some of its attempts, in ONE transaction, after checking
   * (retraction.ts planRetraction) that they are stored: a missing run or attempt is a
   * RetractionError and nothing is written; a target already retracted is written again never.
   * The request must have passed checkRetractionRequest.
   */
  retract(request: RetractionRequest): Promise<RetractionOutcome[]>;
  /** Every retraction, in the order they were appended (a small table: read whole). */
  retractions(): Promise<Retraction[]>;
  /** Each run with its counts, in the order runs first reached the store. */
  runs(): Promise<RunCounts[]>;
  /** Applied migration versions, ascending. */
  migrations(): Promise<number[]>;
  close(): Promise<void>;
}

/** One run as `evals runs` lists it: counted in SQL, never by reading every record. */
export interface RunCounts {
  readonly runId: string;
  readonly attempts: number;
  readonly cases: number;
  readonly configs: number;
  /**
   * Attempts by the run terminal state the runner recorded (the report's honest status needs the
   * checks and the environment: see `evals report`).
   */
  readonly terminalStates: Readonly<Record<string, number>>;
  /** Kept apart at ingest (--keep-foreign): not the environment's case or config. */
  readonly foreign: number;
  /** Covered by a retraction (foreign or not). */
  readonly retracted: number;
  /** The run's retraction records (who, why, when), oldest first. */
  readonly retractions: readonly Retraction[];
}

/** Per run: attempts, cases, configs, foreign and retracted (both stores run this SQL as is). */
export const RUNS_SQL = `
  SELECT a.run_id AS run_id, COUNT(*) AS attempts, COUNT(DISTINCT a.case_id) AS cases,
    COUNT(DISTINCT a.config_id) AS configs,
    SUM(CASE WHEN a.environment_mismatch THEN 1 ELSE 0 END) AS foreign_attempts,
    SUM(CASE WHEN EXISTS (SELECT 1 FROM retractions r WHERE r.run_id = a.run_id
      AND (r.attempt_id IS NULL OR r.attempt_id = a.attempt_id)) THEN 1 ELSE 0 END) AS retracted
  FROM attempts a GROUP BY a.run_id ORDER BY MIN(a.id)`;

/** Per run and recorded run terminal state: how many attempts. */
export const RUN_STATES_SQL =
  'SELECT run_id, run_terminal_state AS state, COUNT(*) AS n FROM attempts GROUP BY run_id, run_terminal_state ORDER BY run_id, run_terminal_state';

/** The rows of RUNS_SQL and RUN_STATES_SQL (counts are text from PostgreSQL's bigint). */
export interface RunDbRow {
  readonly run_id: string;
  readonly attempts: number | string;
  readonly cases: number | string;
  readonly configs: number | string;
  readonly foreign_attempts: number | string;
  readonly retracted: number | string;
}
export interface RunStateDbRow {
  readonly run_id: string;
  readonly state: string;
  readonly n: number | string;
}

/** RunCounts from the two queries' rows and the store's retractions. */
export function runCountsFrom(
  runs: readonly RunDbRow[],
  states: readonly RunStateDbRow[],
  retractions: readonly Retraction[],
): RunCounts[] {
  return runs.map((row) => ({
    runId: row.run_id,
    attempts: Number(row.attempts),
    cases: Number(row.cases),
    configs: Number(row.configs),
    terminalStates: Object.fromEntries(
      states.filter((state) => state.run_id === row.run_id).map((state) => [state.state, Number(state.n)]),
    ),
    foreign: Number(row.foreign_attempts),
    retracted: Number(row.retracted),
    retractions: retractions.filter((retraction) => retraction.runId === row.run_id),
  }));
}

/** One versioned schema change of a store. Never edit one that has shipped: add the next. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** One scored run of a check, as the checks engine's drift history keeps it. */
export interface DriftRunRecord {
  readonly checkId: string;
  readonly score: number;
  readonly status: 'pass' | 'soft_fail' | 'hard_fail';
}

/** The one code of a StoreError; its issues (when it has any) say what exactly is wrong. */
export const STORE_ERROR_CODE = 'paperclip_evalbook_store_unusable';

/**
 * A store that cannot be opened or used (unknown scheme, a store from the future, a failed migration,
 * a file that is not a SQLite Evalbook or is corrupt, a read-only store a writer needs): coded, with
 * issues saying what was expected and received, and what to do (the CLI's exit 2).
 */
export class StoreError extends Error {
  override readonly name = 'StoreError';
  readonly code = STORE_ERROR_CODE;
  readonly issues: readonly Issue[];
  constructor(message: string, options: ErrorOptions & { readonly issues?: readonly Issue[] } = {}) {
    super(message, options);
    this.issues = options.issues ?? [];
  }
}

/**
 * The issue code of a StoreError for one write the database refused because of what it held (a
 * constraint, a value out of range, a trigger's refusal), not because the store is unusable: ingest
 * retries such a batch bundle by bundle and reports the bundle the store refuses, and goes on.
 */
export const STORE_RECORD_REFUSED = 'store_record_refused';

/** Whether `error` is a StoreError for a refused record (STORE_RECORD_REFUSED), not an unusable store. */
export function isRecordRefusal(error: unknown): error is StoreError {
  return error instanceof StoreError && error.issues.some((issue) => issue.code === STORE_RECORD_REFUSED);
}

export const DEFAULT_STORE_URL = 'sqlite:.evalbook/evalbook.sqlite';

export interface OpenStoreOptions {
  /** Refuse to create a SQLite file that is not there (readers: a typo must not look like an empty book). */
  readonly mustExist?: boolean;
  /** SQLite: write batches on a worker thread so parsing and writing overlap (needs the built package). */
  readonly writerThread?: boolean;
  /**
   * SQLite: open the file read-only (readers: report, grid, compare, runs), never migrating or
   * writing it, so a store on a read-only mount or a read-only file can be read. Implies mustExist.
   */
  readonly readOnly?: boolean;
}

/**
 * Opens a store by URL: `sqlite:PATH` (relative to the cwd) or `postgres://…` / `postgresql://…`.
 * Every failure is a StoreError whose message never holds the URL's password (the URL is shown as
 * displayLocator shows it, and any message of the driver is masked), or the contract's coded refusal
 * of a SQLite path that is not a regular file or is in a missing folder.
 * A new SQLite file is created only in a folder that exists, except the default store's
 * (DEFAULT_STORE_URL), whose folder is made.
 */
export async function openStore(
  url: string = DEFAULT_STORE_URL,
  options: OpenStoreOptions = {},
): Promise<LedgerStore> {
  try {
    return await openStoreUnmasked(url, options);
  } catch (error) {
    // The contract's refusal of a path that is not a regular file keeps its code (it names a path, no secret).
    if (isContractError(error)) throw error;
    const secrets = secretsIn(url);
    const message = maskSecrets(error instanceof Error ? error.message : String(error), secrets);
    if (error instanceof StoreError)
      throw new StoreError(message, {
        issues: error.issues.map((issue) => JSON.parse(maskSecrets(JSON.stringify(issue), secrets)) as Issue),
      });
    throw new StoreError(`cannot open the store ${displayLocator(url)}: ${message}`);
  }
}

async function openStoreUnmasked(url: string, options: OpenStoreOptions): Promise<LedgerStore> {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    if (path === '') throw new StoreError('sqlite: store URL needs a path (sqlite:PATH)');
    if ((options.mustExist === true || options.readOnly === true) && !existsSync(path))
      throw new StoreError(`no Evalbook at ${path} (expected a SQLite file written by \`evals ingest\`)`);
    const { SqliteStore } = await import('./sqlite-store.js');
    const { sqliteFailure } = await import('./sqlite-store.js');
    const access = options.readOnly === true ? 'read' : 'write';
    const driverFailure = (error: unknown): unknown =>
      error instanceof Error && error.name === 'SqliteError' ? sqliteFailure(error, path, access) : error;
    if (options.readOnly === true) return guardStore(SqliteStore.openReadOnly(path), driverFailure);
    if (options.mustExist !== true) await checkSqliteTarget(url);
    return guardStore(
      SqliteStore.open(path, {
        writerThread: options.writerThread === true,
        createsFolder: url === DEFAULT_STORE_URL,
      }),
      driverFailure,
    );
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    const { PostgresStore } = await import('./postgres-store.js');
    return PostgresStore.open(url);
  }
  throw new StoreError(
    `unknown store URL ${JSON.stringify(displayLocator(url))} (expected sqlite:PATH or postgres://…)`,
  );
}

/**
 * The store with every failure of a call passed through `convert` (the SQLite driver's errors become
 * coded StoreErrors: a page found corrupt mid-report is exit 2, never a stack trace). Other errors
 * (a RetractionError, a StoreError) come through as they are.
 */
export function guardStore(store: LedgerStore, convert: (error: unknown) => unknown): LedgerStore {
  const call = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw convert(error);
    }
  };
  async function* stream<T>(items: () => AsyncIterable<T>): AsyncIterable<T> {
    try {
      yield* items();
    } catch (error) {
      throw convert(error);
    }
  }
  return {
    kind: store.kind,
    insertBatch: (records) => call(() => store.insertBatch(records)),
    getAttempt: (key) => call(() => store.getAttempt(key)),
    getBundle: (digest) => call(() => store.getBundle(digest)),
    countAttempts: () => call(() => store.countAttempts()),
    attempts: () => stream(() => store.attempts()),
    insertPolicyVerdicts: (verdicts) => call(() => store.insertPolicyVerdicts(verdicts)),
    policyVerdicts: () => stream(() => store.policyVerdicts()),
    appendDriftRun: (run) => call(() => store.appendDriftRun(run)),
    driftWindow: (checkId, eligible) => call(() => store.driftWindow(checkId, eligible)),
    retract: (request) => call(() => store.retract(request)),
    retractions: () => call(() => store.retractions()),
    runs: () => call(() => store.runs()),
    migrations: () => call(() => store.migrations()),
    close: () => call(() => store.close()),
  };
}

/** The file a `sqlite:PATH` URL names (relative to the cwd), or null for another store. */
/**
 * Refuses (the contract's coded `paperclip_output_unwritable`, naming the user's path) a SQLite store
 * URL a writer may not open or create: a directory, device, FIFO, socket or `-` is never opened or
 * replaced, and a path in a missing folder is refused — only the default store (DEFAULT_STORE_URL)
 * makes its folder (.evalbook/), so a typo never starts a second, empty ledger. Writers call it before
 * any work (openStore calls it too); other URLs pass.
 */
export async function checkSqliteTarget(url: string): Promise<void> {
  const path = sqliteStorePath(url);
  if (path === null) return;
  await outputTarget(path, { inPlace: false, createsFolders: url === DEFAULT_STORE_URL });
}

export function sqliteStorePath(url: string): string | null {
  return url.startsWith('sqlite:') && url.length > 'sqlite:'.length ? url.slice('sqlite:'.length) : null;
}

/**
 * What opening a new SQLite store at `path` would create: the folders missing above it (deepest
 * first) and the file itself — so that a run that created them and wrote nothing can remove exactly
 * those, and nothing else.
 */
export function sqliteCreations(path: string): { readonly file: string; readonly folders: string[] } {
  const file = resolve(path);
  const folders: string[] = [];
  for (let folder = dirname(file); !existsSync(folder); folder = dirname(folder)) {
    folders.push(folder);
    if (dirname(folder) === folder) break;
  }
  return { file, folders };
}

/** Removes a SQLite store this run created (its -wal/-shm files too) and the folders it created, when empty. */
export async function removeCreatedSqliteStore(creations: ReturnType<typeof sqliteCreations>): Promise<void> {
  for (const suffix of ['', '-wal', '-shm', '-journal'])
    await rm(`${creations.file}${suffix}`, { force: true });
  for (const folder of creations.folders) await rmdir(folder).catch(() => undefined);
}

/** The record as stored: JSON without its raw bundle text (stored once, in bundles) and scores (own table). */
export function storedRecordJson(record: LedgerRecord): string {
  const { rawCanonical, scores, ...stored } = record;
  return JSON.stringify(stored);
}

/** A scores row as both stores return it. */
export interface ScoreDbRow {
  readonly check_id: string;
  /** '1' … '6', 'plugin', or NULL for a check the runner observed (SQL text either way). */
  readonly layer: string | null;
  readonly status: ScoreRow['status'];
  readonly score: number | null;
  readonly reason: string | null;
  readonly evidence_json: string;
}

/** The columns of a score row, in the order both stores insert and select them. */
export const SCORE_COLUMNS = 'check_id, layer, status, score, reason, evidence_json';

/** The insert values of a score row, in SCORE_COLUMNS order. */
export function scoreValues(
  score: ScoreRow,
): [string, string | null, string, number | null, string | null, string] {
  return [
    score.checkId,
    score.layer === null ? null : String(score.layer),
    score.status,
    score.score,
    score.reason,
    JSON.stringify(score.evidence ?? null),
  ];
}

export function scoreFromRow(row: ScoreDbRow): ScoreRow {
  return {
    checkId: row.check_id,
    layer: row.layer === null ? null : row.layer === 'plugin' ? 'plugin' : (Number(row.layer) as Layer),
    status: row.status,
    score: row.score,
    reason: row.reason,
    evidence: JSON.parse(row.evidence_json) as unknown,
  };
}

/** The rows of one page of attempts, grouped by attempt id (rows arrive ordered by attempt). */
export function groupScores<Id>(
  rows: readonly (ScoreDbRow & { readonly attempt: Id })[],
): Map<Id, ScoreRow[]> {
  const byAttempt = new Map<Id, ScoreRow[]>();
  for (const row of rows) {
    let scores = byAttempt.get(row.attempt);
    if (scores === undefined) byAttempt.set(row.attempt, (scores = []));
    scores.push(scoreFromRow(row));
  }
  return byAttempt;
}
