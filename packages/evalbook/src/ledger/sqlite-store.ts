// The SQLite ledger store (better-sqlite3): one file, WAL, versioned migrations in code, append-only
// (triggers refuse UPDATE and DELETE on ledger tables). A batch is one IMMEDIATE transaction, so a
// crash or SIGKILL leaves either the whole batch or none of it.
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { turnIfDue } from '@paperclip-evals/node';

import { STORE_UNUSABLE, isEvalbookError, storeError } from '../errors.js';

import type { EvalbookError } from '../errors.js';
import type { AttemptKey, LedgerRecord, ScoreRow } from './convert.js';
import {
  POLICY_VERDICT_COLUMNS,
  heldVerdictOutcome,
  policyVerdictFromRow,
  policyVerdictValues,
  refusedVerdict,
} from './policy-verdicts.js';
import type {
  PolicyVerdict,
  PolicyVerdictDbRow,
  PolicyVerdictInput,
  PolicyVerdictOutcome,
} from './policy-verdicts.js';
import { CAMPAIGN_COLUMNS, campaignDecision, campaignFromRow, campaignRow } from './campaign-records.js';
import { assertCopyHolds, campaignCopyOutcome, retractionCopyOutcome } from './copy-in.js';
import type {
  CampaignDbRow,
  CampaignRecordInput,
  CampaignRecordOutcome,
  CampaignRow,
  StoredCampaign,
} from './campaign-records.js';
import { RETRACTION_COLUMNS, planRetraction, retractionFromRow, retractionValues } from './retraction.js';
import type { Retraction, RetractionDbRow, RetractionOutcome, RetractionRequest } from './retraction.js';
import {
  RUN_PAGE,
  RUNS_SQL,
  RUN_STATES_SQL,
  SCORE_COLUMNS,
  groupScores,
  runCountsFrom,
  scoreFromRow,
  scoreValues,
  storedRecordJson,
} from './store-rows.js';
import { STORE_RECORD_REFUSED } from './store.js';
import {
  TRY_COLUMNS,
  campaignTryFromRow,
  retriedTriesSql,
  retriedTryFromRow,
  tryCopyOutcome,
  tryInterruptionValues,
  tryRowFromDb,
  tryRowValues,
  tryRowsOf,
  tryStartValues,
} from './try-starts.js';
import type {
  CampaignTry,
  CampaignTryDbRow,
  RetriedTryDbRow,
  TryCopyOutcome,
  TryInterruption,
  TryRowDbRow,
  TryStart,
  UnsettledDbRow,
} from './try-starts.js';
import type {
  CopyInBatch,
  CopyInOutcome,
  DriftRunRecord,
  HeldDigestQuery,
  InsertOutcome,
  LedgerStore,
  Migration,
  RunCounts,
  StoredAttempt,
} from './store.js';
import type { RunDbRow, RunStateDbRow, ScoreDbRow } from './store-rows.js';

/** The writer thread's protocol (sqlite-writer.ts runs it; it imports these from here, never the reverse). */
/** A request from the store: a batch to write (packWrites), or the signal to close the connection and end. */
export type WriterRequest =
  { readonly id: number; readonly writes: PackedWrites } | { readonly id: number; readonly close: true };

/**
 * One record as the insert statements take it (attemptWrite): the values are made where the record
 * is, so the writer thread is sent strings and numbers, not the record's object tree.
 */
export interface AttemptWrite {
  readonly key: AttemptKey;
  readonly bundleDigest: string;
  /** The bundle's canonical JSON text (the bundles row). */
  readonly canonical: string;
  /** The attempt row's columns from file_sha256 to environment_mismatch, in the insert's order. */
  readonly columns: readonly (string | number | null)[];
  /** The record as stored (storedRecordJson). */
  readonly recordJson: string;
  readonly legacyLedgerNanodollars: number | null;
  readonly scores: readonly ReturnType<typeof scoreValues>[];
}

/**
 * A batch of writes for the writer thread: each write's two long texts (the canonical bundle, ~15 KB,
 * and the record JSON) as UTF-8 in one buffer that is transferred, not copied — the structured clone
 * of those strings and of the records' objects was a tenth of ingest's CPU, on both threads. Both
 * texts are well-formed Unicode (canonicalize refuses a lone surrogate; JSON.stringify escapes one),
 * so the UTF-8 round trip gives the same strings.
 */
export interface PackedWrites {
  readonly writes: readonly Omit<AttemptWrite, 'canonical' | 'recordJson'>[];
  readonly text: ArrayBuffer;
  /** Two byte offsets per write: where its canonical text ends, where its record JSON ends. */
  readonly ends: readonly number[];
}

/** The insert values of a record (what insertOne writes). */
export function attemptWrite(record: LedgerRecord): AttemptWrite {
  const { cost } = record;
  return {
    key: record.key,
    bundleDigest: record.bundleDigest,
    canonical: record.rawCanonical,
    columns: [
      record.fileSha256,
      record.provenance,
      record.terminal.run,
      record.failure?.classification ?? null,
      record.transcript.complete ? 1 : 0,
      record.denials,
      cost.coverage,
      cost.providerReportedNanodollars,
      cost.estimatedNanodollars,
      cost.pricingVersion,
      record.environmentMismatch.length > 0 ? 1 : 0,
    ],
    recordJson: storedRecordJson(record),
    legacyLedgerNanodollars: cost.legacyLedgerNanodollars,
    scores: record.scores.map(scoreValues),
  };
}

/** The writes with their texts in one buffer to transfer (the buffer is the message's only transferable). */
export function packWrites(writes: readonly AttemptWrite[]): PackedWrites {
  let size = 0;
  for (const write of writes)
    size += Buffer.byteLength(write.canonical) + Buffer.byteLength(write.recordJson);
  // Its own ArrayBuffer (not Buffer's shared pool): the whole of it is handed to the writer thread.
  const text = new ArrayBuffer(size);
  const view = Buffer.from(text);
  const ends: number[] = [];
  let at = 0;
  for (const write of writes) {
    at += view.write(write.canonical, at);
    ends.push(at);
    at += view.write(write.recordJson, at);
    ends.push(at);
  }
  return { writes: writes.map(({ canonical: _c, recordJson: _r, ...rest }) => rest), text, ends };
}

/** packWrites undone (in the writer thread). */
export function unpackWrites(packed: PackedWrites): AttemptWrite[] {
  const text = Buffer.from(packed.text);
  let at = 0;
  return packed.writes.map((write, index) => {
    const canonicalEnd = packed.ends[2 * index] as number;
    const recordEnd = packed.ends[2 * index + 1] as number;
    const canonical = text.toString('utf8', at, canonicalEnd);
    const recordJson = text.toString('utf8', canonicalEnd, recordEnd);
    at = recordEnd;
    return { ...write, canonical, recordJson };
  });
}

