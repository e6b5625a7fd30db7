// The PostgreSQL ledger store (node-postgres Pool): the same tables and versioned migrations as the
// SQLite store, applied under an advisory lock so concurrent openers are safe; append-only enforced
// by triggers (UPDATE, DELETE and TRUNCATE raise). A batch is one transaction: each attempt is
// `INSERT … ON CONFLICT DO NOTHING`, then read back to tell a duplicate from a conflict, so several
// processes ingesting overlapping corpora end with every attempt exactly once and no errors. Policy
// verdicts (policy-verdicts.ts) are written the same way. Every valid bundle is storable: text goes
// through a lossless codec (PostgreSQL text cannot hold U+0000), and unique keys of unbounded text
// are indexed by a digest (a btree row holds ~2.7 KB): see migration 8 and sql() below.
import pg from 'pg';
import { displayLocator, maskSecrets, secretsIn } from '@paperclip-evals/contract';
import type { PoolClient, QueryResult, QueryResultRow } from 'pg';

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
import { assertCopyHolds, campaignCopied, campaignNotCopied, retractionCopyOutcome } from './copy-in.js';
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
  CampaignCopyOutcome,
  RetractionCopyOutcome,
  DriftRunRecord,
  HeldDigestQuery,
  InsertOutcome,
  LedgerStore,
  Migration,
  RunCounts,
  StoredAttempt,
} from './store.js';
import type { RunDbRow, RunStateDbRow, ScoreDbRow } from './store-rows.js';

/** Held (session-level) while migrating, so concurrent openers apply each migration once. */
const MIGRATION_LOCK = 0x45564c42; // 'EVLB'
/** Deadlock / serialization failure: the whole batch is retried (nothing of it was committed). */
const RETRYABLE = new Set(['40P01', '40001']);
const MAX_ATTEMPTS = 5;

const appendOnly = (table: string): string => `
  CREATE TRIGGER ${table}_no_update BEFORE UPDATE OR DELETE ON ${table}
    FOR EACH ROW EXECUTE FUNCTION evalbook_append_only();
  CREATE TRIGGER ${table}_no_truncate BEFORE TRUNCATE ON ${table}
    FOR EACH STATEMENT EXECUTE FUNCTION evalbook_append_only();`;