export type WriterReply =
  | { readonly id: number; readonly outcomes: InsertOutcome[] }
  /** The write failed: the driver's message and its code (SQLITE_READONLY, ...), when it has one. */
  | { readonly id: number; readonly error: string; readonly code?: string }
  | { readonly id: number; readonly closed: true };

const appendOnly = (table: string): string => `
  CREATE TRIGGER ${table}_no_update BEFORE UPDATE ON ${table} BEGIN SELECT RAISE(ABORT, '${table} is append-only'); END;
  CREATE TRIGGER ${table}_no_delete BEFORE DELETE ON ${table} BEGIN SELECT RAISE(ABORT, '${table} is append-only'); END;`;

/** The migrations, in order. Never edit one that has shipped: add the next. */
export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'ledger',
    sql: `
      CREATE TABLE bundles (
        digest TEXT PRIMARY KEY,
        canonical_json TEXT NOT NULL
      ) STRICT;
      CREATE TABLE attempts (
        id INTEGER PRIMARY KEY,
        run_id TEXT NOT NULL,
        case_id TEXT NOT NULL,
        config_id TEXT NOT NULL,
        attempt_id TEXT NOT NULL,
        bundle_digest TEXT NOT NULL REFERENCES bundles(digest),
        file_sha256 TEXT,
        provenance TEXT NOT NULL,
        run_terminal_state TEXT NOT NULL,
        failure_classification TEXT,
        transcript_complete INTEGER NOT NULL,
        denials INTEGER NOT NULL,
        cost_coverage TEXT NOT NULL,
        provider_cost_nanodollars INTEGER,
        estimated_cost_nanodollars INTEGER,
        pricing_version TEXT,
        environment_mismatch INTEGER NOT NULL,
        record_json TEXT NOT NULL,
        UNIQUE (run_id, case_id, config_id, attempt_id)
      ) STRICT;
      CREATE INDEX attempts_bundle ON attempts(bundle_digest);
      CREATE TABLE scores (
        attempt INTEGER NOT NULL REFERENCES attempts(id),
        check_id TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pass', 'fail', 'error', 'not_evaluated')),
        score REAL,
        reason TEXT,
        evidence_json TEXT NOT NULL,
        PRIMARY KEY (attempt, check_id)
      ) STRICT;
      ${appendOnly('bundles')}
      ${appendOnly('attempts')}
      ${appendOnly('scores')}`,
  },
  {
    version: 2,
    name: 'legacy ledger cost',
    // Kept apart from the estimate (never added to it); older rows predate the figure: NULL, unknown.
    sql: 'ALTER TABLE attempts ADD COLUMN legacy_ledger_cost_nanodollars INTEGER',
  },
  {
    version: 3,
    name: 'policy verdicts',
    // One row per (attempt, tool call, policy bundle digest): the attempt row stands for its
    // (run_id, case_id, config_id, attempt_id) key, and must exist.
    sql: `
      CREATE TABLE policy_verdicts (
        id INTEGER PRIMARY KEY,
        attempt INTEGER NOT NULL REFERENCES attempts(id),
        call_id TEXT NOT NULL,
        policy_digest TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        decision TEXT CHECK (decision IN ('allow', 'deny', 'ask')),
        rule_id TEXT,
        reason TEXT,
        error_code TEXT,
        recorded_outcome TEXT,
        agreement TEXT NOT NULL CHECK (agreement IN ('agree', 'policy_denies_runner_allowed',
          'runner_denied_policy_allows', 'policy_error', 'no_recorded_outcome')),
        UNIQUE (attempt, call_id, policy_digest)
      ) STRICT;
      ${appendOnly('policy_verdicts')}`,
  },
  {
    version: 4,
    name: 'drift runs',
    // The checks engine's scored runs per assertion, in arrival order (id), for query_drift.
    sql: `
      CREATE TABLE drift_runs (
        id INTEGER PRIMARY KEY,
        check_id TEXT NOT NULL,
        score REAL NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pass', 'soft_fail', 'hard_fail'))
      ) STRICT;
      CREATE INDEX drift_runs_check ON drift_runs(check_id, id);
      ${appendOnly('drift_runs')}`,
  },
  {
    version: 5,
    name: 'engine check scores',
    // Score rows of engine checks carry their layer and may be soft failures. SQLite cannot widen a
    // CHECK in place: the table is rebuilt, rows copied in their order (rowid), triggers restored.
    sql: `
      CREATE TABLE scores_v5 (
        attempt INTEGER NOT NULL REFERENCES attempts(id),
        check_id TEXT NOT NULL,
        layer TEXT CHECK (layer IN ('1', '2', '3', '4', '5', '6', 'plugin')),
        status TEXT NOT NULL CHECK (status IN ('pass', 'fail', 'soft_fail', 'error', 'not_evaluated')),
        score REAL,
        reason TEXT,
        evidence_json TEXT NOT NULL,
        PRIMARY KEY (attempt, check_id)
      ) STRICT;
      INSERT INTO scores_v5 (attempt, check_id, layer, status, score, reason, evidence_json)
        SELECT attempt, check_id, NULL, status, score, reason, evidence_json FROM scores ORDER BY rowid;
      DROP TABLE scores;
      ALTER TABLE scores_v5 RENAME TO scores;
      ${appendOnly('scores')}`,
  },
  {
    version: 6,
    name: 'retractions',
    // A retracted run (attempt_id NULL) or attempt, with who, why and when: appended, never deleted.
    // One record per target (attempt ids are never empty, so '' stands for the whole run).
    sql: `
      CREATE TABLE retractions (
        id INTEGER PRIMARY KEY,
        run_id TEXT NOT NULL,
        attempt_id TEXT,
        reason TEXT NOT NULL,
        retracted_by TEXT NOT NULL,
        retracted_at TEXT NOT NULL
      ) STRICT;
      CREATE UNIQUE INDEX retractions_target ON retractions (run_id, COALESCE(attempt_id, ''));
      ${appendOnly('retractions')}`,
  },
  {
    version: 7,
    name: 'policy decisions kept whole',
    // A verdict keeps the producer's whole Decision (decision_json, exactly as sent) and its verdict
    // as received (verdict: any string); an unfamiliar verdict is its own agreement. Rebuilt like
    // version 5 (a CHECK cannot be widened in place); rows keep their ids and order.
    sql: `
      CREATE TABLE policy_verdicts_v7 (
        id INTEGER PRIMARY KEY,
        attempt INTEGER NOT NULL REFERENCES attempts(id),
        call_id TEXT NOT NULL,
        policy_digest TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        decision TEXT CHECK (decision IN ('allow', 'deny', 'ask')),
        rule_id TEXT,
        reason TEXT,
        error_code TEXT,
        recorded_outcome TEXT,
        agreement TEXT NOT NULL CHECK (agreement IN ('agree', 'policy_denies_runner_allowed',
          'runner_denied_policy_allows', 'policy_error', 'policy_verdict_unfamiliar', 'no_recorded_outcome')),
        verdict TEXT,
        decision_json TEXT,
        UNIQUE (attempt, call_id, policy_digest)
      ) STRICT;
      INSERT INTO policy_verdicts_v7 (id, attempt, call_id, policy_digest, tool_name, decision, rule_id,
          reason, error_code, recorded_outcome, agreement, verdict, decision_json)
        SELECT id, attempt, call_id, policy_digest, tool_name, decision, rule_id, reason, error_code,
          recorded_outcome, agreement, NULL, NULL FROM policy_verdicts ORDER BY id;
      DROP TABLE policy_verdicts;
      ALTER TABLE policy_verdicts_v7 RENAME TO policy_verdicts;
      ${appendOnly('policy_verdicts')}`,
  },
  {
    version: 8,
    name: 'campaign records',
    // One evals-campaign/v1 record per campaign id (campaign-records.ts): canonical JSON and its digest.
    sql: `
      CREATE TABLE campaigns (
        id INTEGER PRIMARY KEY,
        campaign_id TEXT NOT NULL UNIQUE,
        record_digest TEXT NOT NULL,
        record_json TEXT NOT NULL
      ) STRICT;
      ${appendOnly('campaigns')}`,
  },
  {
    version: 9,
    name: 'attempts by attempt id',
    // `evals report --attempt ID` looks an attempt up by its id alone (attemptsById): the key's unique
    // index leads with the run id, so the attempt id gets its own.
    sql: `CREATE INDEX attempts_attempt ON attempts(attempt_id);`,
  },
  {
    version: 10,
    name: 'campaign records superseded, never replaced',
    // A campaign id holds every record of its plan (a budget-stopped campaign, then its resumed
    // complete record), each once: unique by (campaign id, record digest), no longer by the id alone.
    // Rebuilt like version 7 (a UNIQUE constraint cannot be dropped in place); rows keep their ids
    // and order, which are the records' sequence.
    sql: `
      CREATE TABLE campaigns_v10 (
        id INTEGER PRIMARY KEY,
        campaign_id TEXT NOT NULL,
        record_digest TEXT NOT NULL,
        record_json TEXT NOT NULL,
        UNIQUE (campaign_id, record_digest)
      ) STRICT;
      INSERT INTO campaigns_v10 (id, campaign_id, record_digest, record_json)
        SELECT id, campaign_id, record_digest, record_json FROM campaigns ORDER BY id;
      DROP TABLE campaigns;
      ALTER TABLE campaigns_v10 RENAME TO campaigns;
      ${appendOnly('campaigns')}`,
  },
  {
    version: 11,
    name: 'campaign try starts',
    // Write-ahead try starts (try-starts.ts): a `started` row before a try's session is spawned, an
    // `interrupted` row when the campaign killed it. Settled = the attempts table holds the try.
    sql: `
      CREATE TABLE campaign_tries (
        id INTEGER PRIMARY KEY,
        campaign_id TEXT NOT NULL,
        case_id TEXT NOT NULL,
        config_id TEXT NOT NULL,
        attempt_id TEXT NOT NULL,
        try_number INTEGER NOT NULL CHECK (try_number >= 1),
        try_id TEXT NOT NULL,
        event TEXT NOT NULL CHECK (event IN ('started', 'interrupted')),
        at TEXT NOT NULL,
        detail_json TEXT NOT NULL,
        UNIQUE (campaign_id, case_id, config_id, try_id, event)
      ) STRICT;
      ${appendOnly('campaign_tries')}`,
  },
];

/** A campaign's starts with whether the attempts table holds each try, and its interruption row. */
const SQLITE_CAMPAIGN_TRIES = `
  SELECT s.campaign_id, s.case_id, s.config_id, s.attempt_id, s.try_number, s.try_id, s.at, s.detail_json,
    EXISTS (SELECT 1 FROM attempts a WHERE a.run_id = s.campaign_id AND a.case_id = s.case_id
      AND a.config_id = s.config_id AND a.attempt_id = s.try_id) AS settled,
    i.at AS interrupted_at, i.detail_json AS interrupted_json
  FROM campaign_tries s
  LEFT JOIN campaign_tries i ON i.event = 'interrupted' AND i.campaign_id = s.campaign_id
    AND i.case_id = s.case_id AND i.config_id = s.config_id AND i.try_id = s.try_id
  WHERE s.event = 'started' AND s.campaign_id = ? ORDER BY s.id`;

/** The tries a later try of their planned attempt replaced (try-starts.ts retriedTriesSql). */
const SQLITE_RETRIED = retriedTriesSql(`SELECT 1 FROM attempts a WHERE a.run_id = s.campaign_id
  AND a.case_id = s.case_id AND a.config_id = s.config_id AND a.attempt_id = s.try_id`);

/** Per campaign (run id), in the order its first start was appended: its starts whose try the attempts table does not hold. */
const SQLITE_UNSETTLED = `
  SELECT s.campaign_id AS run_id, COUNT(*) AS n FROM campaign_tries s
  WHERE s.event = 'started' AND NOT EXISTS (SELECT 1 FROM attempts a WHERE a.run_id = s.campaign_id
    AND a.case_id = s.case_id AND a.config_id = s.config_id AND a.attempt_id = s.try_id)
  GROUP BY s.campaign_id ORDER BY MIN(s.id)`;

interface AttemptRow {
  readonly id: number;
  readonly bundle_digest: string;
  readonly record_json: string;
}

export class SqliteStore implements LedgerStore {
  readonly kind = 'sqlite';
  private readonly select;
  private readonly insertBundle;
  private readonly insertAttempt;
  private readonly insertScore;
  private readonly selectScores;
  private readonly batch;
  private readonly selectAttemptRef;
  private readonly selectHeldDigest;
  private readonly selectVerdict;
  private readonly insertVerdict;
  private readonly verdictBatch;