/** The migrations, in order. Never edit one that has shipped: add the next. */
export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'ledger',
    sql: `
      CREATE FUNCTION evalbook_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
      END $$;
      CREATE TABLE bundles (
        digest TEXT PRIMARY KEY,
        canonical_json TEXT NOT NULL
      );
      CREATE TABLE attempts (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        run_id TEXT NOT NULL,
        case_id TEXT NOT NULL,
        config_id TEXT NOT NULL,
        attempt_id TEXT NOT NULL,
        bundle_digest TEXT NOT NULL REFERENCES bundles(digest) DEFERRABLE INITIALLY DEFERRED,
        file_sha256 TEXT,
        provenance TEXT NOT NULL,
        run_terminal_state TEXT NOT NULL,
        failure_classification TEXT,
        transcript_complete BOOLEAN NOT NULL,
        denials INTEGER NOT NULL,
        cost_coverage TEXT NOT NULL,
        provider_cost_nanodollars BIGINT,
        estimated_cost_nanodollars BIGINT,
        pricing_version TEXT,
        environment_mismatch BOOLEAN NOT NULL,
        record_json TEXT NOT NULL,
        UNIQUE (run_id, case_id, config_id, attempt_id)
      );
      CREATE INDEX attempts_bundle ON attempts(bundle_digest);
      CREATE TABLE scores (
        id BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
        attempt BIGINT NOT NULL REFERENCES attempts(id),
        check_id TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pass', 'fail', 'error', 'not_evaluated')),
        score DOUBLE PRECISION,
        reason TEXT,
        evidence_json TEXT NOT NULL,
        PRIMARY KEY (attempt, check_id)
      );
      ${appendOnly('bundles')}
      ${appendOnly('attempts')}
      ${appendOnly('scores')}`,
  },
  {
    version: 2,
    name: 'legacy ledger cost',
    // Kept apart from the estimate (never added to it); older rows predate the figure: NULL, unknown.
    sql: 'ALTER TABLE attempts ADD COLUMN legacy_ledger_cost_nanodollars BIGINT',
  },
  {
    version: 3,
    name: 'policy verdicts',
    // One row per (attempt, tool call, policy bundle digest): the attempt row stands for its
    // (run_id, case_id, config_id, attempt_id) key, and must exist.
    sql: `
      CREATE TABLE policy_verdicts (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        attempt BIGINT NOT NULL REFERENCES attempts(id),
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
      );
      ${appendOnly('policy_verdicts')}`,
  },
  {
    version: 4,
    name: 'drift runs',
    // The checks engine's scored runs per assertion, in arrival order (id), for query_drift.
    sql: `
      CREATE TABLE drift_runs (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        check_id TEXT NOT NULL,
        score DOUBLE PRECISION NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pass', 'soft_fail', 'hard_fail'))
      );
      CREATE INDEX drift_runs_check ON drift_runs(check_id, id);
      ${appendOnly('drift_runs')}`,
  },
  {
    version: 5,
    name: 'engine check scores',
    // Score rows of engine checks carry their layer and may be soft failures (no row is rewritten).
    sql: `
      ALTER TABLE scores ADD COLUMN layer TEXT CHECK (layer IN ('1', '2', '3', '4', '5', '6', 'plugin'));
      ALTER TABLE scores DROP CONSTRAINT scores_status_check;
      ALTER TABLE scores ADD CONSTRAINT scores_status_check
        CHECK (status IN ('pass', 'fail', 'soft_fail', 'error', 'not_evaluated'));`,
  },
  {
    version: 6,
    name: 'retractions',
    // A retracted run (attempt_id NULL) or attempt, with who, why and when: appended, never deleted.
    // One record per target (attempt ids are never empty, so '' stands for the whole run). The time
    // is the caller's ISO text, kept as given (as SQLite keeps it).
    sql: `
      CREATE TABLE retractions (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        run_id TEXT NOT NULL,
        attempt_id TEXT,
        reason TEXT NOT NULL,
        retracted_by TEXT NOT NULL,
        retracted_at TEXT NOT NULL
      );
      CREATE UNIQUE INDEX retractions_target ON retractions (run_id, COALESCE(attempt_id, ''));
      ${appendOnly('retractions')}`,
  },
  {
    version: 7,
    name: 'policy decisions kept whole',
    // A verdict keeps the producer's whole Decision (decision_json, exactly as sent) and its verdict
    // as received (verdict: any string); an unfamiliar verdict is its own agreement (no row rewritten).
    sql: `
      ALTER TABLE policy_verdicts ADD COLUMN verdict TEXT;
      ALTER TABLE policy_verdicts ADD COLUMN decision_json TEXT;
      ALTER TABLE policy_verdicts DROP CONSTRAINT policy_verdicts_agreement_check;
      ALTER TABLE policy_verdicts ADD CONSTRAINT policy_verdicts_agreement_check
        CHECK (agreement IN ('agree', 'policy_denies_runner_allowed', 'runner_denied_policy_allows',
          'policy_error', 'policy_verdict_unfamiliar', 'no_recorded_outcome'));`,
  },
  {
    version: 8,
    name: 'every valid bundle storable',
    // Text of any length and content (U+0000 included) fits every column and index. Rows are text as
    // the codec writes it (toPgText: U+0000 is U+E000 '0', U+E000 is U+E000 U+E000): rows written
    // before this migration get their U+E000 doubled (the append-only triggers are off for that
    // UPDATE only, inside this transaction; U+0000 could never be stored, so nothing else changes).
    // A btree row is limited to ~2.7 KB, so every unique key of unbounded text is indexed by its
    // sha256 (evalbook_key: length-prefixed parts, so ('a:b','c') and ('a','b:c') differ), and
    // lookups by run id (attempts, retractions) or check id use hash indexes (no size limit).
    sql: `
      CREATE FUNCTION evalbook_key(VARIADIC parts text[]) RETURNS bytea
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
        AS $$ SELECT sha256(convert_to(string_agg(length(part)::text || ':' || part, '' ORDER BY n), 'UTF8'))
              FROM unnest(parts) WITH ORDINALITY AS u(part, n) $$;
      -- Checked at once, so no deferred check is pending when the triggers are enabled again.
      SET CONSTRAINTS ALL IMMEDIATE;
      DO $$
      DECLARE
        ledger text[] := ARRAY['bundles', 'attempts', 'scores', 'policy_verdicts', 'drift_runs', 'retractions'];
        item record;
        tbl text;
      BEGIN
        FOREACH tbl IN ARRAY ledger LOOP
          EXECUTE format('ALTER TABLE %I DISABLE TRIGGER USER', tbl);
        END LOOP;
        FOR item IN SELECT table_name, column_name FROM information_schema.columns
          WHERE table_schema = current_schema() AND data_type = 'text' AND table_name = ANY (ledger)
        LOOP
          EXECUTE format('UPDATE %I SET %I = replace(%I, chr(57344), chr(57344) || chr(57344)) WHERE strpos(%I, chr(57344)) > 0',
            item.table_name, item.column_name, item.column_name, item.column_name);
        END LOOP;
        FOREACH tbl IN ARRAY ledger LOOP
          EXECUTE format('ALTER TABLE %I ENABLE TRIGGER USER', tbl);
        END LOOP;
      END $$;
      ALTER TABLE attempts DROP CONSTRAINT attempts_run_id_case_id_config_id_attempt_id_key;
      CREATE UNIQUE INDEX attempts_key ON attempts (evalbook_key(run_id, case_id, config_id, attempt_id));
      CREATE INDEX attempts_run ON attempts USING hash (run_id);
      ALTER TABLE scores DROP CONSTRAINT scores_pkey;
      CREATE UNIQUE INDEX scores_check ON scores (attempt, evalbook_key(check_id));
      ALTER TABLE policy_verdicts DROP CONSTRAINT policy_verdicts_attempt_call_id_policy_digest_key;
      CREATE UNIQUE INDEX policy_verdicts_target ON policy_verdicts (attempt, evalbook_key(call_id, policy_digest));
      DROP INDEX drift_runs_check;
      CREATE INDEX drift_runs_check ON drift_runs USING hash (check_id);
      DROP INDEX retractions_target;
      CREATE UNIQUE INDEX retractions_target ON retractions (evalbook_key(run_id, COALESCE(attempt_id, '')));
      CREATE INDEX retractions_run ON retractions USING hash (run_id);`,
  },
  {
    version: 9,
    name: 'campaign records',
    // One evals-campaign/v1 record per campaign id (campaign-records.ts): canonical JSON and its
    // digest. The id is unbounded text: unique by its evalbook_key digest, as in migration 8.
    sql: `
      CREATE TABLE campaigns (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        campaign_id TEXT NOT NULL,
        record_digest TEXT NOT NULL,
        record_json TEXT NOT NULL
      );
      CREATE UNIQUE INDEX campaigns_id ON campaigns (evalbook_key(campaign_id));
      ${appendOnly('campaigns')}`,
  },
  {
    version: 10,
    name: 'attempts by attempt id',
    // `evals report --attempt ID` looks an attempt up by its id alone (attemptsById). A hash index,
    // as for run ids (migration 8): an id of any length fits.
    sql: `CREATE INDEX attempts_attempt ON attempts USING hash (attempt_id);`,
  },
  {
    version: 11,
    name: 'campaign records superseded, never replaced',
    // A campaign id holds every record of its plan (a budget-stopped campaign, then its resumed
    // complete record), each once: unique by (campaign id, record digest), no longer by the id alone.
    // Rows are not touched (their ids are the records' sequence); only the indexes change.
    sql: `
      DROP INDEX campaigns_id;
      CREATE UNIQUE INDEX campaigns_record ON campaigns (evalbook_key(campaign_id, record_digest));
      CREATE INDEX campaigns_campaign ON campaigns (evalbook_key(campaign_id));`,
  },
  {
    version: 12,
    name: 'campaign try starts',
    // Write-ahead try starts (try-starts.ts): a `started` row before a try's session is spawned, an
    // `interrupted` row when the campaign killed it. Settled = the attempts table holds the try.
    // Unique by the evalbook_key digest (ids are unbounded text, as in migration 8).
    sql: `
      CREATE TABLE campaign_tries (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        campaign_id TEXT NOT NULL,
        case_id TEXT NOT NULL,
        config_id TEXT NOT NULL,
        attempt_id TEXT NOT NULL,
        try_number INTEGER NOT NULL CHECK (try_number >= 1),
        try_id TEXT NOT NULL,
        event TEXT NOT NULL CHECK (event IN ('started', 'interrupted')),
        at TEXT NOT NULL,
        detail_json TEXT NOT NULL
      );
      CREATE UNIQUE INDEX campaign_tries_try ON campaign_tries (evalbook_key(campaign_id, case_id, config_id, try_id, event));
      CREATE INDEX campaign_tries_campaign ON campaign_tries USING hash (campaign_id);
      ${appendOnly('campaign_tries')}`,
  },
];

/** The attempt a start row names (run = campaign, attempt id = try id), through the key's digest index. */
const TRY_ATTEMPT = `SELECT 1 FROM attempts a
  WHERE evalbook_key(a.run_id, a.case_id, a.config_id, a.attempt_id) = evalbook_key(s.campaign_id, s.case_id, s.config_id, s.try_id)
    AND a.run_id = s.campaign_id AND a.case_id = s.case_id AND a.config_id = s.config_id AND a.attempt_id = s.try_id`;

/** A campaign's starts with whether the attempts table holds each try, and its interruption row. */
const POSTGRES_CAMPAIGN_TRIES = `
  SELECT s.campaign_id, s.case_id, s.config_id, s.attempt_id, s.try_number, s.try_id, s.at, s.detail_json,
    EXISTS (${TRY_ATTEMPT}) AS settled, i.at AS interrupted_at, i.detail_json AS interrupted_json
  FROM campaign_tries s
  LEFT JOIN campaign_tries i ON i.event = 'interrupted'
    AND evalbook_key(i.campaign_id, i.case_id, i.config_id, i.try_id, i.event) = evalbook_key(s.campaign_id, s.case_id, s.config_id, s.try_id, 'interrupted')
    AND i.campaign_id = s.campaign_id AND i.case_id = s.case_id AND i.config_id = s.config_id AND i.try_id = s.try_id
  WHERE s.event = 'started' AND s.campaign_id = $1 ORDER BY s.id`;

/** One campaign_tries row by its unique key ($1 … $5), through the key's digest index. */
const TRY_ROW_KEY = `evalbook_key(s.campaign_id, s.case_id, s.config_id, s.try_id, s.event) = evalbook_key($1::text, $2::text, $3::text, $4::text, $5::text)
  AND s.campaign_id = $1 AND s.case_id = $2 AND s.config_id = $3 AND s.try_id = $4 AND s.event = $5`;

/** The tries a later try of their planned attempt replaced (try-starts.ts retriedTriesSql). */
const POSTGRES_RETRIED = retriedTriesSql(TRY_ATTEMPT);

/** Per campaign (run id), in the order its first start was appended: its starts whose try the attempts table does not hold. */
const POSTGRES_UNSETTLED = `
  SELECT s.campaign_id AS run_id, COUNT(*) AS n FROM campaign_tries s
  WHERE s.event = 'started' AND NOT EXISTS (${TRY_ATTEMPT}) GROUP BY s.campaign_id ORDER BY MIN(s.id)`;

/**
 * Inside a transaction: appends `row` by campaign-records.ts's rule (or throws, nothing written).
 * Writers of campaign records take the table's SHARE ROW EXCLUSIVE lock first (readers are not
 * held up), so two writers of one campaign id decide one after the other, never both on what was
 * there before either.
 */
async function appendCampaign(client: PoolClient, row: CampaignRow): Promise<CampaignRecordOutcome> {
  await client.query('LOCK TABLE campaigns IN SHARE ROW EXCLUSIVE MODE');
  const { rows } = await sql<CampaignDbRow>(
    client,
    `SELECT id, ${CAMPAIGN_COLUMNS} FROM campaigns WHERE evalbook_key(campaign_id) = evalbook_key($1) AND campaign_id = $1 ORDER BY id`,
    [row.campaignId],
  );
  const outcome = campaignDecision(row, rows.map(campaignFromRow));
  if (outcome !== 'duplicate')
    await sql(client, `INSERT INTO campaigns (${CAMPAIGN_COLUMNS}) VALUES ($1, $2, $3)`, [
      row.campaignId,
      row.digest,
      row.canonical,
    ]);
  return outcome;
}

interface AttemptRow {
  readonly id: string;
  readonly bundle_digest: string;
  readonly record_json: string;
}

/** An attempt by its key: found through the key's digest index (migration 8), then compared exactly. */
const BY_KEY =
  'evalbook_key(run_id, case_id, config_id, attempt_id) = evalbook_key($1, $2, $3, $4) AND run_id = $1 AND case_id = $2 AND config_id = $3 AND attempt_id = $4';

const SELECT_ATTEMPT = `SELECT id, bundle_digest, record_json FROM attempts WHERE ${BY_KEY}`;

const keyParams = (key: AttemptKey): string[] => [key.runId, key.caseId, key.configId, key.attemptId];

/**
 * One text per identity, distinct for distinct identities (ids may hold any character, U+0000
 * included, so they are JSON-quoted, never joined by a separator): a map key, and a total order every
 * transaction takes its row locks in (no deadlock cycles).
 */
const orderOf = (key: AttemptKey): string => JSON.stringify(keyParams(key));

/** The escape character of the text codec (a private-use character). */
const TEXT_ESCAPE = '\uE000';

/**
 * The text PostgreSQL stores for `text`: PostgreSQL text cannot hold U+0000, which a valid bundle may
 * (an id, a message), so U+0000 is written U+E000 '0' and U+E000 itself U+E000 U+E000. Injective, so
 * equality, uniqueness, GROUP BY and COUNT(DISTINCT) mean on stored text what they mean on the
 * original; text with neither character (nearly all) is stored as it is.
 */
export function toPgText(text: string): string {
  return text.includes('\u0000') || text.includes(TEXT_ESCAPE)
    ? text.replaceAll(TEXT_ESCAPE, TEXT_ESCAPE.repeat(2)).replaceAll('\u0000', `${TEXT_ESCAPE}0`)
    : text;
}

/** The original of text toPgText wrote. */
export function fromPgText(text: string): string {
  return text.includes(TEXT_ESCAPE)
    ? text.replace(/\uE000([0\uE000])/g, (_, char: string) => (char === '0' ? '\u0000' : TEXT_ESCAPE))
    : text;
}

const encodeParam = (value: unknown): unknown =>
  typeof value === 'string'
    ? toPgText(value)
    : Array.isArray(value)
      ? value.map((item: unknown) => (typeof item === 'string' ? toPgText(item) : item))
      : value;

/**
 * Every query of this store: string parameters (and strings in array parameters) go through
 * toPgText, every string of every row read comes back through fromPgText. Numbers and booleans are
 * untouched; digests, ids and JSON text without U+0000 or U+E000 are the same either way.
 */
async function sql<R extends QueryResultRow>(
  db: pg.Pool | PoolClient,
  text: string,
  params: readonly unknown[] = [],
): Promise<QueryResult<R>> {
  let result: QueryResult<R>;
  try {
    result = await db.query<R>(text, params.map(encodeParam));
  } catch (error) {
    // Inside a transaction the raw error goes to transaction(), which retries or codes it.
    throw db instanceof pg.Pool && isDriverFailure(error) ? postgresFailure(error) : error;
  }
  for (const row of result.rows as Record<string, unknown>[])
    for (const [column, value] of Object.entries(row))
      if (typeof value === 'string') row[column] = fromPgText(value);
  return result;
}

/** PostgreSQL error classes that are about the record written, not the store: data, integrity, limits, a trigger's RAISE. */
const RECORD_CLASSES = new Set(['22', '23', '54', 'P0']);

/** Whether `error` came from the server or the driver (a SQLSTATE, a socket's errno, a lost connection). */
export function isDriverFailure(error: unknown): boolean {
  if (error instanceof pg.DatabaseError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (/^[0-9A-Z]{5}$/.test(code) || /^E[A-Z]+$/.test(code))) return true;
  return error instanceof Error && LOST_CONNECTION.test(error.message);
}

/**
 * What node-postgres says of a connection that is gone: on the query in flight ("Connection
 * terminated unexpectedly"), on every later query of that client ("… is not queryable"), or of a
 * connect that timed out.
 */
const LOST_CONNECTION = /Connection terminated|connection timeout|is not queryable/i;

/**
 * Any failure of the server or the driver as a store EvalbookError (what ingest and every command
 * show as a store error, exit 2, never a stack trace): a write the server refused for what was
 * written (SQLSTATE class 22, 23, 54 or P0) is issue store_record_refused, so ingest can tell one
 * bad record from a bad store; a lost or refused connection is store_unreachable; anything else
 * store_postgres_failed. Messages are the driver's (they never hold the URL's password: the
 * driver is given it apart), masked once more all the same.
 */