  private constructor(
    private readonly db: Database.Database,
    readonly path: string,
  ) {
    this.select = db.prepare<[string, string, string, string], AttemptRow>(
      'SELECT id, bundle_digest, record_json FROM attempts WHERE run_id = ? AND case_id = ? AND config_id = ? AND attempt_id = ?',
    );
    this.insertBundle = db.prepare('INSERT OR IGNORE INTO bundles (digest, canonical_json) VALUES (?, ?)');
    this.insertAttempt = db.prepare(
      `INSERT INTO attempts (run_id, case_id, config_id, attempt_id, bundle_digest, file_sha256, provenance,
         run_terminal_state, failure_classification, transcript_complete, denials, cost_coverage,
         provider_cost_nanodollars, estimated_cost_nanodollars, pricing_version, environment_mismatch, record_json,
       legacy_ledger_cost_nanodollars)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.insertScore = db.prepare(
      `INSERT INTO scores (attempt, ${SCORE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.selectScores = db.prepare<[number], ScoreDbRow>(
      `SELECT ${SCORE_COLUMNS} FROM scores WHERE attempt = ? ORDER BY rowid`,
    );
    this.batch = db.transaction((writes: readonly AttemptWrite[]) =>
      writes.map((write) => this.insertOne(write)),
    );
    this.selectAttemptRef = db.prepare<
      [string, string, string, string],
      { id: number; bundle_digest: string }
    >(
      'SELECT id, bundle_digest FROM attempts WHERE run_id = ? AND case_id = ? AND config_id = ? AND attempt_id = ?',
    );
    this.selectHeldDigest = db.prepare<[string, string, string, string, string], { bundle_digest: string }>(
      'SELECT bundle_digest FROM attempts WHERE run_id = ? AND case_id = ? AND config_id = ? AND attempt_id = ? AND file_sha256 = ?',
    );
    this.selectVerdict = db.prepare<[number, string, string], PolicyVerdictDbRow>(
      `SELECT ${POLICY_VERDICT_COLUMNS} FROM policy_verdicts v JOIN attempts a ON a.id = v.attempt
       WHERE v.attempt = ? AND v.call_id = ? AND v.policy_digest = ?`,
    );
    this.insertVerdict = db.prepare(
      `INSERT INTO policy_verdicts (attempt, call_id, policy_digest, tool_name, decision, rule_id, reason,
         error_code, recorded_outcome, agreement, verdict, decision_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.verdictBatch = db.transaction((verdicts: readonly PolicyVerdictInput[]) =>
      verdicts.map((verdict) => this.insertVerdictOne(verdict)),
    );
  }

  /** Set by open({ writerThread: true }): batches are written there instead of on this connection. */
  private writer: WriterThread | undefined;

  /**
   * Opens (creating if needed) the file and applies pending migrations; refuses a store from the
   * future. With `writerThread`, insertBatch runs on a worker thread (reads stay on this connection).
   * Its folder must exist unless `createsFolder` (the default store's: openStore decides).
   */
  static open(
    path: string,
    options: { readonly writerThread?: boolean; readonly createsFolder?: boolean } = {},
  ): SqliteStore {
    const file = resolve(path);
    refuseUnlessRegular(file, path);
    if (options.createsFolder === true) mkdirSync(dirname(file), { recursive: true });
    let db: Database.Database | undefined;
    try {
      db = new Database(file);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      db.pragma('busy_timeout = 5000');
      migrate(db, SQLITE_MIGRATIONS);
    } catch (error) {
      db?.close();
      throw sqliteFailure(error, path, 'write');
    }
    const store = new SqliteStore(db, file);
    if (options.writerThread === true) store.writer = new WriterThread(file);
    return store;
  }

  /**
   * Opens an existing store read-only: never migrated, never written, no -wal/-shm file needed. A
   * store in WAL mode whose folder cannot take SQLite's -shm file (a read-only mount, a read-only
   * folder) is read from a copy in memory, as long as no -wal file holds changes not yet in it. A
   * store that needs a migration is refused (`evals migrate`, or any writer, migrates it).
   */
  static openReadOnly(path: string): SqliteStore {
    const file = resolve(path);
    refuseUnlessRegular(file, path);
    let db: Database.Database | undefined;
    try {
      try {
        db = new Database(file, { readonly: true, fileMustExist: true });
        db.pragma('busy_timeout = 5000');
        db.prepare('SELECT COUNT(*) FROM sqlite_schema').get();
      } catch (error) {
        db?.close();
        db = undefined;
        // SQLite could not make its -shm/-wal files beside the store (a read-only folder or mount).
        const code = (error as { code?: unknown }).code;
        if (typeof code !== 'string' || !(code === 'SQLITE_CANTOPEN' || code.startsWith('SQLITE_READONLY')))
          throw error;
        db = inMemoryCopy(file, path);
      }
      checkMigrated(db, SQLITE_MIGRATIONS, path);
      return new SqliteStore(db, file);
    } catch (error) {
      db?.close();
      throw sqliteFailure(error, path, 'read');
    }
  }

  private insertOne(write: AttemptWrite): InsertOutcome {
    const { key, bundleDigest } = write;
    const existing = this.select.get(key.runId, key.caseId, key.configId, key.attemptId);
    if (existing !== undefined)
      return existing.bundle_digest === bundleDigest
        ? { status: 'duplicate', key, bundleDigest }
        : { status: 'conflict', key, bundleDigest, existingDigest: existing.bundle_digest };
    this.insertBundle.run(bundleDigest, write.canonical);
    const info = this.insertAttempt.run(
      key.runId,
      key.caseId,
      key.configId,
      key.attemptId,
      bundleDigest,
      ...write.columns,
      write.recordJson,
      write.legacyLedgerNanodollars,
    );
    for (const score of write.scores) this.insertScore.run(info.lastInsertRowid, ...score);
    return { status: 'inserted', key, bundleDigest };
  }

  /** On this connection: WAL lets it read while the writer thread writes (it sees committed batches). */
  heldDigests(attempts: readonly HeldDigestQuery[]): Promise<(string | null)[]> {
    try {
      return Promise.resolve(
        attempts.map(
          ({ key, fileSha256 }) =>
            this.selectHeldDigest.get(key.runId, key.caseId, key.configId, key.attemptId, fileSha256)
              ?.bundle_digest ?? null,
        ),
      );
    } catch (error) {
      return Promise.reject(sqliteFailure(error, this.path, 'read'));
    }
  }

  insertBatch(records: readonly LedgerRecord[]): Promise<InsertOutcome[]> {
    try {
      const writes = records.map(attemptWrite);
      return this.writer === undefined ? this.insertWrites(writes) : this.writer.insert(writes);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** insertBatch of records already made into their insert values, on this connection (the writer thread's). */
  insertWrites(writes: readonly AttemptWrite[]): Promise<InsertOutcome[]> {
    try {
      return Promise.resolve(this.batch.immediate(writes));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private insertVerdictOne(verdict: PolicyVerdictInput): PolicyVerdictOutcome {
    const { key } = verdict;
    const attempt = this.selectAttemptRef.get(key.runId, key.caseId, key.configId, key.attemptId);
    if (attempt === undefined) return refusedVerdict(verdict, null);
    if (attempt.bundle_digest !== verdict.bundleDigest) return refusedVerdict(verdict, attempt.bundle_digest);
    const existing = this.selectVerdict.get(attempt.id, verdict.callId, verdict.policyDigest);
    if (existing !== undefined) return heldVerdictOutcome(verdict, policyVerdictFromRow(existing));
    this.insertVerdict.run(attempt.id, verdict.callId, verdict.policyDigest, ...policyVerdictValues(verdict));
    return { status: 'inserted', verdict };
  }

  /** On this connection (the writer thread, when there is one, carries ingest batches only). */
  insertPolicyVerdicts(verdicts: readonly PolicyVerdictInput[]): Promise<PolicyVerdictOutcome[]> {
    try {
      return Promise.resolve(this.verdictBatch.immediate(verdicts));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  retract(request: RetractionRequest): Promise<RetractionOutcome[]> {
    const work = this.db.transaction((): RetractionOutcome[] => {
      const attempts = this.db
        .prepare<[string], { case_id: string; config_id: string; attempt_id: string }>(
          'SELECT case_id, config_id, attempt_id FROM attempts WHERE run_id = ? ORDER BY id',
        )
        .all(request.runId)
        .map((row) => ({
          runId: request.runId,
          caseId: row.case_id,
          configId: row.config_id,
          attemptId: row.attempt_id,
        }));
      const held = (): Retraction[] =>
        this.db
          .prepare<[string], RetractionDbRow>(
            `SELECT ${RETRACTION_COLUMNS} FROM retractions WHERE run_id = ? ORDER BY id`,
          )
          .all(request.runId)
          .map(retractionFromRow);
      const { outcomes, append } = planRetraction(request, attempts, held());
      const insert = this.db.prepare(
        `INSERT INTO retractions (${RETRACTION_COLUMNS}) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      );
      for (const retraction of append) insert.run(...retractionValues(retraction));
      return outcomes;
    });
    try {
      return Promise.resolve(work.immediate());
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  copyIn(batch: CopyInBatch): Promise<CopyInOutcome> {
    const selectRetraction = this.db.prepare<[string, string], RetractionDbRow>(
      `SELECT ${RETRACTION_COLUMNS} FROM retractions WHERE run_id = ? AND COALESCE(attempt_id, '') = ?`,
    );
    const runHeld = this.db.prepare<[string], { one: number }>(
      'SELECT 1 AS one FROM attempts WHERE run_id = ? LIMIT 1',
    );
    const attemptHeld = this.db.prepare<[string, string], { one: number }>(
      'SELECT 1 AS one FROM attempts WHERE run_id = ? AND attempt_id = ? LIMIT 1',
    );
    const insertRetraction = this.db.prepare(
      `INSERT INTO retractions (${RETRACTION_COLUMNS}) VALUES (?, ?, ?, ?, ?)`,
    );
    const selectTry = this.db.prepare<[string, string, string, string, string], TryRowDbRow>(
      `SELECT ${TRY_COLUMNS} FROM campaign_tries WHERE campaign_id = ? AND case_id = ? AND config_id = ? AND try_id = ? AND event = ?`,
    );
    const insertTry = this.db.prepare(
      `INSERT INTO campaign_tries (${TRY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    // One transaction: a throw (assertCopyHolds, or the store's own) rolls every write back.
    const work = this.db.transaction((): CopyInOutcome =>
      assertCopyHolds({
        attempts: batch.records.map((record) => this.insertOne(attemptWrite(record))),
        policyVerdicts: batch.policyVerdicts.map((verdict) => this.insertVerdictOne(verdict)),
        retractions: batch.retractions.map((retraction) => {
          const existing = selectRetraction.get(retraction.runId, retraction.attemptId ?? '');
          const held =
            retraction.attemptId === null
              ? runHeld.get(retraction.runId)
              : attemptHeld.get(retraction.runId, retraction.attemptId);
          const outcome = retractionCopyOutcome(
            retraction,
            existing === undefined ? undefined : retractionFromRow(existing),
            held !== undefined,
          );
          if (outcome.status === 'inserted') insertRetraction.run(...retractionValues(retraction));
          return outcome;
        }),
        campaigns: (batch.campaigns ?? []).map((input) =>
          campaignCopyOutcome(input, (row) => this.appendCampaign(row)),
        ),
        tries: tryRowsOf(batch.tries ?? []).map((row): TryCopyOutcome => {
          const existing = selectTry.get(row.campaignId, row.caseId, row.configId, row.tryId, row.event);
          const outcome = tryCopyOutcome(row, existing === undefined ? undefined : tryRowFromDb(existing));
          if (outcome.status === 'inserted') insertTry.run(...tryRowValues(row));
          return outcome;
        }),
      }),
    );
    try {
      return Promise.resolve(work.immediate());
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  retractions(): Promise<Retraction[]> {
    return Promise.resolve(
      this.db
        .prepare<[], RetractionDbRow>(`SELECT ${RETRACTION_COLUMNS} FROM retractions ORDER BY id`)
        .all()
        .map(retractionFromRow),
    );
  }

  recordCampaign(input: CampaignRecordInput): Promise<CampaignRecordOutcome> {
    try {
      const row = campaignRow(input);
      const work = this.db.transaction((): CampaignRecordOutcome => this.appendCampaign(row));
      return Promise.resolve(work.immediate());
    } catch (error) {
      return Promise.reject(isEvalbookError(error) ? error : sqliteFailure(error, this.path, 'write'));
    }
  }

  /** Inside a transaction: appends `row` by campaign-records.ts's rule (or throws, nothing written). */
  private appendCampaign(row: CampaignRow): CampaignRecordOutcome {
    const held = this.db
      .prepare<[string], CampaignDbRow>(
        `SELECT id, ${CAMPAIGN_COLUMNS} FROM campaigns WHERE campaign_id = ? ORDER BY id`,
      )
      .all(row.campaignId)
      .map(campaignFromRow);
    const outcome = campaignDecision(row, held);
    if (outcome !== 'duplicate')
      this.db
        .prepare(`INSERT INTO campaigns (${CAMPAIGN_COLUMNS}) VALUES (?, ?, ?)`)
        .run(row.campaignId, row.digest, row.canonical);
    return outcome;
  }

  campaigns(): Promise<StoredCampaign[]> {
    return Promise.resolve(
      this.db
        .prepare<[], CampaignDbRow>(`SELECT id, ${CAMPAIGN_COLUMNS} FROM campaigns ORDER BY id`)
        .all()
        .map(campaignFromRow),
    );
  }

  async runs(): Promise<RunCounts[]> {
    const runs = this.db.prepare<[], RunDbRow>(RUNS_SQL).all();
    const states = this.db.prepare<[], RunStateDbRow>(RUN_STATES_SQL).all();
    const unsettled = this.db.prepare<[], UnsettledDbRow>(SQLITE_UNSETTLED).all();
    return runCountsFrom(runs, states, await this.retractions(), unsettled);
  }

  /** On this connection, committed when it returns (an IMMEDIATE transaction of its own). */
  recordTryStart(start: TryStart): Promise<boolean> {
    return this.appendTryRow(tryStartValues(start));
  }

  async recordTryInterruption(interruption: TryInterruption): Promise<void> {
    await this.appendTryRow(tryInterruptionValues(interruption));
  }

  /** Appends one campaign_tries row; false when that (try, event) is already there. */
  private appendTryRow(values: (string | number)[]): Promise<boolean> {
    try {
      const insert = this.db.prepare(
        `INSERT INTO campaign_tries (${TRY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      );
      const work = this.db.transaction(() => insert.run(...values).changes === 1);
      return Promise.resolve(work.immediate());
    } catch (error) {
      return Promise.reject(sqliteFailure(error, this.path, 'write'));
    }
  }

  campaignTries(campaignId: string): Promise<CampaignTry[]> {
    try {
      const rows = this.db.prepare<[string], CampaignTryDbRow>(SQLITE_CAMPAIGN_TRIES).all(campaignId);
      return Promise.resolve(rows.map(campaignTryFromRow));
    } catch (error) {
      return Promise.reject(sqliteFailure(error, this.path, 'read'));
    }
  }

  retriedTries(): Promise<AttemptKey[]> {
    try {
      const rows = this.db.prepare<[], RetriedTryDbRow>(SQLITE_RETRIED).all();
      return Promise.resolve(rows.map(retriedTryFromRow));
    } catch (error) {
      return Promise.reject(sqliteFailure(error, this.path, 'read'));
    }
  }

  appendDriftRun(run: DriftRunRecord): Promise<void> {
    this.db
      .prepare('INSERT INTO drift_runs (check_id, score, status) VALUES (?, ?, ?)')
      .run(run.checkId, run.score, run.status);
    return Promise.resolve();
  }

  driftWindow(checkId: string, eligible: number): Promise<DriftRunRecord[]> {
    type Row = { id: number; score: number; status: DriftRunRecord['status'] };
    const newest = this.db
      .prepare<[string], Row>(
        'SELECT id, score, status FROM drift_runs WHERE check_id = ? ORDER BY id DESC LIMIT 1',
      )
      .get(checkId);
    if (newest === undefined) return Promise.resolve([]);
    const before = this.db
      .prepare<[string, number, number], Row>(
        "SELECT id, score, status FROM drift_runs WHERE check_id = ? AND id < ? AND status <> 'hard_fail' ORDER BY id DESC LIMIT ?",
      )
      .all(checkId, newest.id, eligible);
    return Promise.resolve(
      [...before.reverse(), newest].map((row) => ({ checkId, score: row.score, status: row.status })),
    );
  }

  async *policyVerdicts(): AsyncIterable<PolicyVerdict> {
    let last = 0;
    // Paged by id, like attempts(): no statement held open across yields.
    const page = this.db.prepare<[number], PolicyVerdictDbRow & { id: number }>(
      `SELECT v.id, ${POLICY_VERDICT_COLUMNS} FROM policy_verdicts v JOIN attempts a ON a.id = v.attempt
       WHERE v.id > ? ORDER BY v.id LIMIT 500`,
    );
    for (;;) {
      const rows = page.all(last);
      if (rows.length === 0) return;
      for (const row of rows) {
        last = row.id;
        await turnIfDue();
        yield policyVerdictFromRow(row);
      }
    }
  }

  private stored(
    row: AttemptRow,
    scores: ScoreRow[] = this.selectScores.all(row.id).map(scoreFromRow),
  ): StoredAttempt {
    const record = JSON.parse(row.record_json) as StoredAttempt['record'];
    return { key: record.key, bundleDigest: row.bundle_digest, record, scores };
  }

  getAttempt(key: AttemptKey): Promise<StoredAttempt | null> {
    const row = this.select.get(key.runId, key.caseId, key.configId, key.attemptId);
    return Promise.resolve(row === undefined ? null : this.stored(row));
  }

  attemptsById(attemptId: string, runId?: string): Promise<StoredAttempt[]> {
    // Through the attempt id's index (migration 9); the run, when given, is compared on those rows.
    const rows = this.db
      .prepare<[string], AttemptRow & { run_id: string }>(
        'SELECT id, run_id, bundle_digest, record_json FROM attempts INDEXED BY attempts_attempt WHERE attempt_id = ? ORDER BY id',
      )
      .all(attemptId)
      .filter((row) => runId === undefined || row.run_id === runId);
    return Promise.resolve(rows.map((row) => this.stored(row)));
  }

  /** Prepared once: a publication reads one bundle per attempt. */
  private selectBundle: Database.Statement<[string], { canonical_json: string }> | undefined;

  getBundle(digest: string): Promise<string | null> {
    this.selectBundle ??= this.db.prepare<[string], { canonical_json: string }>(
      'SELECT canonical_json FROM bundles WHERE digest = ?',
    );
    const row = this.selectBundle.get(digest);
    return Promise.resolve(row?.canonical_json ?? null);
  }

  /** Prepared once: a publication reads its attempts' bundles a page at a time. */
  private selectBundles: Database.Statement<[string], { digest: string; canonical_json: string }> | undefined;

  getBundles(digests: readonly string[]): Promise<Map<string, string>> {
    this.selectBundles ??= this.db.prepare<[string], { digest: string; canonical_json: string }>(
      'SELECT digest, canonical_json FROM bundles WHERE digest IN (SELECT value FROM json_each(?))',
    );
    const rows = this.selectBundles.all(JSON.stringify([...new Set(digests)]));
    return Promise.resolve(new Map(rows.map((row) => [row.digest, row.canonical_json])));
  }

  countAttempts(runId?: string): Promise<number> {
    const row =
      runId === undefined
        ? this.db.prepare<[], { n: number }>('SELECT count(*) AS n FROM attempts').get()
        : this.db
            .prepare<[string], { n: number }>('SELECT count(*) AS n FROM attempts WHERE run_id = ?')
            .get(runId);
    return Promise.resolve(row?.n ?? 0);
  }

  async *attempts(runId?: string): AsyncIterable<StoredAttempt> {
    if (runId !== undefined) {
      yield* this.attemptsOfRun(runId);
      return;
    }
    let last = 0;
    // Paged by id, so the iterator never holds the table and never keeps a statement open across awaits.
    // Its reads are synchronous: turnIfDue hands the event loop a turn now and then (a signal is heard).
    const page = this.db.prepare<[number], AttemptRow>(
      'SELECT id, bundle_digest, record_json FROM attempts WHERE id > ? ORDER BY id LIMIT 500',
    );
    // One scores query per page, not one per attempt.
    const pageScores = this.db.prepare<[number, number], ScoreDbRow & { attempt: number }>(
      `SELECT attempt, ${SCORE_COLUMNS} FROM scores WHERE attempt > ? AND attempt <= ? ORDER BY attempt, rowid`,
    );
    for (;;) {
      const batch = page.all(last);
      if (batch.length === 0) return;
      const scores = groupScores(pageScores.all(last, batch[batch.length - 1]?.id ?? last));
      for (const row of batch) {
        last = row.id;
        await turnIfDue();
        yield this.stored(row, scores.get(row.id) ?? []);
      }
    }
  }

  /** One run's attempts in insertion order: its ids through the key's index (it leads with the run), then 500 rows at a time. */
  private async *attemptsOfRun(runId: string): AsyncIterable<StoredAttempt> {
    const ids = this.db
      .prepare<[string], { id: number }>('SELECT id FROM attempts WHERE run_id = ? ORDER BY id')
      .all(runId)
      .map((row) => row.id);
    const page = this.db.prepare<[string], AttemptRow>(
      'SELECT id, bundle_digest, record_json FROM attempts WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id',
    );
    const pageScores = this.db.prepare<[string], ScoreDbRow & { attempt: number }>(
      `SELECT attempt, ${SCORE_COLUMNS} FROM scores WHERE attempt IN (SELECT value FROM json_each(?)) ORDER BY attempt, rowid`,
    );
    for (let start = 0; start < ids.length; start += RUN_PAGE) {
      const chosen = JSON.stringify(ids.slice(start, start + RUN_PAGE));
      // Reversed and popped: each row (its record's JSON text) is released as it is yielded, so it
      // is garbage while young instead of living, and being promoted, until the page's last row.
      const batch = page.all(chosen).reverse();
      const scores = groupScores(pageScores.all(chosen));
      for (let row = batch.pop(); row !== undefined; row = batch.pop()) {
        await turnIfDue();
        yield this.stored(row, scores.get(row.id) ?? []);
      }
    }
  }

  migrations(): Promise<number[]> {
    const rows = this.db
      .prepare<[], { version: number }>('SELECT version FROM schema_migrations ORDER BY version')
      .all();
    return Promise.resolve(rows.map((row) => row.version));
  }

  /** `PRAGMA integrity_check`: ['ok'] for a sound file. */
  integrityCheck(): string[] {
    const rows = this.db.pragma('integrity_check') as { integrity_check: string }[];
    return rows.map((row) => row.integrity_check);
  }

  async close(): Promise<void> {
    await this.writer?.close();
    this.db.close();
  }
}

/** The store's end of the writer thread (sqlite-writer.ts): requests by id, replies in order. */
class WriterThread {
  private readonly worker: Worker;
  private readonly waiting = new Map<
    number,
    { resolve: (reply: WriterReply) => void; reject: (error: Error) => void }
  >();
  private nextId = 0;

  /** Why the thread is gone, once it is: later requests fail at once instead of waiting forever. */
  private ended: Error | undefined;

  constructor(private readonly path: string) {
    // execArgv: [] — the parent's flags (e.g. node --input-type) are not the worker's to inherit.
    this.worker = new Worker(new URL('./sqlite-writer.js', import.meta.url), {
      workerData: { path },
      execArgv: [],
    });
    this.worker.on('message', (reply: WriterReply) => {
      this.waiting.get(reply.id)?.resolve(reply);
      this.waiting.delete(reply.id);
    });
    const end = (error: Error): void => {
      this.ended ??= error;
      for (const { reject } of this.waiting.values()) reject(this.ended);
      this.waiting.clear();
    };
    this.worker.on('error', (error) => {
      end(storeError(`the SQLite writer thread failed: ${error.message}`));
    });
    this.worker.on('exit', (code) => {
      end(storeError(`the SQLite writer thread ended (exit ${code})`));
    });
  }

  private request(message: { writes: PackedWrites } | { close: true }): Promise<WriterReply> {
    if (this.ended !== undefined) return Promise.reject(this.ended);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...message }, 'writes' in message ? [message.writes.text] : []);
    });
  }