export function postgresFailure(error: unknown): EvalbookError {
  if (isEvalbookError(error, STORE_UNUSABLE)) return error;
  const code = (error as { code?: unknown }).code;
  const message = maskSecrets(error instanceof Error ? error.message : String(error));
  const issue = (issueCode: string, expected: string, received: string): EvalbookError =>
    storeError(`the PostgreSQL store ${received}`, {
      cause: error,
      issues: [{ code: issueCode, message: received, path: '', expected, received }],
    });
  if (typeof code === 'string' && RECORD_CLASSES.has(code.slice(0, 2)))
    return issue(
      STORE_RECORD_REFUSED,
      'a write the store accepts',
      `refused the write: SQLSTATE ${code}: ${message}`,
    );
  if (
    (typeof code === 'string' && (code.startsWith('08') || code.startsWith('57P'))) ||
    /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT/.test(message) ||
    LOST_CONNECTION.test(message)
  )
    return issue(
      'store_unreachable',
      'a PostgreSQL server that stays reachable for the whole command',
      `lost its connection: ${message} (what was written before is kept; run the command again when the server is back)`,
    );
  return issue(
    'store_postgres_failed',
    'a usable PostgreSQL Evalbook',
    `failed${typeof code === 'string' ? ` (SQLSTATE ${code})` : ''}: ${message}`,
  );
}

export class PostgresStore implements LedgerStore {
  readonly kind = 'postgres';

  private constructor(
    private readonly pool: pg.Pool,
    /** The migrations this open applied (`evals migrate` says them); [] when the store was up to date. */
    readonly appliedAtOpen: readonly number[],
  ) {}