  async insert(writes: readonly AttemptWrite[]): Promise<InsertOutcome[]> {
    const reply = await this.request({ writes: packWrites(writes) });
    if ('outcomes' in reply) return reply.outcomes;
    if (!('error' in reply)) throw storeError('the SQLite writer thread closed mid-batch');
    // The driver's failure in the thread, coded as it would be on this thread (store_read_only, ...).
    const failure = Object.assign(new Error(reply.error), { name: 'SqliteError', code: reply.code });
    throw reply.code === undefined ? storeError(reply.error) : sqliteFailure(failure, this.path, 'write');
  }

  async close(): Promise<void> {
    await this.request({ close: true });
  }
}

/**
 * A read-only copy in memory of a WAL-mode store SQLite cannot open in place (its folder cannot take
 * the -shm file): the file's bytes, marked as a rollback-journal database (header bytes 18 and 19),
 * refused when a -wal file beside it holds changes the copy would miss.
 */
function inMemoryCopy(file: string, path: string): Database.Database {
  const wal = `${file}-wal`;
  if (existsSync(wal) && statSync(wal).size > 0)
    throw storeError(`cannot read the SQLite store ${path} read-only`, {
      issues: [
        {
          code: 'store_wal_pending',
          message: `${path}-wal holds changes not yet in ${path}, and its folder is read-only`,
          path: '',
          expected: 'a store whose writers have closed it (no pending -wal file), or a writable folder',
          received: `${path}-wal with uncheckpointed changes`,
        },
      ],
    });
  const bytes = readFileSync(file);
  if (bytes.length >= 20 && bytes[18] === 2 && bytes[19] === 2) bytes.fill(1, 18, 20);
  return new Database(bytes, { readonly: true });
}

/**
 * Refuses a store path that exists and is no regular file (a FIFO, socket, device or folder) before
 * SQLite opens it: opening a FIFO blocks the process for ever. A path that does not exist is left
 * to SQLite (a writer creates it).
 */
function refuseUnlessRegular(file: string, path: string): void {
  let info;
  try {
    info = statSync(file);
  } catch {
    return;
  }
  if (info.isFile()) return;
  const received = info.isDirectory()
    ? 'a directory'
    : info.isFIFO()
      ? 'a FIFO'
      : info.isSocket()
        ? 'a socket'
        : 'a device or other special file';
  throw storeError(
    `the SQLite store ${path} is not a regular file (${received}): name a SQLite file as --store sqlite:PATH`,
    {
      issues: [
        {
          code: 'store_not_a_file',
          message: `${path} is ${received}`,
          path: '',
          expected: 'a regular SQLite file written by `evals ingest` (or a path that does not exist yet)',
          received,
        },
      ],
    },
  );
}

/** What a SQLite failure means to the user, as a store EvalbookError naming the store and what to do. */
export function sqliteFailure(error: unknown, path: string, access: 'read' | 'write'): EvalbookError {
  if (isEvalbookError(error, STORE_UNUSABLE)) return error;
  const driverCode = (error as { code?: unknown }).code;
  const code = typeof driverCode === 'string' ? driverCode : '';
  const message = error instanceof Error ? error.message : String(error);
  const issue = (issueCode: string, expected: string, what: string): EvalbookError =>
    storeError(`the SQLite store ${path} ${what}`, {
      cause: error,
      issues: [
        {
          code: issueCode,
          message: `${path}: ${message}`,
          path: '',
          expected,
          received: `${code || 'error'}: ${message}`,
        },
      ],
    });
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT'))
    return issue(
      'store_corrupt',
      'a SQLite Evalbook written by `evals ingest`',
      'is not a readable Evalbook (not a SQLite database, or corrupt or truncated): restore it from a backup, or name another --store',
    );
  if (code.startsWith('SQLITE_READONLY') || (access === 'write' && code === 'SQLITE_CANTOPEN'))
    return issue(
      'store_read_only',
      'a store file and folder this process may write (ingest, retract, policy and engine write the store)',
      access === 'write'
        ? 'cannot be written: make it and its folder writable, or name another --store'
        : 'cannot be read where it is: copy it somewhere writable and read the copy',
    );
  if (code === 'SQLITE_CANTOPEN')
    return issue(
      'store_unopenable',
      'a readable SQLite file',
      'cannot be opened: check that it and its folder are readable',
    );
  // What the write held, not the store: a constraint (a trigger's RAISE included), a value too big.
  if (
    code.startsWith('SQLITE_CONSTRAINT') ||
    code === 'SQLITE_TOOBIG' ||
    code === 'SQLITE_MISMATCH' ||
    code === 'SQLITE_RANGE'
  )
    return issue(STORE_RECORD_REFUSED, 'a write the store accepts', `refused the write: ${message}`);
  if (code === 'SQLITE_BUSY')
    return issue(
      'store_busy',
      'a store no other process holds locked',
      'is locked by another process: try again when it has finished',
    );
  return issue('store_sqlite_failed', 'a usable SQLite Evalbook', `failed: ${message}`);
}