  /** Connects and applies pending migrations (under an advisory lock); refuses a store from the future. */
  static async open(url: string, options: { readonly max?: number } = {}): Promise<PostgresStore> {
    refuseServiceFiles(url);
    // `postgres://u:p@ss/w#rd@host/db` would connect to host `ss` with password `p`: a password must
    // be percent-encoded, and an @ past the host says it was not.
    if (/^[a-z]+:\/\/[^/?#]*[/?#].*@/i.test(url))
      throw storeError(
        `the store URL ${displayLocator(url)} has an @ after its host: percent-encode the password's special characters (@ %40, : %3A, / %2F, # %23, ? %3F), or pass the password in PGPASSWORD or a PGPASSFILE`,
      );
    const ssl = sslModeRead(url);
    // A host that drops packets must become a store EvalbookError, not a hang.
    const pool = new pg.Pool({
      Client: ClosingClient,
      connectionString: ssl.connectionString,
      max: options.max ?? 4,
      connectionTimeoutMillis: 15_000,
    });
    // An idle client's connection error must not crash the process; the next query reports it.
    pool.on('error', () => undefined);
    let appliedAtOpen: readonly number[];
    try {
      const client = await pool.connect();
      try {
        appliedAtOpen = await migratePostgres(client, POSTGRES_MIGRATIONS);
      } finally {
        client.release();
      }
    } catch (error) {
      await pool.end();
      if (isEvalbookError(error, STORE_UNUSABLE)) throw error;
      const message = error instanceof Error ? error.message : String(error);
      const hint = /client password must be a string/.test(message)
        ? ' (the server asks for a password and none was given: set PGPASSWORD or a PGPASSFILE, or put it percent-encoded in the store URL)'
        : /password authentication failed/.test(message)
          ? ' (check the password in the store URL, PGPASSWORD or PGPASSFILE)'
          : ssl.readAsVerifyFull !== undefined && /SSL|TLS|certificate|altnames/i.test(message)
            ? ` (sslmode=${ssl.readAsVerifyFull} is read as verify-full, as node-postgres 8 reads it: the connection is encrypted and the server's certificate must be trusted and name the host; give its CA in sslrootcert=FILE, use sslmode=disable for a server without TLS, or add uselibpqcompat=true to the URL for libpq's meaning of sslmode=${ssl.readAsVerifyFull})`
            : connectionHint(error, message);
      throw storeError(
        `cannot open the PostgreSQL store ${displayLocator(url)}: ${maskSecrets(message, secretsIn(url))}${hint}`,
        { cause: error },
      );
    }
    return new PostgresStore(pool, appliedAtOpen);
  }

  /** One transaction of four set-based statements, whatever the batch size (rows in key order). */
  async insertBatch(records: readonly LedgerRecord[]): Promise<InsertOutcome[]> {
    if (records.length === 0) return [];
    const ordered = inKeyOrder(records, (record) => orderOf(record.key));
    return this.transaction(async (client) => {
      const outcomes = await insertRecords(
        client,
        ordered.map(({ item }) => item),
      );
      const byInput: InsertOutcome[] = new Array<InsertOutcome>(records.length);
      ordered.forEach(({ index }, position) => {
        byInput[index] = outcomes[position] as InsertOutcome;
      });
      return byInput;
    });
  }

  async insertPolicyVerdicts(verdicts: readonly PolicyVerdictInput[]): Promise<PolicyVerdictOutcome[]> {
    if (verdicts.length === 0) return [];
    const ordered = inKeyOrder(verdicts, (verdict) =>
      JSON.stringify([...keyParams(verdict.key), verdict.callId, verdict.policyDigest]),
    );
    return this.transaction(async (client) => {
      const outcomes: PolicyVerdictOutcome[] = new Array<PolicyVerdictOutcome>(verdicts.length);
      for (const { item, index } of ordered) outcomes[index] = await insertVerdict(client, item);
      return outcomes;
    });
  }

  /**
   * Runs `work` in ONE transaction. Callers write in key order: concurrent writers then lock rows in
   * the same order, so overlapping batches wait for each other instead of deadlocking. A deadlock or
   * serialization failure retries the whole transaction; a write the server refuses for what it
   * holds is a store EvalbookError (postgresFailure), so ingest can tell one bad record from a bad store.
   */
  private async transaction<O>(work: (client: PoolClient) => Promise<O>): Promise<O> {
    const client = await this.pool.connect().catch((error: unknown) => {
      throw postgresFailure(error);
    });
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          await client.query('BEGIN');
          const result = await work(client);
          await client.query('COMMIT');
          return result;
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          const code = (error as { code?: unknown }).code;
          if (attempt < MAX_ATTEMPTS && typeof code === 'string' && RETRYABLE.has(code)) continue;
          // What the work itself threw (a refusal of ours) passes as it is; the driver's is coded.
          throw isDriverFailure(error) ? postgresFailure(error) : error;
        }
      }
    } finally {
      client.release();
    }
  }

  private async stored(row: AttemptRow): Promise<StoredAttempt> {
    const { rows } = await sql<ScoreDbRow>(
      this.pool,
      `SELECT ${SCORE_COLUMNS} FROM scores WHERE attempt = $1 ORDER BY id`,
      [row.id],
    );
    return storedAttempt(row, rows.map(scoreFromRow));
  }

  async getAttempt(key: AttemptKey): Promise<StoredAttempt | null> {
    const { rows } = await sql<AttemptRow>(this.pool, SELECT_ATTEMPT, keyParams(key));
    const row = rows[0];
    return row === undefined ? null : this.stored(row);
  }

  /** One query for all of them, by the key's unique index; the file digest is compared here. */
  async heldDigests(attempts: readonly HeldDigestQuery[]): Promise<(string | null)[]> {
    if (attempts.length === 0) return [];
    const { rows } = await sql<{
      run_id: string;
      case_id: string;
      config_id: string;
      attempt_id: string;
      bundle_digest: string;
      file_sha256: string | null;
    }>(
      this.pool,
      `SELECT run_id, case_id, config_id, attempt_id, bundle_digest, file_sha256 FROM attempts
       WHERE evalbook_key(run_id, case_id, config_id, attempt_id) IN
         (SELECT evalbook_key(r, c, f, a) FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS k(r, c, f, a))`,
      columns(attempts, 4, ({ key }) => keyParams(key)),
    );
    const held = new Map(
      rows.map((row) => [
        orderOf({
          runId: row.run_id,
          caseId: row.case_id,
          configId: row.config_id,
          attemptId: row.attempt_id,
        }),
        row,
      ]),
    );
    return attempts.map(({ key, fileSha256 }) => {
      const row = held.get(orderOf(key));
      return row !== undefined && row.file_sha256 === fileSha256 ? row.bundle_digest : null;
    });
  }

  async attemptsById(attemptId: string, runId?: string): Promise<StoredAttempt[]> {
    // Through the attempt id's hash index (migration 10); the run, when given, is compared too.
    const { rows } = await sql<AttemptRow>(
      this.pool,
      runId === undefined
        ? 'SELECT id, bundle_digest, record_json FROM attempts WHERE attempt_id = $1 ORDER BY id'
        : 'SELECT id, bundle_digest, record_json FROM attempts WHERE attempt_id = $1 AND run_id = $2 ORDER BY id',
      runId === undefined ? [attemptId] : [attemptId, runId],
    );
    const found: StoredAttempt[] = [];
    for (const row of rows) found.push(await this.stored(row));
    return found;
  }

  async getBundle(digest: string): Promise<string | null> {
    const { rows } = await sql<{ canonical_json: string }>(
      this.pool,
      'SELECT canonical_json FROM bundles WHERE digest = $1',
      [digest],
    );
    return rows[0]?.canonical_json ?? null;
  }

  async getBundles(digests: readonly string[]): Promise<Map<string, string>> {
    const { rows } = await sql<{ digest: string; canonical_json: string }>(
      this.pool,
      'SELECT digest, canonical_json FROM bundles WHERE digest = ANY($1::text[])',
      [[...new Set(digests)]],
    );
    return new Map(rows.map((row) => [row.digest, row.canonical_json]));
  }

  async countAttempts(runId?: string): Promise<number> {
    const { rows } =
      runId === undefined
        ? await sql<{ n: string }>(this.pool, 'SELECT count(*) AS n FROM attempts')
        : await sql<{ n: string }>(this.pool, 'SELECT count(*) AS n FROM attempts WHERE run_id = $1', [
            runId,
          ]);
    return Number(rows[0]?.n ?? 0);
  }

  async *attempts(runId?: string): AsyncIterable<StoredAttempt> {
    if (runId !== undefined) {
      yield* this.attemptsOfRun(runId);
      return;
    }
    let last = '0';
    // Paged by id, so the iterator never holds a connection or a cursor across yields.
    for (;;) {
      const { rows } = await sql<AttemptRow>(
        this.pool,
        'SELECT id, bundle_digest, record_json FROM attempts WHERE id > $1 ORDER BY id LIMIT 500',
        [last],
      );
      if (rows.length === 0) return;
      // One scores query per page, not one per attempt.
      const scores = await sql<ScoreDbRow & { attempt: string }>(
        this.pool,
        `SELECT attempt, ${SCORE_COLUMNS} FROM scores WHERE attempt > $1 AND attempt <= $2 ORDER BY attempt, id`,
        [last, rows[rows.length - 1]?.id ?? last],
      );
      const byAttempt = groupScores(scores.rows);
      for (const row of rows) {
        last = row.id;
        yield storedAttempt(row, byAttempt.get(row.id) ?? []);
      }
    }
  }

  /** One run's attempts in insertion order: its ids through the run's hash index (migration 8), then 500 rows at a time. */
  private async *attemptsOfRun(runId: string): AsyncIterable<StoredAttempt> {
    const { rows: idRows } = await sql<{ id: string }>(
      this.pool,
      'SELECT id FROM attempts WHERE run_id = $1 ORDER BY id',
      [runId],
    );
    const ids = idRows.map((row) => row.id);
    for (let start = 0; start < ids.length; start += RUN_PAGE) {
      const chosen = ids.slice(start, start + RUN_PAGE);
      const { rows } = await sql<AttemptRow>(
        this.pool,
        'SELECT id, bundle_digest, record_json FROM attempts WHERE id = ANY($1::bigint[]) ORDER BY id',
        [chosen],
      );
      const scores = await sql<ScoreDbRow & { attempt: string }>(
        this.pool,
        `SELECT attempt, ${SCORE_COLUMNS} FROM scores WHERE attempt = ANY($1::bigint[]) ORDER BY attempt, id`,
        [chosen],
      );
      const byAttempt = groupScores(scores.rows);
      for (const row of rows) yield storedAttempt(row, byAttempt.get(row.id) ?? []);
    }
  }

  async retract(request: RetractionRequest): Promise<RetractionOutcome[]> {
    return this.transaction(async (client) => {
      const { rows } = await sql<{ case_id: string; config_id: string; attempt_id: string }>(
        client,
        'SELECT case_id, config_id, attempt_id FROM attempts WHERE run_id = $1 ORDER BY id',
        [request.runId],
      );
      const attempts = rows.map((row) => ({
        runId: request.runId,
        caseId: row.case_id,
        configId: row.config_id,
        attemptId: row.attempt_id,
      }));
      const held = async (): Promise<Retraction[]> =>
        (
          await sql<RetractionDbRow>(
            client,
            `SELECT ${RETRACTION_COLUMNS} FROM retractions WHERE run_id = $1 ORDER BY id`,
            [request.runId],
          )
        ).rows.map(retractionFromRow);
      const { outcomes, append } = planRetraction(request, attempts, await held());
      let raced = false;
      for (const retraction of append) {
        const inserted = await sql(
          client,
          `INSERT INTO retractions (${RETRACTION_COLUMNS}) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
          retractionValues(retraction),
        );
        if (inserted.rowCount !== 1) raced = true;
      }
      // A concurrent retraction of the same target committed first (ON CONFLICT waited for it): decide
      // again against what is there now; what this transaction appended is in force either way.
      return raced ? planRetraction(request, attempts, await held()).outcomes.map(asHeld(append)) : outcomes;
    });
  }

  /** One transaction: attempts and verdicts in key order (as insertBatch and insertPolicyVerdicts write them), then retractions, campaign records and try rows. */
  async copyIn(batch: CopyInBatch): Promise<CopyInOutcome> {
    const records = inKeyOrder(batch.records, (record) => orderOf(record.key));
    const verdicts = inKeyOrder(batch.policyVerdicts, (verdict) =>
      JSON.stringify([...keyParams(verdict.key), verdict.callId, verdict.policyDigest]),
    );
    return this.transaction(async (client) => {
      const inserted =
        records.length === 0
          ? []
          : await insertRecords(
              client,
              records.map(({ item }) => item),
            );
      const attempts = new Array<InsertOutcome>(records.length);
      records.forEach(({ index }, position) => {
        attempts[index] = inserted[position] as InsertOutcome;
      });
      const policyVerdicts = new Array<PolicyVerdictOutcome>(verdicts.length);
      for (const { item, index } of verdicts) policyVerdicts[index] = await insertVerdict(client, item);
      const retractions: RetractionCopyOutcome[] = [];
      for (const retraction of batch.retractions) {
        const { rows: existing } = await sql<RetractionDbRow>(
          client,
          `SELECT ${RETRACTION_COLUMNS} FROM retractions WHERE run_id = $1 AND attempt_id IS NOT DISTINCT FROM $2`,
          [retraction.runId, retraction.attemptId],
        );
        const { rows: held } = await sql(
          client,
          retraction.attemptId === null
            ? 'SELECT 1 FROM attempts WHERE run_id = $1 LIMIT 1'
            : 'SELECT 1 FROM attempts WHERE run_id = $1 AND attempt_id = $2 LIMIT 1',
          retraction.attemptId === null ? [retraction.runId] : [retraction.runId, retraction.attemptId],
        );
        const row = existing[0];
        const outcome = retractionCopyOutcome(
          retraction,
          row === undefined ? undefined : retractionFromRow(row),
          held.length > 0,
        );
        if (outcome.status === 'inserted')
          await sql(
            client,
            `INSERT INTO retractions (${RETRACTION_COLUMNS}) VALUES ($1, $2, $3, $4, $5)`,
            retractionValues(retraction),
          );
        retractions.push(outcome);
      }
      const campaigns: CampaignCopyOutcome[] = [];
      for (const input of batch.campaigns ?? []) {
        let digest = '';
        try {
          const row = campaignRow(input);
          digest = row.digest;
          campaigns.push(campaignCopied(row, await appendCampaign(client, row)));
        } catch (error) {
          campaigns.push(campaignNotCopied(input.campaignId, digest, error));
        }
      }
      const tries: TryCopyOutcome[] = [];
      for (const row of tryRowsOf(batch.tries ?? [])) {
        const { rows: existing } = await sql<TryRowDbRow>(
          client,
          `SELECT ${TRY_COLUMNS} FROM campaign_tries s WHERE ${TRY_ROW_KEY}`,
          [row.campaignId, row.caseId, row.configId, row.tryId, row.event],
        );
        const held = existing[0];
        const outcome = tryCopyOutcome(row, held === undefined ? undefined : tryRowFromDb(held));
        if (outcome.status === 'inserted')
          await sql(
            client,
            `INSERT INTO campaign_tries (${TRY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
            tryRowValues(row),
          );
        tries.push(outcome);
      }
      // A throw here rolls the whole transaction back: nothing of the copy is written.
      return assertCopyHolds({ attempts, policyVerdicts, retractions, campaigns, tries });
    });
  }

  async retractions(): Promise<Retraction[]> {
    const { rows } = await sql<RetractionDbRow>(
      this.pool,
      `SELECT ${RETRACTION_COLUMNS} FROM retractions ORDER BY id`,
    );
    return rows.map(retractionFromRow);
  }

  async recordCampaign(input: CampaignRecordInput): Promise<CampaignRecordOutcome> {
    const row = campaignRow(input);
    return this.transaction((client) => appendCampaign(client, row));
  }

  async campaigns(): Promise<StoredCampaign[]> {
    const { rows } = await sql<CampaignDbRow>(
      this.pool,
      `SELECT id, ${CAMPAIGN_COLUMNS} FROM campaigns ORDER BY id`,
    );
    return rows.map(campaignFromRow);
  }

  async runs(): Promise<RunCounts[]> {
    // The unsettled starts first: a try that settles between the two reads is counted twice (unknown
    // and its figure), never not at all.
    const unsettled = await sql<UnsettledDbRow>(this.pool, POSTGRES_UNSETTLED);
    const runs = await sql<RunDbRow>(this.pool, RUNS_SQL);
    const states = await sql<RunStateDbRow>(this.pool, RUN_STATES_SQL);
    return runCountsFrom(runs.rows, states.rows, await this.retractions(), unsettled.rows);
  }

  /** One statement (autocommit): committed, for every shard to see, when it returns. */
  async recordTryStart(start: TryStart): Promise<boolean> {
    return this.appendTryRow(tryStartValues(start));
  }

  async recordTryInterruption(interruption: TryInterruption): Promise<void> {
    await this.appendTryRow(tryInterruptionValues(interruption));
  }

  /** Appends one campaign_tries row; false when that (try, event) is already there. */
  private async appendTryRow(values: (string | number)[]): Promise<boolean> {
    const { rowCount } = await sql(
      this.pool,
      `INSERT INTO campaign_tries (${TRY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
      values,
    );
    return rowCount === 1;
  }

  async campaignTries(campaignId: string): Promise<CampaignTry[]> {
    const { rows } = await sql<CampaignTryDbRow>(this.pool, POSTGRES_CAMPAIGN_TRIES, [campaignId]);
    return rows.map(campaignTryFromRow);
  }

  async retriedTries(): Promise<AttemptKey[]> {
    const { rows } = await sql<RetriedTryDbRow>(this.pool, POSTGRES_RETRIED);
    return rows.map(retriedTryFromRow);
  }

  async appendDriftRun(run: DriftRunRecord): Promise<void> {
    await sql(this.pool, 'INSERT INTO drift_runs (check_id, score, status) VALUES ($1, $2, $3)', [
      run.checkId,
      run.score,
      run.status,
    ]);
  }

  async driftWindow(checkId: string, eligible: number): Promise<DriftRunRecord[]> {
    type Row = { id: string; score: number; status: DriftRunRecord['status'] };
    const newest = (
      await sql<Row>(
        this.pool,
        'SELECT id, score, status FROM drift_runs WHERE check_id = $1 ORDER BY id DESC LIMIT 1',
        [checkId],
      )
    ).rows[0];
    if (newest === undefined) return [];
    const before = await sql<Row>(
      this.pool,
      "SELECT id, score, status FROM drift_runs WHERE check_id = $1 AND id < $2 AND status <> 'hard_fail' ORDER BY id DESC LIMIT $3",
      [checkId, newest.id, eligible],
    );
    return [...before.rows.reverse(), newest].map((row) => ({
      checkId,
      score: row.score,
      status: row.status,
    }));
  }

  async *policyVerdicts(): AsyncIterable<PolicyVerdict> {
    let last = '0';
    // Paged by id, like attempts(): no connection or cursor held across yields.
    for (;;) {
      const { rows } = await sql<PolicyVerdictDbRow & { id: string }>(
        this.pool,
        `SELECT v.id, ${POLICY_VERDICT_COLUMNS} FROM policy_verdicts v JOIN attempts a ON a.id = v.attempt
         WHERE v.id > $1 ORDER BY v.id LIMIT 500`,
        [last],
      );
      if (rows.length === 0) return;
      for (const row of rows) {
        last = row.id;
        yield policyVerdictFromRow(row);
      }
    }
  }

  async migrations(): Promise<number[]> {
    const { rows } = await sql<{ version: number }>(
      this.pool,
      'SELECT version FROM schema_migrations ORDER BY version',
    );
    return rows.map((row) => row.version);
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/** An outcome decided again after a race: `retracted` when its record is one this transaction appended. */
const asHeld =
  (appended: readonly Retraction[]) =>
  (outcome: RetractionOutcome): RetractionOutcome =>
    appended.some(
      (retraction) =>
        retraction.runId === outcome.retraction.runId &&
        retraction.attemptId === outcome.retraction.attemptId &&
        retraction.by === outcome.retraction.by &&
        retraction.at === outcome.retraction.at &&
        retraction.reason === outcome.retraction.reason,
    )
      ? { ...outcome, status: 'retracted' }
      : outcome;

function storedAttempt(row: AttemptRow, scores: ScoreRow[]): StoredAttempt {
  const record = JSON.parse(row.record_json) as StoredAttempt['record'];
  return { key: record.key, bundleDigest: row.bundle_digest, record, scores };
}

/** Items with their input index, sorted by key (stable): the order rows are written in. */
function inKeyOrder<T>(items: readonly T[], sortKeyOf: (item: T) => string): { item: T; index: number }[] {
  return items
    .map((item, index) => ({ item, index, sortKey: sortKeyOf(item) }))
    .sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : a.index - b.index));
}

/** Each column of `rows` as one array: the parameters of an INSERT … SELECT FROM unnest(…). */
function columns<T>(
  rows: readonly T[],
  width: number,
  valuesOf: (row: T) => readonly unknown[],
): unknown[][] {
  const arrays: unknown[][] = Array.from({ length: width }, () => []);
  for (const row of rows) valuesOf(row).forEach((value, column) => arrays[column]?.push(value));
  return arrays;
}

/**
 * Inserts records (in key order) inside the caller's transaction, set-based: the attempts that take
 * their key, then a read-back that classifies the rest as duplicates or conflicts, then the bundles
 * and score rows of the inserted ones. Rows keep the batch's order (WITH ORDINALITY).
 */
async function insertRecords(client: PoolClient, records: readonly LedgerRecord[]): Promise<InsertOutcome[]> {
  const attemptValues = (record: LedgerRecord): unknown[] => [
    ...keyParams(record.key),
    record.bundleDigest,
    record.fileSha256,
    record.provenance,
    record.terminal.run,
    record.failure?.classification ?? null,
    record.transcript.complete,
    record.denials,
    record.cost.coverage,
    record.cost.providerReportedNanodollars,
    record.cost.estimatedNanodollars,
    record.cost.pricingVersion,
    record.environmentMismatch.length > 0,
    storedRecordJson(record),
    record.cost.legacyLedgerNanodollars,
  ];
  const inserted = await sql<{ id: string; ordinality: string }>(
    client,
    `WITH given AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
         $8::text[], $9::text[], $10::boolean[], $11::integer[], $12::text[], $13::bigint[], $14::bigint[],
         $15::text[], $16::boolean[], $17::text[], $18::bigint[]) WITH ORDINALITY
         AS g(run_id, case_id, config_id, attempt_id, bundle_digest, file_sha256, provenance, run_terminal_state,
           failure_classification, transcript_complete, denials, cost_coverage, provider_cost_nanodollars,
           estimated_cost_nanodollars, pricing_version, environment_mismatch, record_json,
           legacy_ledger_cost_nanodollars, ordinality)
     ), written AS (
       INSERT INTO attempts (run_id, case_id, config_id, attempt_id, bundle_digest, file_sha256, provenance,
         run_terminal_state, failure_classification, transcript_complete, denials, cost_coverage,
         provider_cost_nanodollars, estimated_cost_nanodollars, pricing_version, environment_mismatch, record_json,
         legacy_ledger_cost_nanodollars)
       SELECT run_id, case_id, config_id, attempt_id, bundle_digest, file_sha256, provenance, run_terminal_state,
         failure_classification, transcript_complete, denials, cost_coverage, provider_cost_nanodollars,
         estimated_cost_nanodollars, pricing_version, environment_mismatch, record_json,
         legacy_ledger_cost_nanodollars
       FROM given ORDER BY ordinality
       ON CONFLICT (evalbook_key(run_id, case_id, config_id, attempt_id)) DO NOTHING
       RETURNING id, run_id, case_id, config_id, attempt_id
     )
     SELECT written.id, given.ordinality FROM written JOIN given USING (run_id, case_id, config_id, attempt_id)`,
    columns(records, 18, attemptValues),
  );
  // A key can come twice in one batch: its first occurrence takes it (the join names both), and the
  // later one is read back below like any held key.
  const firstOfKey = new Map<string, { position: number; id: string }>();
  for (const row of inserted.rows) {
    const position = Number(row.ordinality) - 1;
    const record = records[position];
    if (record === undefined) continue;
    const seen = firstOfKey.get(orderOf(record.key));
    if (seen === undefined || position < seen.position)
      firstOfKey.set(orderOf(record.key), { position, id: row.id });
  }
  const ids = new Map([...firstOfKey.values()].map(({ position, id }) => [position, id]));
  const heldKeys = records.filter((_, position) => !ids.has(position)).map((record) => record.key);
  // ON CONFLICT waited for any concurrent inserter to finish; READ COMMITTED lets this statement see it.
  const held = new Map<string, string>();
  if (heldKeys.length > 0) {
    const { rows } = await sql<{
      run_id: string;
      case_id: string;
      config_id: string;
      attempt_id: string;
      bundle_digest: string;
    }>(
      client,
      `SELECT run_id, case_id, config_id, attempt_id, bundle_digest FROM attempts
       WHERE evalbook_key(run_id, case_id, config_id, attempt_id) IN
         (SELECT evalbook_key(r, c, f, a) FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS k(r, c, f, a))`,
      columns(heldKeys, 4, keyParams),
    );
    for (const row of rows)
      held.set(
        orderOf({
          runId: row.run_id,
          caseId: row.case_id,
          configId: row.config_id,
          attemptId: row.attempt_id,
        }),
        row.bundle_digest,
      );
  }
  const outcomes = records.map((record, position): InsertOutcome => {
    const { key, bundleDigest } = record;
    if (ids.has(position)) return { status: 'inserted', key, bundleDigest };
    const existing = held.get(orderOf(key));
    if (existing === undefined) throw storeError(`attempt ${orderOf(key)} vanished while being read back`);
    return existing === bundleDigest
      ? { status: 'duplicate', key, bundleDigest }
      : { status: 'conflict', key, bundleDigest, existingDigest: existing };
  });
  const written = records.filter((_, position) => ids.has(position));
  if (written.length === 0) return outcomes;
  // The bundles only of inserted attempts (the foreign key is checked at commit).
  await sql(
    client,
    `INSERT INTO bundles (digest, canonical_json)
     SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT (digest) DO NOTHING`,
    columns(written, 2, (record) => [record.bundleDigest, record.rawCanonical]),
  );
  const scores = records.flatMap((record, position) => {
    const id = ids.get(position);
    return id === undefined ? [] : record.scores.map((score) => [id, ...scoreValues(score)]);
  });
  if (scores.length > 0)
    await sql(
      client,
      `INSERT INTO scores (attempt, ${SCORE_COLUMNS})
       SELECT attempt, check_id, layer, status, score, reason, evidence_json
       FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::float8[], $6::text[], $7::text[])
         WITH ORDINALITY AS s(attempt, check_id, layer, status, score, reason, evidence_json, ordinality)
       ORDER BY ordinality`,
      columns(scores, 7, (row) => row),
    );
  return outcomes;
}

/** Inserts one verdict inside the caller's transaction; a held key is read back and classified. */
async function insertVerdict(client: PoolClient, verdict: PolicyVerdictInput): Promise<PolicyVerdictOutcome> {
  const { rows: attempts } = await sql<{ id: string; bundle_digest: string }>(
    client,
    `SELECT id, bundle_digest FROM attempts WHERE ${BY_KEY}`,
    keyParams(verdict.key),
  );
  const attempt = attempts[0];
  if (attempt === undefined) return refusedVerdict(verdict, null);
  if (attempt.bundle_digest !== verdict.bundleDigest) return refusedVerdict(verdict, attempt.bundle_digest);
  const params = [attempt.id, verdict.callId, verdict.policyDigest];
  const inserted = await sql(
    client,
    `INSERT INTO policy_verdicts (attempt, call_id, policy_digest, tool_name, decision, rule_id, reason,
       error_code, recorded_outcome, agreement, verdict, decision_json)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     ON CONFLICT (attempt, evalbook_key(call_id, policy_digest)) DO NOTHING`,
    [...params, ...policyVerdictValues(verdict)],
  );
  if (inserted.rowCount === 1) return { status: 'inserted', verdict };
  // ON CONFLICT waited for any concurrent inserter to finish; READ COMMITTED lets this statement see it.
  const { rows } = await sql<PolicyVerdictDbRow>(
    client,
    `SELECT ${POLICY_VERDICT_COLUMNS} FROM policy_verdicts v JOIN attempts a ON a.id = v.attempt
     WHERE v.attempt = $1 AND v.call_id = $2 AND v.policy_digest = $3`,
    params,
  );
  const existing = rows[0];
  if (existing === undefined)
    throw storeError(`policy verdict ${verdict.callId} vanished while being read back`);
  return heldVerdictOutcome(verdict, policyVerdictFromRow(existing));
}

/**
 * Applies pending migrations, each in its own transaction, holding a session advisory lock so
 * concurrent openers wait and then find them applied; refuses a database newer than this code.
 * Returns the versions this call applied (ascending; [] when none was pending).
 */
export async function migratePostgres(
  client: PoolClient,
  migrations: readonly Migration[],
): Promise<number[]> {
  const appliedNow: number[] = [];
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL)',
    );
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
    const applied = new Set(rows.map((row) => row.version));
    const known = new Set(migrations.map((migration) => migration.version));
    const unknown = [...applied].filter((version) => !known.has(version)).sort((a, b) => a - b);
    if (unknown.length > 0)
      throw storeError(
        `the store has migration(s) ${unknown.join(', ')} this version of Evals does not know (a store from the future): upgrade Evals`,
      );
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      try {
        await client.query('BEGIN');
        await client.query(migration.sql);
        await client.query(
          'INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, now())',
          [migration.version, migration.name],
        );
        await client.query('COMMIT');
        appliedNow.push(migration.version);
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw storeError(
          `migration ${migration.version} (${migration.name}) failed: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      }
    }
    return appliedNow;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
  }
}