/** Refuses a database with a migration this code does not know, or one still to apply (read-only: never applied here). */
function checkMigrated(db: Database.Database, migrations: readonly Migration[], path: string): void {
  const table = db
    .prepare<[], { name: string }>(
      "SELECT name FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'",
    )
    .get();
  if (table === undefined)
    throw storeError(`${path} is not an Evalbook: name the store \`evals ingest\` wrote`, {
      issues: [
        {
          code: 'store_not_an_evalbook',
          message: `${path} has no Evalbook tables (schema_migrations)`,
          path: '',
          expected: 'a SQLite Evalbook written by `evals ingest`',
          received: "a SQLite file without schema_migrations (empty, or another program's)",
        },
      ],
    });
  const applied = db
    .prepare<[], { version: number }>('SELECT version FROM schema_migrations ORDER BY version')
    .all()
    .map((row) => row.version);
  const unknown = applied.filter((version) => !migrations.some((migration) => migration.version === version));
  if (unknown.length > 0)
    throw storeError(
      `the store ${path} has migration(s) ${unknown.join(', ')} this version of Evals does not know (a store from the future): upgrade Evals`,
    );
  const pending = migrations.filter((migration) => !applied.includes(migration.version));
  if (pending.length > 0)
    throw storeError(
      `the store ${path} predates this Evals: migrate it once where it is writable (\`evals migrate --store sqlite:${path}\`), then read it`,
      {
        issues: [
          {
            code: 'store_needs_migration',
            message: `${path} needs migration(s) ${pending.map((migration) => migration.version).join(', ')}, and a reader never migrates`,
            path: '',
            expected: `migrations 1 to ${Math.max(...migrations.map((migration) => migration.version))}`,
            received: `migrations ${applied.join(', ') || 'none'}`,
          },
        ],
      },
    );
}

/** Applies pending migrations, each in its own transaction; refuses a database newer than this code. */
export function migrate(db: Database.Database, migrations: readonly Migration[]): void {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT',
  );
  const applied = new Set(
    db
      .prepare<[], { version: number }>('SELECT version FROM schema_migrations')
      .all()
      .map((row) => row.version),
  );
  const known = new Set(migrations.map((migration) => migration.version));
  const unknown = [...applied].filter((version) => !known.has(version));
  if (unknown.length > 0)
    throw storeError(
      `the store has migration(s) ${unknown.join(', ')} this version of Evals does not know (a store from the future): upgrade Evals`,
    );
  const record = db.prepare(
    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
  );
  const isApplied = db.prepare<[number], { version: number }>(
    'SELECT version FROM schema_migrations WHERE version = ?',
  );
  for (const migration of migrations)
    if (!applied.has(migration.version))
      // Checked again under the write lock: another process may have applied it meanwhile.
      db.transaction(() => {
        if (isApplied.get(migration.version) !== undefined) return;
        db.exec(migration.sql);
        record.run(migration.version, migration.name);
      }).immediate();
}