/** The SSL modes node-postgres 8 reads as verify-full (pg 9 is to read them as libpq does, weaker). */
const VERIFY_FULL_ALIASES: ReadonlySet<string> = new Set(['prefer', 'require', 'verify-ca']);

/**
 * The store URL as the driver is given it, and the SSL mode of the URL (or PGSSLMODE) read as
 * verify-full. node-postgres 8 reads sslmode=prefer, require and verify-ca as verify-full (the
 * certificate and the host name are checked; prefer never falls back to an unencrypted
 * connection), and says so with a "SECURITY WARNING" through process.emitWarning, which Node prints
 * on the user's stderr with a `--trace-warnings` hint. We hand it sslmode=verify-full for them:
 * the same connection, no warning, and a meaning that cannot weaken under a later driver. A URL
 * with uselibpqcompat=true asked for libpq's meanings and is handed on as it is (the driver warns
 * of nothing then). PGSSLMODE is read by the driver without a warning, as verify-full too.
 */
function sslModeRead(url: string): { connectionString: string; readAsVerifyFull?: string } {
  const decoded = (value: string): string => {
    try {
      return decodeURIComponent(value.replaceAll('+', ' '));
    } catch {
      return value;
    }
  };
  const query = /[?&]sslmode=([^&#]*)/g;
  const modes = [...url.matchAll(query)].map((match) => decoded(match[1] ?? ''));
  const envMode = process.env.PGSSLMODE ?? '';
  const mode = modes.at(-1) ?? (VERIFY_FULL_ALIASES.has(envMode) ? envMode : undefined);
  if (/[?&]uselibpqcompat=true(?=[&#]|$)/.test(url)) return { connectionString: url };
  const readAsVerifyFull = mode !== undefined && VERIFY_FULL_ALIASES.has(mode) ? mode : undefined;
  const connectionString = url.replace(query, (match: string, value: string) =>
    VERIFY_FULL_ALIASES.has(decoded(value)) ? `${match.slice(0, 1)}sslmode=verify-full` : match,
  );
  return readAsVerifyFull === undefined ? { connectionString } : { connectionString, readAsVerifyFull };
}

/**
 * node-postgres reads PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE, PGSSLMODE and PGPASSFILE
 * (~/.pgpass) as libpq does, but not connection service files: a PGSERVICE, PGSERVICEFILE or
 * `service=` it would ignore could connect somewhere else than the user meant, so it is refused.
 */
function refuseServiceFiles(url: string): void {
  const named = ['PGSERVICE', 'PGSERVICEFILE'].filter((name) => (process.env[name] ?? '') !== '');
  if (/[?&]service=/.test(url)) named.push("the URL's service= parameter");
  if (named.length > 0)
    throw storeError(
      `${named.join(' and ')} ${named.length > 1 ? 'are' : 'is'} set, but PostgreSQL connection service files are not read here (node-postgres does not support them): put host, port, user and database in the store URL or in PGHOST, PGPORT, PGUSER, PGDATABASE, and the password in PGPASSWORD or a PGPASSFILE (~/.pgpass)`,
    );
}

/**
 * A client that never crashes the process and whose failed connect closes its socket.
 *
 * A connection lost while the client is checked out (the server restarted, a backend terminated,
 * a network drop mid-batch) makes node-postgres fail the query in flight and then emit 'error' on
 * the client; the pool listens only while the client is idle, so without a listener here that
 * event is an uncaught exception (a stack trace, exit 1, no report). The query's own rejection is
 * what reports it (postgresFailure: store_unreachable), and every later query on this client is
 * refused ("not queryable"), so the event itself carries nothing more.
 *
 * A failed connect closes its socket. node-postgres leaves it open when it fails during
 * authentication (no password for a server that asks for one: "client password must be a string"),
 * and the server then holds it for its authentication_timeout (a minute): the command would print
 * its error and hang.
 */
class ClosingClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on('error', () => undefined);
  }

  override connect(): Promise<pg.Client>;
  override connect(callback: (err: Error) => void): void;
  override connect(callback?: (err: Error) => void): Promise<pg.Client> | void {
    if (callback === undefined) return super.connect();
    super.connect((error: Error | null) => {
      if (error) this.connection.stream.destroy();
      callback(error as Error);
    });
  }
}

/**
 * What to check when the server cannot be reached or refuses the database: the URL's host, port and
 * database (or PGHOST, PGPORT, PGDATABASE), said with the error node-postgres gave; '' otherwise.
 */
function connectionHint(error: unknown, message: string): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ECONNREFUSED')
    return ' (no server accepted the connection there: is PostgreSQL running and listening on that host and port? check the store URL, or PGHOST/PGPORT)';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return " (the host name does not resolve: check the store URL's host, or PGHOST)";
  if (code === 'ETIMEDOUT' || /timeout/i.test(message))
    return ' (the server did not answer in 15 s: a firewall, a wrong host or port, or a server too busy to accept)';
  if (code === '3D000')
    return ' (the server has no such database: create it (createdb NAME) or name one that exists; a new database is given the Evalbook tables on first open)';
  if (code === '28000' || /role .* does not exist/.test(message))
    return " (the server has no such user: check the store URL's user, or PGUSER)";
  return '';
}
