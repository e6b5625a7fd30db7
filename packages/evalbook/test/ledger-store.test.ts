// The ledger store behaviour suite, run once per store: SQLite (a temp file) and PostgreSQL (one real
// throwaway server for this file, @paperclip-evals/test-kit/postgres-server, and a fresh database per test).
// Shared: migrations (each once, a store from the future refused), idempotent re-ingest, conflicts that
// leave the store untouched byte for byte, invalid bundles never written, unreadable inputs (exit 2),
// unknown fields kept in the raw bundle, transcript/artifact verification, stdin, environment mismatch
// flags, batch atomicity, exact read-back, cost columns, insertion-order streaming across pages,
// append-only enforced by the database, and policy verdicts (idempotent per attempt, call and policy
// digest; a conflict overwrites nothing; refused without their attempt; append-only), and every valid
// bundle storable: the hostile corpus (@paperclip-evals/test-kit/hostile-bundles) stored or refused by the parser
// as its table says and read back exactly, and a bundle the database refuses costing only itself.
// Then what only one store has: SQLite's file and WAL;
// PostgreSQL's concurrent migrators, connection errors, TRUNCATE refused, and four child processes
// ingesting overlapping corpora at once (they run the built package, packages/evalbook/dist).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { canonicalDigest, canonicalize, parseNativeExecution, sha256Digest } from '@paperclip-evals/contract';

import { attemptVerdict } from '../src/analysis/scoring.ts';
import { ARTIFACT_CASE_ID, ARTIFACT_RUN_ID, convertBundle } from '../src/ledger/convert.ts';
import { currentCampaigns } from '../src/ledger/campaign-records.ts';
import { checkRetractionRequest } from '../src/ledger/retraction.ts';
import { ingest, ingestExitCode } from '../src/ledger/ingest.ts';
import { writeReport } from '../src/report/report.ts';
import { POSTGRES_MIGRATIONS, migratePostgres } from '../src/ledger/postgres-store.ts';
import { SQLITE_MIGRATIONS, SqliteStore, migrate } from '../src/ledger/sqlite-store.ts';
import { openStore } from '../src/ledger/open-store.ts';
import { scoreValues, storedRecordJson } from '../src/ledger/store-rows.ts';
import { tempDir, writeBundle, writeBundles } from '@paperclip-evals/test-kit/bundle-files';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { hostileCorpus, noise } from '@paperclip-evals/test-kit/hostile-bundles';
import { upstreamRows, writeUpstreamArtifacts } from '@paperclip-evals/test-kit/upstream-artifacts';
import { freePort, startPostgres } from '@paperclip-evals/test-kit/postgres-server';
import { refuseAttempt } from '@paperclip-evals/test-kit/refuse-attempt';

import { evalbookError } from './support/evalbook-error.ts';
import type { AttemptKey, LedgerRecord } from '../src/ledger/convert.ts';
import type { IngestSummary } from '../src/ledger/ingest.ts';
import type { PolicyVerdict, PolicyVerdictInput } from '../src/ledger/policy-verdicts.ts';
import type { Retraction, RetractionRequest } from '../src/ledger/retraction.ts';
import type { SyntheticAttemptOptions } from '@paperclip-evals/test-kit/synthetic';
import type { CopyInBatch, LedgerStore, StoredAttempt } from '../src/ledger/store.ts';
import type { CampaignTry, TryStart } from '../src/ledger/try-starts.ts';
import type { PostgresServer } from '@paperclip-evals/test-kit/postgres-server';

const DIST = pathToFileURL(fileURLToPath(new URL('../dist/index.js', import.meta.url))).href;
/** Generous for a loaded 2-core CI machine: initdb + pg_ctl start, and the multi-process test. */
const SERVER_START_MS = 120_000;
const STORE_TEST_MS = 60_000;
const CONCURRENCY_TEST_MS = 180_000;

type Row = Record<string, unknown>;

/** What the shared suite needs to know about one store. */
interface StoreKind {
  readonly name: 'sqlite' | 'postgres';
  /** The versions a fresh store must end with, from the store's own migration list. */
  readonly migrations: readonly { readonly version: number; readonly name: string }[];
  /** The database's own message for a violated unique/primary key. */
  readonly uniqueViolation: RegExp;
  /** Anything the store needs once before its tests (PostgreSQL: the shared server). */
  setUp(): Promise<void>;
  /** A URL for a fresh, empty store (nothing created yet) for one test; `dir` is that test's temp dir. */
  freshUrl(dir: string): Promise<string>;
  /** Raw SQL straight to the database, past the store code: the rows (none for a statement). */
  sql(url: string, text: string): Promise<Row[]>;
  /** Creates the store with only the migrations up to `version` applied (a store an older Evals made). */
  migrateTo(url: string, version: number): Promise<void>;
  /** Everything the database holds (SQLite: the bytes of every file; PostgreSQL: every row of every table). */
  snapshot(url: string): Promise<unknown>;
  /** Storage-level damage the engine itself reports (SQLite: integrity and foreign key checks). */
  storageProblems(url: string): Promise<string[]>;
}

// One PostgreSQL server for the whole file, started by the first test that needs it.
let serverStart: Promise<PostgresServer> | undefined;
const postgresServer = (): Promise<PostgresServer> => (serverStart ??= startPostgres());
let databases = 0;
afterAll(async () => {
  // A server that failed to start has already failed the tests that needed it, with the reason.
  const server = await serverStart?.catch(() => undefined);
  await server?.stop();
}, SERVER_START_MS);

const sqlitePath = (url: string): string => url.slice('sqlite:'.length);

const SQLITE: StoreKind = {
  name: 'sqlite',
  migrations: SQLITE_MIGRATIONS,
  uniqueViolation: /UNIQUE constraint failed/,
  setUp: () => Promise.resolve(),
  // A folder of its own (snapshots read it whole); a store the user names needs its folder to exist.
  freshUrl: async (dir) => {
    await mkdir(join(dir, 'db'), { recursive: true });
    return `sqlite:${join(dir, 'db', 'evalbook.sqlite')}`;
  },
  sql(url, text) {
    return new Promise((resolveRows) => {
      const db = new Database(sqlitePath(url), { fileMustExist: true });
      try {
        const statement = db.prepare(text);
        if (statement.reader) resolveRows(statement.all() as Row[]);
        else {
          statement.run();
          resolveRows([]);
        }
      } finally {
        db.close();
      }
    });
  },
  async migrateTo(url, version) {
    await mkdir(dirname(sqlitePath(url)), { recursive: true });
    const db = new Database(sqlitePath(url));
    try {
      migrate(
        db,
        SQLITE_MIGRATIONS.filter((migration) => migration.version <= version),
      );
    } finally {
      db.close();
    }
  },
  async snapshot(url) {
    const dir = dirname(sqlitePath(url));
    const files: Record<string, string> = {};
    for (const name of (await readdir(dir)).sort())
      files[name] = sha256Digest(await readFile(join(dir, name)));
    return files;
  },
  async storageProblems(url) {
    const integrity = await SQLITE.sql(url, 'PRAGMA integrity_check');
    const foreignKeys = await SQLITE.sql(url, 'PRAGMA foreign_key_check');
    return [
      ...integrity.map((row) => String(row.integrity_check)).filter((result) => result !== 'ok'),
      ...foreignKeys.map((row) => `foreign key: ${JSON.stringify(row)}`),
    ];
  },
};

const POSTGRES: StoreKind = {
  name: 'postgres',
  migrations: POSTGRES_MIGRATIONS,
  uniqueViolation: /duplicate key value violates unique constraint/,
  setUp: async () => {
    await postgresServer();
  },
  freshUrl: async () => (await postgresServer()).createDatabase(`evalbook_${++databases}`),
  async sql(url, text) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<Row>(text)).rows;
    } finally {
      await client.end();
    }
  },
  async migrateTo(url, version) {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    const client = await pool.connect();
    try {
      await migratePostgres(
        client,
        POSTGRES_MIGRATIONS.filter((migration) => migration.version <= version),
      );
    } finally {
      client.release();
      await pool.end();
    }
  },
  async snapshot(url) {
    const tables = await POSTGRES.sql(
      url,
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
    );
    const rows: Record<string, Row[]> = {};
    for (const { table_name: table } of tables)
      rows[String(table)] = await POSTGRES.sql(url, `SELECT * FROM "${String(table)}" AS t ORDER BY t::text`);
    return rows;
  },
  storageProblems: () => Promise.resolve([]),
};

const key = (attemptId: string): AttemptKey => ({
  runId: 'run_synthetic',
  caseId: 'case_synthetic',
  configId: 'config_synthetic',
  attemptId,
});

const record = (attemptId: string, costMicros?: number | null): LedgerRecord =>
  convertBundle(
    parseNativeExecution(
      JSON.stringify(syntheticAttempt(costMicros === undefined ? { attemptId } : { attemptId, costMicros })),
    ),
  );

const POLICY_DIGEST = `sha256:${'a'.repeat(64)}`;

/** A policy verdict for one call of a stored synthetic attempt (its bundle digest is the ledger's). */
const verdict = (
  attemptId: string,
  callId = 'call_0',
  changes: Partial<PolicyVerdictInput> = {},
): PolicyVerdictInput => ({
  key: key(attemptId),
  bundleDigest: record(attemptId).bundleDigest,
  callId,
  policyDigest: POLICY_DIGEST,
  toolName: 'read_document',
  decision: 'deny',
  verdict: 'deny',
  decisionJson:
    '{"verdict":"deny","rule_id":"no-reads","reason":"reads need a ticket","matched":[],"x_future":{"n":12345678901234567890}}',
  ruleId: 'no-reads',
  reason: 'reads need a ticket',
  errorCode: null,
  recordedOutcome: 'succeeded',
  agreement: 'policy_denies_runner_allowed',
  ...changes,
});

/** A verdict as policyVerdicts() reads it back: without the bundle digest it was checked against. */
const readBack = ({ bundleDigest: _digest, ...stored }: PolicyVerdictInput) => stored;

const attemptIds = (count: number): string[] =>
  Array.from({ length: count }, (_, index) => `attempt_${String(index).padStart(5, '0')}`);

/** Rows that break the ledger's references: attempts without a bundle, scores without an attempt, unowned bundles. */
const ORPHANS = `
  SELECT 'attempt without bundle' AS problem, a.attempt_id AS id FROM attempts a
    WHERE NOT EXISTS (SELECT 1 FROM bundles b WHERE b.digest = a.bundle_digest)
  UNION ALL SELECT 'score without attempt', s.check_id FROM scores s
    WHERE NOT EXISTS (SELECT 1 FROM attempts a WHERE a.id = s.attempt)
  UNION ALL SELECT 'bundle without attempt', b.digest FROM bundles b
    WHERE NOT EXISTS (SELECT 1 FROM attempts a WHERE a.bundle_digest = b.digest)`;

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('evalbook-ledger-'));
});
afterEach(() => cleanup());

describe('openStore', () => {
  it('refuses unknown store URLs and a sqlite: URL without a path, as a store EvalbookError', async () => {
    await expect(openStore('mysql://x')).rejects.toThrow(evalbookError('paperclip_evalbook_store_unusable'));
    await expect(openStore('sqlite:')).rejects.toThrow(evalbookError('paperclip_evalbook_store_unusable'));
  });
});

describe.each([SQLITE, POSTGRES])('the $name ledger store', { timeout: STORE_TEST_MS }, (kind) => {
  beforeAll(() => kind.setUp(), SERVER_START_MS);

  let storeUrl: string;
  beforeEach(async () => {
    storeUrl = await kind.freshUrl(dir);
  });

  const sql = (text: string): Promise<Row[]> => kind.sql(storeUrl, text);
  const versions = kind.migrations.map((migration) => migration.version);

  const bundles = async (count: number): Promise<string> => {
    const at = join(dir, 'bundles');
    await mkdir(at, { recursive: true });
    await writeBundles(at, count);
    return at;
  };

  describe('migrations', () => {
    it('applies every migration once, also when opened again', async () => {
      expect(versions.length).toBeGreaterThan(0);
      const store = await openStore(storeUrl);
      expect(store.kind).toBe(kind.name);
      expect(await store.migrations()).toEqual(versions);
      await store.close();
      const again = await openStore(storeUrl);
      expect(await again.migrations()).toEqual(versions);
      await again.close();
      expect(await sql('SELECT version, name FROM schema_migrations ORDER BY version')).toEqual(
        kind.migrations.map(({ version, name }) => ({ version, name })),
      );
    });

    it('migration 5 keeps the score rows of an older store in their order, then takes layered engine rows', async () => {
      await kind.migrateTo(storeUrl, 4);
      const old = record('attempt_old');
      const quote = (text: string | null): string =>
        text === null ? 'NULL' : `'${text.replaceAll("'", "''")}'`;
      await sql(
        `INSERT INTO bundles (digest, canonical_json) VALUES (${quote(old.bundleDigest)}, ${quote(old.rawCanonical)})`,
      );
      await sql(
        `INSERT INTO attempts (run_id, case_id, config_id, attempt_id, bundle_digest, file_sha256, provenance,
           run_terminal_state, failure_classification, transcript_complete, denials, cost_coverage,
           provider_cost_nanodollars, estimated_cost_nanodollars, pricing_version, environment_mismatch, record_json)
         VALUES ('run_synthetic', 'case_synthetic', 'config_synthetic', 'attempt_old', ${quote(old.bundleDigest)}, NULL,
           'synthetic', 'succeeded', NULL, TRUE, 0, 'provider_reported', 5000000, NULL, NULL, FALSE, ${quote(storedRecordJson(old))})`,
      );
      const oldRows = [
        ['zeta', 'pass', '1', null],
        ['alpha', 'fail', '0', null],
        ['mid', 'not_evaluated', 'NULL', 'no verdict: passed is missing'],
      ] as const;
      for (const [checkId, status, score, reason] of oldRows)
        await sql(
          `INSERT INTO scores (attempt, check_id, status, score, reason, evidence_json)
           SELECT id, '${checkId}', '${status}', ${score}, ${quote(reason)}, '{"id":"${checkId}"}' FROM attempts`,
        );

      const store = await openStore(storeUrl);
      expect(await store.migrations()).toEqual(versions);
      expect((await store.getAttempt(key('attempt_old')))?.scores).toEqual(
        oldRows.map(([checkId, status, score, reason]) => ({
          checkId,
          layer: null,
          status,
          score: score === 'NULL' ? null : Number(score),
          reason,
          evidence: { id: checkId },
        })),
      );
      const layered = convertBundle(
        parseNativeExecution(JSON.stringify(syntheticAttempt({ attemptId: 'attempt_layered' }))),
        {
          checkResults: [
            {
              assertion_id: 'tools',
              status: 'soft_fail',
              score: 0.5,
              explanation: 'one forbidden call',
              cost: 0,
              duration_ms: 1,
              type: 'trace',
              layer: 3,
            },
            {
              assertion_id: 'judge',
              status: 'not_evaluated',
              reason: 'provider_not_configured',
              score: 0,
              explanation: 'no provider',
              cost: 0,
              duration_ms: 0,
              type: 'llm_judge',
              layer: 6,
            },
          ],
        },
      );
      await store.insertBatch([layered]);
      const stored = await store.getAttempt(layered.key);
      await store.close();
      expect(stored?.scores).toEqual(layered.scores);
      expect(stored?.scores.map((score) => [score.checkId, score.layer, score.status])).toEqual([
        ['tools', 3, 'soft_fail'],
        ['judge', 6, 'not_evaluated'],
        ['synthetic-check', null, 'pass'],
      ]);
      await expect(sql("UPDATE scores SET status = 'pass'")).rejects.toThrow(/append-only/);
      await expect(
        sql(
          "INSERT INTO scores (attempt, check_id, layer, status, evidence_json) SELECT id, 'x', '7', 'pass', 'null' FROM attempts",
        ),
      ).rejects.toThrow(/check/i);
      expect(await kind.storageProblems(storeUrl)).toEqual([]);
    });

    it("migration 7 keeps an older store's policy verdicts (no decision kept then), and takes whole decisions and unfamiliar verdicts", async () => {
      const old = record('attempt_old');
      await kind.migrateTo(storeUrl, 6);
      const quote = (text: string | null): string =>
        text === null ? 'NULL' : `'${text.replaceAll("'", "''")}'`;
      await sql(
        `INSERT INTO bundles (digest, canonical_json) VALUES (${quote(old.bundleDigest)}, ${quote(old.rawCanonical)})`,
      );
      await sql(
        `INSERT INTO attempts (run_id, case_id, config_id, attempt_id, bundle_digest, file_sha256, provenance,
           run_terminal_state, failure_classification, transcript_complete, denials, cost_coverage,
           provider_cost_nanodollars, estimated_cost_nanodollars, pricing_version, environment_mismatch, record_json)
         VALUES ('run_synthetic', 'case_synthetic', 'config_synthetic', 'attempt_old', ${quote(old.bundleDigest)}, NULL,
           'synthetic', 'succeeded', NULL, TRUE, 0, 'provider_reported', 5000000, NULL, NULL, FALSE, ${quote(storedRecordJson(old))})`,
      );
      await sql(
        `INSERT INTO policy_verdicts (attempt, call_id, policy_digest, tool_name, decision, rule_id, reason, error_code,
           recorded_outcome, agreement)
         SELECT id, 'call_0', '${POLICY_DIGEST}', 'read_document', 'deny', 'no-reads', 'reads need a ticket', NULL,
           'succeeded', 'policy_denies_runner_allowed' FROM attempts`,
      );
      const store = await openStore(storeUrl);
      try {
        expect(await store.migrations()).toEqual(versions);
        const before = [];
        for await (const verdict of store.policyVerdicts()) before.push(verdict);
        expect(before).toEqual([{ ...readBack(verdict('attempt_old')), verdict: null, decisionJson: null }]);
        // The same verdict with its decision kept is the same verdict: a duplicate, the old row kept.
        const unfamiliar = verdict('attempt_old', 'call_1', {
          decision: null,
          verdict: 'escalate',
          decisionJson: '{"verdict":"escalate","x":12345678901234567890}',
          agreement: 'policy_verdict_unfamiliar',
        });
        expect(
          (await store.insertPolicyVerdicts([verdict('attempt_old'), unfamiliar])).map((o) => o.status),
        ).toEqual(['duplicate', 'inserted']);
        const after = [];
        for await (const stored of store.policyVerdicts()) after.push(stored);
        expect(after).toEqual([before[0], readBack(unfamiliar)]);
      } finally {
        await store.close();
      }
    });

    it('refuses a store from the future (a migration this code does not know) as a store EvalbookError', async () => {
      await (await openStore(storeUrl)).close();
      const future = Math.max(...versions) + 1000;
      await sql(
        `INSERT INTO schema_migrations (version, name, applied_at) VALUES (${future}, 'future', '2030-01-01T00:00:00Z')`,
      );
      await expect(openStore(storeUrl)).rejects.toThrow(evalbookError('paperclip_evalbook_store_unusable'));
      await expect(openStore(storeUrl)).rejects.toThrow(new RegExp(`migration\\(s\\) ${future} .*future`));
    });
  });

  describe('ingest', () => {
    it('is idempotent: the same bundles again are duplicates (exit 0)', async () => {
      const input = await bundles(25);
      const first = await ingest({ inputs: [input], storeUrl, batchSize: 10 });
      expect(first).toMatchObject({
        store: storeUrl,
        processed: 25,
        inserted: 25,
        duplicates: 0,
        conflicts: [],
        invalid: [],
        unreadable: [],
      });
      expect(first.coverage.text).toBe('25 of 25 attempts priced (25 provider-reported, 0 estimated)');
      expect(ingestExitCode(first)).toBe(0);
      const second = await ingest({ inputs: [input], storeUrl, batchSize: 10 });
      expect(second).toMatchObject({
        inserted: 0,
        duplicates: 25,
        conflicts: [],
        invalid: [],
        unreadable: [],
      });
      expect(ingestExitCode(second)).toBe(0);
      const store = await openStore(storeUrl);
      expect(await store.countAttempts()).toBe(25);
      const ids: string[] = [];
      for await (const attempt of store.attempts()) ids.push(attempt.key.attemptId);
      await store.close();
      expect(ids).toEqual(attemptIds(25));
    });

    it('takes a bundle the store holds from the same bytes as a duplicate by the digest it holds, without canonicalising it again', async () => {
      const at = join(dir, 'held');
      await mkdir(at, { recursive: true });
      const path = await writeBundle(at, 'attempt_held.json', { attemptId: 'attempt_held' });
      const bytes = await readFile(path);
      // A row for that attempt read from those very bytes, under a digest the bytes do not
      // canonicalise to: were the canonical form made again, ingest would report a conflict.
      const held = convertBundle(parseNativeExecution(bytes), { fileSha256: sha256Digest(bytes) });
      const store = await openStore(storeUrl);
      await store.insertBatch([{ ...held, bundleDigest: `sha256:${'f'.repeat(64)}` }]);
      await store.close();
      const again = await ingest({ inputs: [path], storeUrl });
      expect(again).toMatchObject({ inserted: 0, duplicates: 1, conflicts: [], invalid: [] });
      // Other bytes of the same attempt are judged by their canonical digest, as always: the same
      // content pretty-printed is a conflict with that held digest, not a duplicate by assumption.
      const pretty = join(at, 'pretty.json');
      await writeFile(pretty, JSON.stringify(JSON.parse(bytes.toString('utf8')), null, 2));
      const other = await ingest({ inputs: [pretty], storeUrl });
      expect(other).toMatchObject({ inserted: 0, duplicates: 0, invalid: [] });
      expect(other.conflicts).toEqual([
        expect.objectContaining({
          bundleDigest: held.bundleDigest,
          existingDigest: `sha256:${'f'.repeat(64)}`,
        }),
      ]);
    });

    it('re-ingests a changed file as a conflict and a reformatted one as a duplicate', async () => {
      const input = await bundles(3);
      await ingest({ inputs: [input], storeUrl });
      const path = join(input, 'attempt_00001.json');
      const original = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
      await writeFile(path, JSON.stringify(original, null, 2)); // other bytes, the same canonical form
      expect(await ingest({ inputs: [input], storeUrl })).toMatchObject({
        inserted: 0,
        duplicates: 3,
        conflicts: [],
      });
      await writeFile(path, JSON.stringify({ ...original, x_note: 'changed' }));
      const changed = await ingest({ inputs: [input], storeUrl });
      expect(changed).toMatchObject({ inserted: 0, duplicates: 2 });
      expect(changed.conflicts.map((conflict) => conflict.key.attemptId)).toEqual(['attempt_00001']);
    });

    it('stores an eval-session artifact with its bundle: the artifact kept whole, its infrastructure failure with retryability', async () => {
      const at = join(dir, 'eval-session');
      await mkdir(join(at, 'attempt_es'), { recursive: true });
      const synthetic = syntheticAttempt({ attemptId: 'attempt_es', costMicros: null });
      const bundle: Record<string, unknown> = {
        ...synthetic,
        usage: {
          ...(synthetic.usage as object),
          providerReportedCostNanodollars: null,
          providerReportedCostProvenance: 'unavailable',
          estimatedCostNanodollars: 2_000,
          pricingVersion: 'list-1',
          costCoverage: 'estimated',
          legacyLedgerCostNanodollars: 5_000,
        },
        failure: { classification: 'infrastructure', code: 'provider_turn_timeout', message: 'timed out' },
      };
      const bundleBytes = Buffer.from(JSON.stringify(bundle));
      await writeFile(join(at, 'attempt_es', 'native-execution.json'), bundleBytes);
      const usage = bundle.usage as Record<string, unknown>;
      const artifact = {
        schema: 'paperclip-runner/eval-session-artifact/v1',
        attemptId: 'attempt_es',
        build: {
          schema: 'paperclip-runner/build-metadata/v1',
          package: (bundle.runner as { package: object }).package,
          contracts: { nativeExecution: 1, runnerdArtifact: 1, harnessDriver: 1, semanticCatalog: 1 },
          prp: { name: 'paperclip.runner', minimumVersion: 1, maximumVersion: 1 },
          semanticCatalog: { version: 1, sha256: `sha256:${'e'.repeat(64)}` },
        },
        runnerd: {
          path: '[withheld]',
          sha256: (bundle.runner as { binary: { sha256: string } }).binary.sha256,
        },
        requestedModel: 'm1',
        provider: 'paperclip_deterministic',
        driver: 'paperclip_deterministic_harness',
        providerVersion: '1.0.0',
        providerSessionId: 'session_es',
        infrastructureError: 'timed out',
        infrastructureFailure: {
          class: 'provider_turn_timeout',
          category: 'provider_lifecycle',
          retryable: true,
          diagnostics: {},
        },
        snapshot: { usageLedger: [{ receiptId: 'r1', reportedCost: null }] },
        usage: {
          agentTurns: 1,
          providerRequests: 1,
          inputTokens: usage.inputTokens,
          outputTokens: usage.outputTokens,
          cachedInputTokens: 0,
          reasoningTokens: 0,
          providerReportedCostNanodollars: null,
          providerReportedCostProvenance: 'unavailable',
          estimatedCostNanodollars: 2_000,
          pricingVersion: 'list-1',
          ratesUsdPerMillionTokens: { input: 1, cachedInput: 0.1, output: 2 },
          costCoverage: 'estimated',
          legacyLedgerCostNanodollars: 5_000,
        },
        timing: {
          startedAt: '2026-12-01T10:00:00.000Z',
          finishedAt: '2026-12-01T10:00:01.000Z',
          durationMs: 1000,
        },
        nativeExecution: {
          path: 'attempt_es/native-execution.json',
          sha256: sha256Digest(bundleBytes),
          byteSize: bundleBytes.length,
        },
      };
      const artifactPath = join(at, 'artifact.json');
      await writeFile(artifactPath, JSON.stringify(artifact));
      const summary = await ingest({ inputs: [artifactPath], storeUrl });
      expect(summary, JSON.stringify(summary.invalid)).toMatchObject({ inserted: 1, invalid: [] });
      expect(summary.coverage.text).toBe('1 of 1 attempt priced (0 provider-reported, 1 estimated)');
      const store = await openStore(storeUrl);
      const stored = await store.getAttempt({ ...key('attempt_es') });
      await store.close();
      expect(stored?.record.failure).toEqual({
        classification: 'infrastructure',
        code: 'provider_turn_timeout',
        message: 'timed out',
        retryable: true,
      });
      expect(stored?.record.evalSession).toMatchObject({
        provider: 'paperclip_deterministic',
        infrastructureFailure: {
          class: 'provider_turn_timeout',
          category: 'provider_lifecycle',
          retryable: true,
        },
        artifact: { snapshot: { usageLedger: [{ receiptId: 'r1', reportedCost: null }] } },
      });
      expect(stored?.record.cost).toMatchObject({
        providerReportedNanodollars: null,
        estimatedNanodollars: 2_000,
        legacyLedgerNanodollars: 5_000,
        coverage: 'estimated',
        effectiveNanodollars: 2_000,
      });
      // The same artifact again: a duplicate (the bundle is the attempt's identity).
      expect(await ingest({ inputs: [artifactPath], storeUrl })).toMatchObject({
        inserted: 0,
        duplicates: 1,
      });
    });

    it('stores an upstream eval-session artifact with no bundle beside it (issue 17) and reads it back exactly', async () => {
      const row = upstreamRows().find((candidate) => candidate.status === 'errored')!;
      const [path] = writeUpstreamArtifacts(join(dir, 'upstream'), [row]);
      const summary = await ingest({ inputs: [path!], storeUrl });
      expect(summary, JSON.stringify(summary.invalid)).toMatchObject({ inserted: 1, invalid: [] });
      const artifact = row.artifact;
      const store = await openStore(storeUrl);
      const stored = await store.getAttempt({
        runId: ARTIFACT_RUN_ID,
        caseId: ARTIFACT_CASE_ID,
        configId: `${String(artifact.provider)}/${String(artifact.requestedModel)}`,
        attemptId: String(artifact.attemptId),
      });
      const raw = await store.getBundle(stored?.bundleDigest ?? '');
      await store.close();
      expect(stored?.record.failure).toMatchObject({ classification: 'infrastructure', retryable: true });
      expect(stored?.record.evalSession?.artifact).toEqual(artifact);
      expect(raw === null ? null : JSON.parse(raw)).toEqual(artifact);
      expect(attemptVerdict(stored!.record, stored!.scores).status).toBe('errored');
    });

    it('reports a conflict (exit 1) and leaves the store untouched, byte for byte', async () => {
      const original = await writeBundle(dir, 'a.json', { attemptId: 'attempt_x' });
      await ingest({ inputs: [original], storeUrl });
      const store = await openStore(storeUrl);
      const before = await store.getAttempt(key('attempt_x'));
      const beforeRaw = await store.getBundle(before?.bundleDigest ?? '');
      await store.close();
      expect(before?.scores.length).toBeGreaterThan(0);
      expect(beforeRaw).not.toBeNull();
      const snapshot = await kind.snapshot(storeUrl);

      const changed = await writeBundle(dir, 'b.json', { attemptId: 'attempt_x', costMicros: 1 });
      const summary = await ingest({ inputs: [changed], storeUrl });
      expect(summary).toMatchObject({ inserted: 0, duplicates: 0 });
      expect(summary.conflicts).toHaveLength(1);
      expect(summary.conflicts[0]).toMatchObject({ input: changed, key: key('attempt_x') });
      expect(summary.conflicts[0]?.existingDigest).toBe(before?.bundleDigest);
      expect(summary.conflicts[0]?.bundleDigest).not.toBe(before?.bundleDigest);
      expect(ingestExitCode(summary)).toBe(1);

      const after = await openStore(storeUrl);
      expect(await after.getAttempt(key('attempt_x'))).toEqual(before);
      expect(await after.getBundle(before?.bundleDigest ?? '')).toBe(beforeRaw);
      expect(await after.getBundle(summary.conflicts[0]?.bundleDigest ?? '')).toBeNull();
      expect(await after.countAttempts()).toBe(1);
      await after.close();
      expect(await kind.snapshot(storeUrl)).toEqual(snapshot);
    });

    it('never writes an invalid bundle and reports every issue (exit 1)', async () => {
      const good = await writeBundle(dir, 'good.json', { attemptId: 'attempt_good' });
      const bad = syntheticAttempt({ attemptId: 'attempt_bad' });
      (bad.usage as Record<string, unknown>).totalTokens = 1;
      delete (bad as Record<string, unknown>).failure;
      await writeFile(join(dir, 'bad.json'), JSON.stringify(bad));
      const summary = await ingest({ inputs: [good, join(dir, 'bad.json')], storeUrl });
      expect(summary.inserted).toBe(1);
      expect(summary.invalid).toHaveLength(1);
      expect(summary.invalid[0]?.input).toBe(join(dir, 'bad.json'));
      expect(summary.invalid[0]?.issues.length).toBeGreaterThanOrEqual(2);
      expect(ingestExitCode(summary)).toBe(1);
      const store = await openStore(storeUrl);
      expect(await store.countAttempts()).toBe(1);
      expect(await store.getAttempt(key('attempt_bad'))).toBeNull();
      await store.close();
      expect(await sql(ORPHANS)).toEqual([]);
    });

    it('reports unreadable inputs (exit 2) and writes the readable ones', async () => {
      const good = await writeBundle(dir, 'good.json', { attemptId: 'attempt_good' });
      const absent = join(dir, 'absent.json');
      const summary = await ingest({ inputs: [absent, good], storeUrl });
      expect(summary.unreadable).toEqual([
        { input: absent, error: expect.stringMatching(/ENOENT/) as unknown, code: 'input_missing' },
      ]);
      expect(summary).toMatchObject({ processed: 2, inserted: 1, invalid: [] });
      expect(ingestExitCode(summary)).toBe(2);
      const store = await openStore(storeUrl);
      expect(await store.countAttempts()).toBe(1);
      await store.close();
    });

    it('keeps unknown additive fields in the stored raw bundle', async () => {
      const extra = { futureField: { nested: [1, 'two', null] }, anotherNewThing: 'kept' };
      const path = await writeBundle(dir, 'extra.json', { attemptId: 'attempt_extra' }, extra);
      await ingest({ inputs: [path], storeUrl });
      const store = await openStore(storeUrl);
      const stored = await store.getAttempt(key('attempt_extra'));
      const raw = await store.getBundle(stored?.bundleDigest ?? '');
      await store.close();
      const original = { ...syntheticAttempt({ attemptId: 'attempt_extra' }), ...extra };
      expect(raw).not.toBeNull();
      const readBack = JSON.parse(raw ?? 'null') as Record<string, unknown>;
      expect(readBack.futureField).toEqual(extra.futureField);
      expect(readBack.anotherNewThing).toBe('kept');
      expect(canonicalDigest(readBack)).toBe(canonicalDigest(original));
      expect(stored?.bundleDigest).toBe(canonicalDigest(original));
    });

    it('verifies transcript and artifact digests under artifactRoot; a mismatch is never written', async () => {
      const root = join(dir, 'artifacts');
      const attemptId = 'attempt_art';
      const raw = syntheticAttempt({ attemptId });
      const transcriptBytes = Buffer.from('{"line":1}\n');
      const transcript = raw.transcript as Record<string, unknown>;
      transcript.sha256 = sha256Digest(transcriptBytes);
      transcript.byteSize = transcriptBytes.byteLength;
      await mkdir(join(root, attemptId), { recursive: true });
      await writeFile(join(root, attemptId, 'transcript.jsonl'), transcriptBytes);
      await writeFile(join(dir, 'art.json'), JSON.stringify(raw));
      const ok = await ingest({ inputs: [join(dir, 'art.json')], storeUrl, artifactRoot: root });
      expect(ok.inserted).toBe(1);
      const store = await openStore(storeUrl);
      const stored = await store.getAttempt(key(attemptId));
      await store.close();
      expect(stored?.record.references.map((ref) => [ref.role, ref.verification])).toEqual([
        ['transcript', 'verified'],
        ['artifact', 'unverified'],
      ]);

      await writeFile(join(root, attemptId, 'summary.json'), 'not the summary');
      const raw2 = { ...raw, identity: { ...(raw.identity as object), attemptId: 'attempt_art2' } };
      await writeFile(join(dir, 'art2.json'), JSON.stringify(raw2));
      const mismatched = await ingest({ inputs: [join(dir, 'art2.json')], storeUrl, artifactRoot: root });
      expect(mismatched.inserted).toBe(0);
      expect(mismatched.invalid[0]?.issues.map((issue) => [issue.code, issue.path])).toEqual([
        ['artifact_digest_mismatch', '/artifacts/0/sha256'],
      ]);
      expect(ingestExitCode(mismatched)).toBe(1);
      const after = await openStore(storeUrl);
      expect(await after.getAttempt(key('attempt_art2'))).toBeNull();
      expect(await after.countAttempts()).toBe(1);
      await after.close();
    });

    it('reads a bundle from stdin (-), in chunks, next to a file', async () => {
      const bytes = Buffer.from(JSON.stringify(syntheticAttempt({ attemptId: 'attempt_stdin' })));
      const chunks: Buffer[] = [];
      for (let at = 0; at < bytes.byteLength; at += 1000) chunks.push(bytes.subarray(at, at + 1000));
      const stdin = (): Readable => Readable.from(chunks);
      const file = await writeBundle(dir, 'file.json', { attemptId: 'attempt_file' });
      const summary = await ingest({ inputs: ['-', file], storeUrl, stdin: stdin() });
      expect(summary).toMatchObject({ processed: 2, inserted: 2, invalid: [], unreadable: [] });
      const again = await ingest({ inputs: ['-'], storeUrl, stdin: stdin() });
      expect(again).toMatchObject({ processed: 1, inserted: 0, duplicates: 1 });
      const store = await openStore(storeUrl);
      const stored = await store.getAttempt(key('attempt_stdin'));
      await store.close();
      expect(chunks.length).toBeGreaterThan(1);
      expect(stored?.bundleDigest).toBe(canonicalDigest(JSON.parse(bytes.toString('utf8'))));
      expect(stored?.record.fileSha256).toBe(sha256Digest(bytes));
    });

    describe("attempts not of the environment's suite", () => {
      const otherDigest = `sha256:${'a'.repeat(64)}`;
      const suiteOf = (options: SyntheticAttemptOptions) =>
        syntheticAttempt(options).input as { caseSha256: string; configSha256: string };
      const { caseSha256, configSha256 } = suiteOf({});
      /** case_synthetic and config_synthetic as the synthetic bundles have them; case_other and config_other under another digest. */
      const environment = async (): Promise<string> => {
        const path = join(dir, 'evalbook.json');
        await writeFile(
          path,
          JSON.stringify({
            schema: 'paperclip-evals/environment/v1',
            name: 't',
            store: storeUrl,
            cases: [
              { id: 'case_synthetic', sha256: caseSha256 },
              { id: 'case_other', sha256: otherDigest },
            ],
            configs: [
              {
                id: 'config_synthetic',
                sha256: configSha256,
                model: 'm1',
                driver: 'paperclip-deterministic',
              },
              { id: 'config_other', sha256: otherDigest, model: 'm1', driver: 'paperclip-deterministic' },
            ],
            pricing: { version: 'v1', models: { m1: { inputPerMillionUsd: 1, outputPerMillionUsd: 2 } } },
          }),
        );
        return path;
      };
      // One row per way an attempt can be foreign: what the bundle says, and the issue it must get.
      const FOREIGN: readonly [string, SyntheticAttemptOptions, Record<string, unknown>][] = [
        [
          'a case the environment does not list',
          { caseId: 'case_typo' },
          {
            code: 'case_not_in_environment',
            path: '/identity/caseId',
            expected: 'one of case_synthetic, case_other',
            received: 'case_typo',
          },
        ],
        [
          'a config the environment does not list',
          { configId: 'config_typo' },
          {
            code: 'config_not_in_environment',
            path: '/identity/configId',
            expected: 'one of config_synthetic, config_other',
            received: 'config_typo',
          },
        ],
        [
          "a stale case digest (the case's definition changed)",
          { caseId: 'case_other' },
          {
            code: 'case_digest_differs',
            path: '/input/caseSha256',
            expected: otherDigest,
            received: suiteOf({ caseId: 'case_other' }).caseSha256,
          },
        ],
        [
          "a stale config digest (the config's definition changed)",
          { configId: 'config_other' },
          {
            code: 'config_digest_differs',
            path: '/input/configSha256',
            expected: otherDigest,
            received: suiteOf({ configId: 'config_other' }).configSha256,
          },
        ],
      ];
      const keyOf = (options: SyntheticAttemptOptions & { attemptId: string }): AttemptKey => ({
        ...key(options.attemptId),
        ...(options.caseId === undefined ? {} : { caseId: options.caseId }),
        ...(options.configId === undefined ? {} : { configId: options.configId }),
      });

      it.each(FOREIGN)(
        '%s: exit 1, each foreign attempt named (field, expected, received), and nothing of the run written, byte for byte',
        async (_name, options, issue) => {
          const environmentPath = await environment();
          const seeded = await ingest({
            inputs: [await writeBundle(dir, 'seed.json', { attemptId: 'attempt_seed' })],
            environmentPath,
          });
          expect(seeded).toMatchObject({ inserted: 1, foreign: [] });
          const before = await kind.snapshot(storeUrl);
          // A clean attempt first, in its own batch: nothing of it may be written either.
          const clean = await writeBundle(dir, 'clean.json', { attemptId: 'attempt_clean' });
          const first = await writeBundle(dir, 'f1.json', { ...options, attemptId: 'attempt_f1' });
          const second = await writeBundle(dir, 'f2.json', { ...options, attemptId: 'attempt_f2' });
          const summary = await ingest({ inputs: [clean, first, second], environmentPath, batchSize: 1 });
          expect(summary).toMatchObject({ inserted: 0, duplicates: 0, keepForeign: false });
          expect(summary.foreign).toEqual([
            {
              input: first,
              key: keyOf({ ...options, attemptId: 'attempt_f1' }),
              issues: [expect.objectContaining(issue)],
            },
            {
              input: second,
              key: keyOf({ ...options, attemptId: 'attempt_f2' }),
              issues: [expect.objectContaining(issue)],
            },
          ]);
          expect(ingestExitCode(summary)).toBe(1);
          expect(await kind.snapshot(storeUrl)).toEqual(before);
        },
      );

      it('refuses before the store is opened: a store that is not there is not created', async () => {
        const summary = await ingest({
          inputs: [await writeBundle(dir, 'f.json', { attemptId: 'attempt_f', configId: 'config_typo' })],
          environmentPath: await environment(),
        });
        expect(ingestExitCode(summary)).toBe(1);
        if (kind.name === 'sqlite') expect(existsSync(sqlitePath(storeUrl))).toBe(false);
        else expect(await kind.snapshot(storeUrl)).toEqual({});
      });

      it('reads stdin once: a foreign bundle there is refused, a clean one is ingested from what the first pass read', async () => {
        const environmentPath = await environment();
        const chunks = (text: string) =>
          Readable.from([Buffer.from(text.slice(0, 40)), Buffer.from(text.slice(40))]);
        const foreign = JSON.stringify(syntheticAttempt({ attemptId: 'attempt_f', caseId: 'case_typo' }));
        const refused = await ingest({ inputs: ['-'], environmentPath, stdin: chunks(foreign) });
        expect(refused.foreign.map((entry) => entry.input)).toEqual(['(stdin)']);
        expect(ingestExitCode(refused)).toBe(1);
        const clean = JSON.stringify(syntheticAttempt({ attemptId: 'attempt_stdin' }));
        const taken = await ingest({ inputs: ['-'], environmentPath, stdin: chunks(clean) });
        expect(taken).toMatchObject({ inserted: 1, foreign: [], invalid: [] });
      });

      it('with keepForeign stores them apart, marked foreign with the reason (exit 0)', async () => {
        const environmentPath = await environment();
        await writeFile(
          join(dir, 'match.json'),
          JSON.stringify(syntheticAttempt({ attemptId: 'attempt_match', costMicros: null })),
        );
        const flagged = await writeBundle(dir, 'flagged.json', {
          attemptId: 'attempt_flag',
          configId: 'config_other',
        });
        // No storeUrl: the environment file names the store.
        const summary = await ingest({
          inputs: [join(dir, 'match.json'), flagged],
          environmentPath,
          keepForeign: true,
        });
        expect(summary.store).toBe(storeUrl);
        expect(summary.inserted).toBe(2);
        const flaggedKey = { ...key('attempt_flag'), configId: 'config_other' };
        const received = suiteOf({ configId: 'config_other' }).configSha256;
        expect(summary.foreign).toEqual([
          {
            input: flagged,
            key: flaggedKey,
            issues: [
              expect.objectContaining({ code: 'config_digest_differs', expected: otherDigest, received }),
            ],
          },
        ]);
        expect(summary.coverage.text).toBe('2 of 2 attempts priced (1 provider-reported, 1 estimated)');
        expect(ingestExitCode(summary)).toBe(0);

        const store = await openStore(storeUrl);
        const stored = await store.getAttempt(flaggedKey);
        const clean = await store.getAttempt(key('attempt_match'));
        expect(await store.runs()).toEqual([
          expect.objectContaining({ runId: 'run_synthetic', attempts: 2, foreign: 1, retracted: 0 }),
        ]);
        await store.close();
        expect(stored?.record.environmentMismatch).toEqual([
          { field: 'configSha256', expected: otherDigest, received },
        ]);
        expect(clean?.record.environmentMismatch).toEqual([]);
        expect(clean?.record.cost).toMatchObject({ coverage: 'estimated', pricingVersion: 'v1' });
        expect(
          await sql('SELECT attempt_id FROM attempts WHERE environment_mismatch ORDER BY attempt_id'),
        ).toEqual([{ attempt_id: 'attempt_flag' }]);
      });
    });
  });

  describe('campaign records', () => {
    const PLAN = `sha256:${'b'.repeat(64)}`;
    const campaign = (id: string, changes: Record<string, unknown> = {}): Record<string, unknown> => ({
      schema: 'evals-campaign/v1',
      campaignId: id,
      suiteFingerprint: `sha256:${'a'.repeat(64)}`,
      planDigest: PLAN,
      complete: true,
      totals: { planned: 2, passed: 1 },
      note: 'ünïcode \u0000 and \uE000 kept',
      ...changes,
    });
    /** A budget-stopped record, then its resumed complete one (later by its own time). */
    const stopped = (id: string): Record<string, unknown> =>
      campaign(id, {
        complete: false,
        partial: ['budget_stop'],
        timing: { startedAt: '2026-12-01T10:00:00.000Z', finishedAt: '2026-12-01T10:01:00.000Z' },
      });
    const resumed = (id: string): Record<string, unknown> =>
      campaign(id, {
        complete: true,
        partial: [],
        timing: { startedAt: '2026-12-01T11:00:00.000Z', finishedAt: '2026-12-01T11:01:00.000Z' },
      });

    it('records a campaign once: the same content again is a duplicate, read back exactly in order', async () => {
      const store = await openStore(storeUrl);
      expect(await store.recordCampaign({ campaignId: 'nightly-1', record: campaign('nightly-1') })).toBe(
        'recorded',
      );
      expect(await store.recordCampaign({ campaignId: 'nightly-2', record: campaign('nightly-2') })).toBe(
        'recorded',
      );
      // Key order does not matter: the canonical JSON is what is compared.
      const reordered = Object.fromEntries(Object.entries(campaign('nightly-1')).reverse());
      expect(await store.recordCampaign({ campaignId: 'nightly-1', record: reordered })).toBe('duplicate');
      const held = await store.campaigns();
      expect(held.map((entry) => entry.campaignId)).toEqual(['nightly-1', 'nightly-2']);
      expect(held[0]?.record).toEqual(campaign('nightly-1'));
      expect(held[0]?.recordDigest).toBe(canonicalDigest(campaign('nightly-1')));
      expect(held[0]?.sequence).toBeLessThan(held[1]?.sequence ?? 0);
      await store.close();
    });

    it('keeps a newer record of the same campaign and plan beside the earlier one: both read back, the newest current', async () => {
      const store = await openStore(storeUrl);
      expect(await store.recordCampaign({ campaignId: 'nightly-1', record: stopped('nightly-1') })).toBe(
        'recorded',
      );
      expect(await store.recordCampaign({ campaignId: 'nightly-1', record: resumed('nightly-1') })).toBe(
        'revised',
      );
      // Either record again is a duplicate: nothing is written twice.
      expect(await store.recordCampaign({ campaignId: 'nightly-1', record: stopped('nightly-1') })).toBe(
        'duplicate',
      );
      const held = await store.campaigns();
      await store.close();
      expect(held.map((entry) => entry.record)).toEqual([stopped('nightly-1'), resumed('nightly-1')]);
      expect(currentCampaigns(held)).toEqual([
        expect.objectContaining({ campaignId: 'nightly-1', record: resumed('nightly-1'), records: 2 }),
      ]);
      expect(await sql('SELECT COUNT(*) AS n FROM campaigns')).toEqual([
        { n: kind.name === 'sqlite' ? 2 : '2' },
      ]);
    });

    it('refuses another plan under the same campaign id, a record named otherwise or without its plan (coded), and writes nothing, byte for byte', async () => {
      let store = await openStore(storeUrl);
      await store.recordCampaign({ campaignId: 'nightly-1', record: campaign('nightly-1') });
      await store.close();
      const snapshot = await kind.snapshot(storeUrl);
      store = await openStore(storeUrl);
      const otherPlan = `sha256:${'c'.repeat(64)}`;
      await expect(
        store.recordCampaign({
          campaignId: 'nightly-1',
          record: campaign('nightly-1', { planDigest: otherPlan, complete: false }),
        }),
      ).rejects.toMatchObject({
        code: 'paperclip_evalbook_campaign_conflict',
        issues: [
          expect.objectContaining({
            code: 'campaign_id_reused',
            expected: expect.stringContaining(PLAN) as unknown,
            received: `plan digest ${otherPlan}`,
          }),
        ],
      });
      await expect(
        store.recordCampaign({ campaignId: 'nightly-9', record: campaign('nightly-1') }),
      ).rejects.toThrowCode('paperclip_evalbook_campaign_conflict');
      const { planDigest: _plan, ...planless } = campaign('nightly-2');
      await expect(store.recordCampaign({ campaignId: 'nightly-2', record: planless })).rejects.toMatchObject(
        {
          code: 'paperclip_evalbook_campaign_conflict',
          issues: [expect.objectContaining({ code: 'campaign_plan_digest_missing', path: '/planDigest' })],
        },
      );
      expect((await store.campaigns()).map((entry) => entry.record)).toEqual([campaign('nightly-1')]);
      await store.close();
      expect(await kind.snapshot(storeUrl)).toEqual(snapshot);
    });

    it('copyIn appends campaign records by the same rule: beside the earlier ones, duplicates skipped, another plan refusing the whole copy', async () => {
      const store = await openStore(storeUrl);
      try {
        await store.recordCampaign({ campaignId: 'nightly-1', record: stopped('nightly-1') });
        const empty = { records: [], policyVerdicts: [], retractions: [] };
        const copy = {
          ...empty,
          campaigns: [stopped('nightly-1'), resumed('nightly-1')].map((record) => ({
            campaignId: 'nightly-1',
            record,
          })),
        };
        expect((await store.copyIn(copy)).campaigns.map((entry) => entry.status)).toEqual([
          'duplicate',
          'inserted',
        ]);
        // The same copy again: idempotent.
        expect((await store.copyIn(copy)).campaigns.map((entry) => entry.status)).toEqual([
          'duplicate',
          'duplicate',
        ]);
        const before = await store.campaigns();
        await expect(
          store.copyIn({
            ...empty,
            records: [record('attempt_copied')],
            campaigns: [
              { campaignId: 'nightly-2', record: campaign('nightly-2') },
              {
                campaignId: 'nightly-1',
                record: campaign('nightly-1', { planDigest: `sha256:${'d'.repeat(64)}` }),
              },
            ],
          }),
        ).rejects.toMatchObject({
          code: 'paperclip_evalbook_merge_conflict',
          issues: [expect.objectContaining({ code: 'campaign_conflict', path: '/campaigns/nightly-1' })],
        });
        expect(await store.campaigns()).toEqual(before);
        expect(await store.getAttempt(record('attempt_copied').key)).toBeNull();
      } finally {
        await store.close();
      }
    });

    it("the migration that keeps every record keeps an older store's campaign records, their order and ids, and then takes a resumed record beside them", async () => {
      const migration = kind.migrations.find(
        (entry) => entry.name === 'campaign records superseded, never replaced',
      );
      expect(migration).toBeDefined();
      await kind.migrateTo(storeUrl, (migration?.version ?? 0) - 1);
      // Written as an older Evals wrote them (plain text: no character the stores escape).
      const older = (id: string): Record<string, unknown> => ({ ...stopped(id), note: 'plain' });
      const quote = (text: string): string => `'${text.replaceAll("'", "''")}'`;
      for (const id of ['nightly-0', 'nightly-1'])
        await sql(
          `INSERT INTO campaigns (campaign_id, record_digest, record_json) VALUES (${quote(id)}, ${quote(canonicalDigest(older(id)))}, ${quote(canonicalize(older(id)))})`,
        );
      // The old unique index: a second record of a campaign id was refused there.
      await expect(
        sql(
          `INSERT INTO campaigns (campaign_id, record_digest, record_json) VALUES ('nightly-1', 'sha256:other', '{}')`,
        ),
      ).rejects.toThrow(kind.uniqueViolation);
      const store = await openStore(storeUrl);
      try {
        expect(await store.migrations()).toEqual(versions);
        const before = await store.campaigns();
        expect(before.map((entry) => [entry.campaignId, entry.record])).toEqual([
          ['nightly-0', older('nightly-0')],
          ['nightly-1', older('nightly-1')],
        ]);
        expect(await store.recordCampaign({ campaignId: 'nightly-1', record: resumed('nightly-1') })).toBe(
          'revised',
        );
        const after = await store.campaigns();
        expect(after.slice(0, 2)).toEqual(before);
        expect(currentCampaigns(after).map((entry) => entry.record)).toEqual([
          older('nightly-0'),
          resumed('nightly-1'),
        ]);
      } finally {
        await store.close();
      }
      await expect(sql('DELETE FROM campaigns')).rejects.toThrow(/append-only/);
    });

    it('takes a 100,000-character campaign id with U+0000 in it, and reads it back exactly', async () => {
      const id = `c\u0000${'x'.repeat(100_000)}`;
      const store = await openStore(storeUrl);
      expect(await store.recordCampaign({ campaignId: id, record: campaign(id) })).toBe('recorded');
      expect(await store.recordCampaign({ campaignId: id, record: campaign(id) })).toBe('duplicate');
      expect(await store.recordCampaign({ campaignId: id, record: resumed(id) })).toBe('revised');
      expect((await store.campaigns()).map((entry) => entry.campaignId)).toEqual([id, id]);
      await store.close();
    });

    it('is append-only: UPDATE and DELETE of campaign records are refused by the database itself', async () => {
      const store = await openStore(storeUrl);
      await store.recordCampaign({ campaignId: 'nightly-1', record: campaign('nightly-1') });
      await store.close();
      await expect(sql('DELETE FROM campaigns')).rejects.toThrow(/append-only/);
      await expect(sql("UPDATE campaigns SET record_json = '{}'")).rejects.toThrow(/append-only/);
    });
  });

  describe('retractions', () => {
    const request = (changes: Partial<RetractionRequest> = {}): RetractionRequest =>
      checkRetractionRequest({
        runId: 'run_synthetic',
        attemptIds: [],
        reason: 'the harness lost its network',
        by: 'ci-bot',
        at: '2026-12-01T09:30:00.000Z',
        ...changes,
      });
    /** Three attempts of run_synthetic, then (a later batch) one of run_other; the store is left open. */
    const seed = async (): Promise<LedgerStore> => {
      const store = await openStore(storeUrl);
      const other = convertBundle(
        parseNativeExecution(
          JSON.stringify(syntheticAttempt({ runId: 'run_other', attemptId: 'attempt_a' })),
        ),
      );
      await store.insertBatch([record('attempt_a'), record('attempt_b'), record('attempt_c')]);
      await store.insertBatch([other]);
      return store;
    };
    /** The store's contents with no connection open (SQLite's WAL checkpointed into the file). */
    const closedSnapshot = async (store: LedgerStore): Promise<unknown> => {
      await store.close();
      return kind.snapshot(storeUrl);
    };

    it('appends who, why and when; the same target again writes nothing and shows the record in force', async () => {
      let store = await seed();
      const [one] = await store.retract(request({ attemptIds: ['attempt_a'] }));
      const attemptRecord = {
        runId: 'run_synthetic',
        attemptId: 'attempt_a',
        reason: 'the harness lost its network',
        by: 'ci-bot',
        at: '2026-12-01T09:30:00.000Z',
      };
      expect(one).toEqual({ status: 'retracted', retraction: attemptRecord, attempts: [key('attempt_a')] });
      const snapshot = await closedSnapshot(store);
      store = await openStore(storeUrl);
      const again = await store.retract(
        request({ attemptIds: ['attempt_a'], reason: 'again', by: 'someone else' }),
      );
      expect(again).toEqual([
        { status: 'already_retracted', retraction: attemptRecord, attempts: [key('attempt_a')] },
      ]);
      expect(await closedSnapshot(store)).toEqual(snapshot);
      store = await openStore(storeUrl);

      const run = await store.retract(
        request({ reason: 'superseded by a rerun', at: '2026-12-01T10:00:00.000Z' }),
      );
      const runRecord = {
        ...attemptRecord,
        attemptId: null,
        reason: 'superseded by a rerun',
        at: '2026-12-01T10:00:00.000Z',
      };
      expect(run).toEqual([
        {
          status: 'retracted',
          retraction: runRecord,
          attempts: ['attempt_a', 'attempt_b', 'attempt_c'].map(key),
        },
      ]);
      // Covered by the run's retraction: nothing to append.
      expect(await store.retract(request({ attemptIds: ['attempt_b'] }))).toEqual([
        { status: 'already_retracted', retraction: runRecord, attempts: [key('attempt_b')] },
      ]);
      expect(await store.retractions()).toEqual([attemptRecord, runRecord]);
      expect(await store.runs()).toEqual([
        {
          runId: 'run_synthetic',
          attempts: 3,
          cases: 1,
          configs: 1,
          terminalStates: { succeeded: 3 },
          foreign: 0,
          retracted: 3,
          spend: {
            observedNanodollars: 3 * (record('attempt_x').cost.effectiveNanodollars ?? 0),
            unpriced: 0,
            unsettledTries: 0,
          },
          retractions: [attemptRecord, runRecord],
        },
        {
          runId: 'run_other',
          attempts: 1,
          cases: 1,
          configs: 1,
          terminalStates: { succeeded: 1 },
          foreign: 0,
          retracted: 0,
          spend: {
            observedNanodollars: record('attempt_x').cost.effectiveNanodollars ?? 0,
            unpriced: 0,
            unsettledTries: 0,
          },
          retractions: [],
        },
      ]);
      await store.close();
    });

    it('refuses a run or an attempt the store does not hold, every missing one named, and writes nothing', async () => {
      const snapshot = await closedSnapshot(await seed());
      const store = await openStore(storeUrl);
      await expect(store.retract(request({ runId: 'run_missing' }))).rejects.toThrow(
        evalbookError('paperclip_evalbook_retraction_refused'),
      );
      await expect(store.retract(request({ runId: 'run_missing' }))).rejects.toThrow(
        /no run named "run_missing"/,
      );
      // One missing id spoils the whole request: attempt_a is not retracted either.
      await expect(
        store.retract(request({ attemptIds: ['attempt_a', 'attempt_x', 'attempt_y'] })),
      ).rejects.toThrow(/no attempt "attempt_x", "attempt_y": nothing retracted/);
      expect(await store.retractions()).toEqual([]);
      await store.close();
      expect(await kind.snapshot(storeUrl)).toEqual(snapshot);
    });

    it('never stores or reads back a credential: a reason is stored scrubbed, an older raw row is read scrubbed', async () => {
      const token = `ghp_${'a'.repeat(36)}`;
      const store = await seed();
      const [outcome] = await store.retract(
        request({ attemptIds: ['attempt_a'], reason: `token ${token} leaked`, by: 'ci-bot' }),
      );
      expect(outcome?.retraction.reason).toBe('token *** leaked');
      await store.close();
      expect(await sql("SELECT reason FROM retractions WHERE attempt_id = 'attempt_a'")).toEqual([
        { reason: 'token *** leaked' },
      ]);
      // What a ledger written before the scrub holds: read scrubbed by every reader (runs, reports, publish).
      await sql(
        `INSERT INTO retractions (run_id, attempt_id, reason, retracted_by, retracted_at) VALUES ('run_other', NULL, 'key sk-proj-${'b'.repeat(24)} and ${token}', 'ci-bot', '2026-12-01T09:30:00.000Z')`,
      );
      const reopened = await openStore(storeUrl);
      const reasons = (await reopened.retractions()).map((retraction) => retraction.reason);
      expect(reasons).toEqual(['token *** leaked', 'key *** and ***']);
      const listed = (await reopened.runs()).flatMap((run) =>
        run.retractions.map((retraction) => retraction.reason),
      );
      expect(listed.sort()).toEqual(['key *** and ***', 'token *** leaked']);
      await reopened.close();
    });

    it('is append-only: UPDATE and DELETE of retractions are refused by the database itself', async () => {
      const store = await seed();
      await store.retract(request());
      await store.close();
      await expect(sql('DELETE FROM retractions')).rejects.toThrow(/append-only/);
      await expect(sql("UPDATE retractions SET reason = 'nothing happened'")).rejects.toThrow(/append-only/);
      await expect(
        sql(
          "INSERT INTO retractions (run_id, attempt_id, reason, retracted_by, retracted_at) VALUES ('run_synthetic', NULL, 'twice', 'x', '2026-12-01T09:30:00.000Z')",
        ),
      ).rejects.toThrow(kind.uniqueViolation);
    });

    it('migration 6 adds them to an older store: its attempts stay as they were, and can be retracted', async () => {
      await kind.migrateTo(storeUrl, 5);
      const old = record('attempt_old');
      const quote = (text: string): string => `'${text.replaceAll("'", "''")}'`;
      await sql(
        `INSERT INTO bundles (digest, canonical_json) VALUES (${quote(old.bundleDigest)}, ${quote(old.rawCanonical)})`,
      );
      await sql(
        `INSERT INTO attempts (run_id, case_id, config_id, attempt_id, bundle_digest, file_sha256, provenance,
           run_terminal_state, failure_classification, transcript_complete, denials, cost_coverage,
           provider_cost_nanodollars, estimated_cost_nanodollars, pricing_version, environment_mismatch, record_json)
         VALUES ('run_synthetic', 'case_synthetic', 'config_synthetic', 'attempt_old', ${quote(old.bundleDigest)}, NULL,
           'synthetic', 'succeeded', NULL, TRUE, 0, 'provider_reported', 5000000, NULL, NULL, FALSE, ${quote(storedRecordJson(old))})`,
      );
      expect(await sql('SELECT version FROM schema_migrations WHERE version = 6')).toEqual([]);
      const store = await openStore(storeUrl);
      expect(await store.migrations()).toEqual(versions);
      const before = await store.getAttempt(key('attempt_old'));
      expect(await store.retractions()).toEqual([]);
      expect(await store.retract(request({ attemptIds: ['attempt_old'] }))).toEqual([
        expect.objectContaining({ status: 'retracted', attempts: [key('attempt_old')] }),
      ]);
      expect(await store.getAttempt(key('attempt_old'))).toEqual(before);
      expect(await store.runs()).toEqual([
        expect.objectContaining({ runId: 'run_synthetic', attempts: 1, retracted: 1 }),
      ]);
      await store.close();
      expect(await kind.storageProblems(storeUrl)).toEqual([]);
    });
  });

  describe('copyIn (evals merge --from-store): attempts, policy verdicts and retractions in one transaction', () => {
    const retraction = (attemptId: string | null, reason = 'the harness lost its network'): Retraction => ({
      runId: 'run_synthetic',
      attemptId,
      reason,
      by: 'ci-bot',
      at: '2026-12-01T09:30:00.000Z',
    });
    const contents = async (store: LedgerStore) => {
      const verdicts: unknown[] = [];
      for await (const stored of store.policyVerdicts()) verdicts.push(stored);
      return { attempts: await store.countAttempts(), verdicts, retractions: await store.retractions() };
    };

    it('copies each kind by its own rule (who, why and when kept); the same again is a duplicate', async () => {
      const store = await openStore(storeUrl);
      try {
        const batch = {
          records: [record('attempt_a'), record('attempt_b')],
          policyVerdicts: [verdict('attempt_a')],
          retractions: [retraction('attempt_b')],
        };
        const first = await store.copyIn(batch);
        expect(first.attempts.map((outcome) => outcome.status)).toEqual(['inserted', 'inserted']);
        expect(first.policyVerdicts.map((outcome) => outcome.status)).toEqual(['inserted']);
        expect(first.retractions.map((outcome) => outcome.status)).toEqual(['inserted']);
        expect(await contents(store)).toEqual({
          attempts: 2,
          verdicts: [readBack(verdict('attempt_a'))],
          retractions: [retraction('attempt_b')],
        });
        const again = await store.copyIn(batch);
        expect(
          [...again.attempts, ...again.policyVerdicts, ...again.retractions].map((outcome) => outcome.status),
        ).toEqual(['duplicate', 'duplicate', 'duplicate', 'duplicate']);
      } finally {
        await store.close();
      }
    });

    it.each([
      [
        'a retraction held with another reason',
        'retraction_conflict',
        { retractions: [retraction('attempt_b', 'another reason')] },
      ],
      [
        'a policy verdict held otherwise',
        'policy_verdict_conflict',
        { policyVerdicts: [verdict('attempt_a', 'call_0', { decision: 'allow', verdict: 'allow' })] },
      ],
      [
        'a retraction of an attempt in neither',
        'retraction_target_missing',
        { retractions: [retraction('attempt_zzz')] },
      ],
      [
        'a verdict of an attempt in neither',
        'policy_verdict_refused',
        { policyVerdicts: [verdict('attempt_zzz')] },
      ],
      ['an attempt held with another digest', 'attempt_conflict', { records: [record('attempt_a', 99)] }],
    ] as const)('refuses %s: nothing of the batch is written (%s)', async (_what, code, given) => {
      const conflicting: Partial<CopyInBatch> = given;
      let store = await openStore(storeUrl);
      await store.copyIn({
        records: [record('attempt_a'), record('attempt_b')],
        policyVerdicts: [verdict('attempt_a')],
        retractions: [retraction('attempt_b')],
      });
      await store.close();
      const before = await kind.snapshot(storeUrl);
      store = await openStore(storeUrl);
      try {
        await expect(
          store.copyIn({
            // New rows beside the conflicting one: none of them may land.
            records: [record('attempt_c'), ...(conflicting.records ?? [])],
            policyVerdicts: [verdict('attempt_c'), ...(conflicting.policyVerdicts ?? [])],
            retractions: [retraction('attempt_c'), ...(conflicting.retractions ?? [])],
          }),
        ).rejects.toMatchObject({
          code: 'paperclip_evalbook_merge_conflict',
          issues: [expect.objectContaining({ code })],
        });
      } finally {
        await store.close();
      }
      expect(await kind.snapshot(storeUrl)).toEqual(before);
    });
  });

  describe("a run's spend, summed in SQL (what a campaign's ceiling counts)", () => {
    it('sums provider-reported else estimated per attempt, and counts the unpriced apart, per run', async () => {
      const store = await openStore(storeUrl);
      try {
        const priced = [record('attempt_a', 1000), record('attempt_b', 250)];
        const unpriced = record('attempt_c', null);
        const other = { ...record('attempt_d', 7), key: { ...key('attempt_d'), runId: 'run_other' } };
        await store.insertBatch([...priced, unpriced, other]);
        const expected = (records: readonly LedgerRecord[]) =>
          records.reduce(
            (sum, entry) =>
              sum + (entry.cost.providerReportedNanodollars ?? entry.cost.estimatedNanodollars ?? 0),
            0,
          );
        expect(expected(priced)).toBeGreaterThan(0);
        expect(unpriced.cost.effectiveNanodollars).toBeNull();
        const runs = await store.runs();
        expect(runs.find((run) => run.runId === 'run_synthetic')?.spend).toEqual({
          observedNanodollars: expected(priced),
          unpriced: 1,
          unsettledTries: 0,
        });
        expect(runs.find((run) => run.runId === 'run_other')?.spend).toEqual({
          observedNanodollars: expected([other]),
          unpriced: 0,
          unsettledTries: 0,
        });
      } finally {
        await store.close();
      }
    });
  });

  describe('campaign try starts (write-ahead: a try whose spend is unknown is never forgotten)', () => {
    const start = (tryId: string, tryNumber = 1, changes: Partial<TryStart> = {}): TryStart => ({
      campaignId: 'run_synthetic',
      caseId: 'case_synthetic',
      configId: 'config_synthetic',
      attemptId: 'attempt_a',
      tryNumber,
      tryId,
      startedAt: '2026-12-03T10:00:00.000Z',
      runner: { packageName: 'p', packageVersion: '1.0.0', runnerdSha256: 'sha256:r', host: 'h', pid: 7 },
      ...changes,
    });

    it('a start is unsettled until the ledger holds its attempt; spend counts it unpriced until then', async () => {
      const store = await openStore(storeUrl);
      try {
        expect(await store.recordTryStart(start('attempt_a'))).toBe(true);
        // The same try started again (another run): nothing written, the caller takes the next number.
        expect(await store.recordTryStart(start('attempt_a'))).toBe(false);
        expect(await store.recordTryStart(start('attempt_a-r1', 2))).toBe(true);
        // Another campaign's start is not this one's.
        expect(await store.recordTryStart(start('attempt_a', 1, { campaignId: 'run_other' }))).toBe(true);
        expect(
          (await store.campaignTries('run_synthetic')).map((entry) => [entry.tryId, entry.settled]),
        ).toEqual([
          ['attempt_a', false],
          ['attempt_a-r1', false],
        ]);
        // A priced attempt of the run, and the start of try 1 settled by its attempt.
        await store.insertBatch([record('attempt_b', 1000), record('attempt_a', 250)]);
        const tries = await store.campaignTries('run_synthetic');
        expect(tries).toEqual([
          { ...start('attempt_a'), settled: true, interruption: null },
          { ...start('attempt_a-r1', 2), settled: false, interruption: null },
        ]);
        const run = (await store.runs()).find((entry) => entry.runId === 'run_synthetic');
        expect(run?.spend).toEqual({
          observedNanodollars:
            (record('attempt_b', 1000).cost.effectiveNanodollars ?? 0) +
            (record('attempt_a', 250).cost.effectiveNanodollars ?? 0),
          unpriced: 1,
          unsettledTries: 1,
        });
        await store.insertBatch([record('attempt_a-r1', 5)]);
        expect((await store.runs()).find((entry) => entry.runId === 'run_synthetic')?.spend).toMatchObject({
          unpriced: 0,
          unsettledTries: 0,
        });
      } finally {
        await store.close();
      }
    });

    it('retriedTries: every settled try but the last of its planned attempt; an unsettled later try replaces nothing', async () => {
      const store = await openStore(storeUrl);
      try {
        // attempt_a: tries 1, 2 and 3 settled → 1 and 2 replaced. attempt_c: try 2 started, never
        // settled (a session that died) → try 1 still counts. attempt_b: one try. run_other's try 1
        // has the same ids as run_synthetic's but its own planned attempt (no later try).
        for (const [tryId, n, attemptId] of [
          ['attempt_a', 1, 'attempt_a'],
          ['attempt_a-r1', 2, 'attempt_a'],
          ['attempt_a-r2', 3, 'attempt_a'],
          ['attempt_c', 1, 'attempt_c'],
          ['attempt_c-r1', 2, 'attempt_c'],
          ['attempt_b', 1, 'attempt_b'],
        ] as const)
          await store.recordTryStart(start(tryId, n, { attemptId }));
        await store.recordTryStart(start('attempt_a', 1, { campaignId: 'run_other' }));
        expect(await store.retriedTries()).toEqual([]);
        await store.insertBatch(
          ['attempt_a', 'attempt_a-r1', 'attempt_c', 'attempt_b'].map((id) => record(id, 1)),
        );
        // Try 2 of attempt_a is the last settled one for now: try 1 alone is replaced.
        const keys = async () =>
          (await store.retriedTries())
            .map((key) => [key.runId, key.caseId, key.configId, key.attemptId])
            .sort();
        expect(await keys()).toEqual([['run_synthetic', 'case_synthetic', 'config_synthetic', 'attempt_a']]);
        await store.insertBatch([record('attempt_a-r2', 1)]);
        expect(await keys()).toEqual([
          ['run_synthetic', 'case_synthetic', 'config_synthetic', 'attempt_a'],
          ['run_synthetic', 'case_synthetic', 'config_synthetic', 'attempt_a-r1'],
        ]);
      } finally {
        await store.close();
      }
    });

    it("keeps the campaign's word that it killed a try, and the try's spend stays unknown", async () => {
      const store = await openStore(storeUrl);
      try {
        await store.insertBatch([record('attempt_b', 1000)]);
        await store.recordTryStart(start('attempt_a'));
        const interruption = {
          campaignId: 'run_synthetic',
          caseId: 'case_synthetic',
          configId: 'config_synthetic',
          attemptId: 'attempt_a',
          tryNumber: 1,
          tryId: 'attempt_a',
          at: '2026-12-03T10:00:05.000Z',
          reason: 'killed: the campaign was interrupted',
        };
        await store.recordTryInterruption(interruption);
        await store.recordTryInterruption({ ...interruption, at: 'later' });
        expect(await store.campaignTries('run_synthetic')).toEqual([
          {
            ...start('attempt_a'),
            settled: false,
            interruption: { at: interruption.at, reason: interruption.reason },
          },
        ]);
        expect((await store.runs())[0]?.spend).toMatchObject({ unpriced: 1, unsettledTries: 1 });
      } finally {
        await store.close();
      }
      await expect(sql('DELETE FROM campaign_tries')).rejects.toThrow(/append-only/);
      await expect(sql("UPDATE campaign_tries SET event = 'started'")).rejects.toThrow(/append-only/);
    });

    it('lists a campaign whose only tries are unsettled starts (0 attempts, its starts unpriced), after the runs with attempts', async () => {
      const store = await openStore(storeUrl);
      try {
        await store.insertBatch([record('attempt_b', 1000)]);
        await store.recordTryStart(start('attempt_x', 1, { campaignId: 'run_starts_only' }));
        await store.recordTryStart(start('attempt_y', 1, { campaignId: 'run_starts_only' }));
        const runs = await store.runs();
        expect(runs.map((run) => run.runId)).toEqual(['run_synthetic', 'run_starts_only']);
        expect(runs[1]).toEqual({
          runId: 'run_starts_only',
          attempts: 0,
          cases: 0,
          configs: 0,
          terminalStates: {},
          foreign: 0,
          retracted: 0,
          spend: { observedNanodollars: 0, unpriced: 2, unsettledTries: 2 },
          retractions: [],
        });
      } finally {
        await store.close();
      }
    });

    it('copyIn copies starts and interruptions under their key: the same again writes nothing, another content refuses the whole copy', async () => {
      const store = await openStore(storeUrl);
      const interrupted = {
        ...start('attempt_a-r1', 2),
        settled: false,
        interruption: { at: '2026-12-03T10:00:05.000Z', reason: 'killed: the campaign was interrupted' },
      };
      const tries = [{ ...start('attempt_a'), settled: false, interruption: null }, interrupted];
      try {
        const first = await store.copyIn({ records: [], policyVerdicts: [], retractions: [], tries });
        expect(first.tries.map((entry) => [entry.row.tryId, entry.row.event, entry.status])).toEqual([
          ['attempt_a', 'started', 'inserted'],
          ['attempt_a-r1', 'started', 'inserted'],
          ['attempt_a-r1', 'interrupted', 'inserted'],
        ]);
        expect(await store.campaignTries('run_synthetic')).toEqual(tries);
        // The same twice in one batch (two shard stores), and again: nothing new.
        const again = await store.copyIn({
          records: [],
          policyVerdicts: [],
          retractions: [],
          tries: [...tries, ...tries],
        });
        expect(again.tries.every((entry) => entry.status === 'duplicate')).toBe(true);
        expect((await store.runs()).find((run) => run.runId === 'run_synthetic')?.spend).toMatchObject({
          unpriced: 2,
          unsettledTries: 2,
        });
      } finally {
        await store.close();
      }
      const before = await kind.snapshot(storeUrl);
      const other = await openStore(storeUrl);
      try {
        for (const changed of [
          { ...tries[0], startedAt: '2026-12-03T11:00:00.000Z' },
          { ...tries[0], attemptId: 'attempt_other' },
          { ...tries[0], runner: { ...start('attempt_a').runner, pid: 8 } },
          { ...interrupted, interruption: { ...interrupted.interruption, reason: 'another reason' } },
        ])
          await expect(
            other.copyIn({
              records: [record('attempt_c')],
              policyVerdicts: [],
              retractions: [],
              tries: [{ ...start('attempt_z'), settled: false, interruption: null }, changed as CampaignTry],
            }),
          ).rejects.toMatchObject({
            code: 'paperclip_evalbook_merge_conflict',
            issues: [expect.objectContaining({ code: 'try_conflict' })],
          });
      } finally {
        await other.close();
      }
      expect(await kind.snapshot(storeUrl)).toEqual(before);
    });

    it("a shard store's unsettled start copied in (evals merge --from-store) is the target's unknown spend: runs() counts it, the same copy again writes nothing", async () => {
      // The shard: a try settled by its attempt, a try SIGKILLed mid-session (a start, no attempt).
      const shardUrl =
        kind.name === 'sqlite' ? `sqlite:${join(dir, 'shard.sqlite')}` : await kind.freshUrl(dir);
      const shard = await openStore(shardUrl);
      let tries: CampaignTry[];
      try {
        await shard.insertBatch([record('attempt_a', 1000)]);
        await shard.recordTryStart(start('attempt_a'));
        await shard.recordTryStart(start('attempt_killed', 1, { attemptId: 'attempt_killed' }));
        tries = await shard.campaignTries('run_synthetic');
      } finally {
        await shard.close();
      }
      const target = await openStore(storeUrl);
      try {
        const copy = { records: [record('attempt_a', 1000)], policyVerdicts: [], retractions: [], tries };
        await target.copyIn(copy);
        expect(await target.campaignTries('run_synthetic')).toEqual(tries);
        const spend = { observedNanodollars: 1_000_000, unpriced: 1, unsettledTries: 1 };
        expect((await target.runs()).map((run) => [run.runId, run.attempts, run.spend])).toEqual([
          ['run_synthetic', 1, spend],
        ]);
        const before = await kind.snapshot(storeUrl);
        const again = await target.copyIn(copy);
        expect(again.tries.map((entry) => entry.status)).toEqual(['duplicate', 'duplicate']);
        expect(await kind.snapshot(storeUrl)).toEqual(before);
      } finally {
        await target.close();
      }
    });

    it('takes ids of any length and content (U+0000 included) and reads them back exactly', async () => {
      const id = `t\u0000${'x'.repeat(100_000)}`;
      const store = await openStore(storeUrl);
      try {
        const long = start(id, 1, { campaignId: id, caseId: id, configId: id, attemptId: id });
        expect(await store.recordTryStart(long)).toBe(true);
        expect(await store.recordTryStart(long)).toBe(false);
        expect(await store.campaignTries(id)).toEqual([{ ...long, settled: false, interruption: null }]);
      } finally {
        await store.close();
      }
    });

    it('the migration keeps an older store as it was and then takes starts', async () => {
      const migration = kind.migrations.find((entry) => entry.name === 'campaign try starts');
      expect(migration).toBeDefined();
      await kind.migrateTo(storeUrl, (migration?.version ?? 0) - 1);
      expect(
        await sql("SELECT COUNT(*) AS n FROM schema_migrations WHERE name = 'campaign try starts'"),
      ).toEqual([{ n: kind.name === 'postgres' ? '0' : 0 }]);
      const store = await openStore(storeUrl);
      try {
        expect(await store.migrations()).toEqual(versions);
        expect(await store.recordTryStart(start('attempt_a'))).toBe(true);
        expect(await store.campaignTries('run_synthetic')).toHaveLength(1);
      } finally {
        await store.close();
      }
    });
  });

  describe('the store', () => {
    it("counts a run's attempts through its index, and the ledger's without one", async () => {
      const store = await openStore(storeUrl);
      try {
        const other = { ...record('attempt_d'), key: { ...key('attempt_d'), runId: 'run_other' } };
        await store.insertBatch([record('attempt_a'), record('attempt_b'), record('attempt_c'), other]);
        expect(await store.countAttempts()).toBe(4);
        expect(await store.countAttempts('run_synthetic')).toBe(3);
        expect(await store.countAttempts('run_other')).toBe(1);
        expect(await store.countAttempts('run_missing')).toBe(0);
      } finally {
        await store.close();
      }
    });

    it('finds the digest it holds for an attempt read from a file of the same sha256 (heldDigests), and nothing else', async () => {
      const store = await openStore(storeUrl);
      const fileSha256 = (attemptId: string): string => sha256Digest(attemptId);
      const odd = { ...key('attempt_odd'), runId: 'run_\u0000\uE000' }; // the PostgreSQL text codec's characters
      const stored = [
        convertBundle(parseNativeExecution(JSON.stringify(syntheticAttempt({ attemptId: 'attempt_a' }))), {
          fileSha256: fileSha256('attempt_a'),
        }),
        {
          ...convertBundle(
            parseNativeExecution(JSON.stringify(syntheticAttempt({ attemptId: 'attempt_odd' }))),
            {
              fileSha256: fileSha256('odd'),
            },
          ),
          key: odd,
        },
        record('attempt_no_file'), // no file digest (not read from a file)
      ];
      await store.insertBatch(stored);
      expect(await store.heldDigests([])).toEqual([]);
      expect(
        await store.heldDigests([
          { key: key('attempt_missing'), fileSha256: fileSha256('attempt_a') },
          { key: key('attempt_a'), fileSha256: fileSha256('attempt_b') },
          { key: odd, fileSha256: fileSha256('odd') },
          { key: key('attempt_a'), fileSha256: fileSha256('attempt_a') },
          { key: key('attempt_no_file'), fileSha256: '' },
        ]),
      ).toEqual([null, null, stored[1]?.bundleDigest, stored[0]?.bundleDigest, null]);
      await store.close();
    });

    it('writes a batch atomically: a failure mid-batch leaves nothing', async () => {
      const store = await openStore(storeUrl);
      const broken = record('attempt_broken');
      const badRecord = { ...broken, scores: [...broken.scores, ...broken.scores] }; // (attempt, check) primary key violated
      await expect(store.insertBatch([record('attempt_a'), record('attempt_b'), badRecord])).rejects.toThrow(
        kind.uniqueViolation,
      );
      expect(await store.countAttempts()).toBe(0);
      expect(await store.getBundle(record('attempt_a').bundleDigest)).toBeNull();
      expect(await store.getAttempt(key('attempt_a'))).toBeNull();
      const outcomes = await store.insertBatch([
        record('attempt_b'),
        record('attempt_a'),
        record('attempt_a'),
        record('attempt_b', 7),
      ]);
      expect(outcomes.map((outcome) => [outcome.status, outcome.key.attemptId])).toEqual([
        ['inserted', 'attempt_b'],
        ['inserted', 'attempt_a'],
        ['duplicate', 'attempt_a'],
        ['conflict', 'attempt_b'],
      ]);
      expect(outcomes[3]).toMatchObject({
        bundleDigest: record('attempt_b', 7).bundleDigest,
        existingDigest: record('attempt_b').bundleDigest,
      });
      expect(await store.countAttempts()).toBe(2);
      await store.close();
      expect(await sql(ORPHANS)).toEqual([]);
      expect(await kind.storageProblems(storeUrl)).toEqual([]);
    });

    it('classifies a key that comes twice in one batch: the first takes it, the next is a duplicate or a conflict', async () => {
      const first = record('attempt_twice', 1000);
      const changed = record('attempt_twice', 2000);
      const store = await openStore(storeUrl);
      const outcomes = await store.insertBatch([
        record('attempt_z'),
        first,
        first,
        changed,
        record('attempt_a'),
      ]);
      const again = await store.insertBatch([changed, first]);
      const stored = await store.getAttempt(first.key);
      const all: string[] = [];
      for await (const attempt of store.attempts()) all.push(attempt.key.attemptId);
      await store.close();
      expect(outcomes.map((outcome) => outcome.status)).toEqual([
        'inserted',
        'inserted',
        'duplicate',
        'conflict',
        'inserted',
      ]);
      expect(outcomes[3]).toMatchObject({
        existingDigest: first.bundleDigest,
        bundleDigest: changed.bundleDigest,
      });
      expect(again.map((outcome) => outcome.status)).toEqual(['conflict', 'duplicate']);
      expect(stored?.bundleDigest).toBe(first.bundleDigest);
      expect(stored?.scores).toEqual(first.scores);
      expect(all.sort()).toEqual(['attempt_a', 'attempt_twice', 'attempt_z']);
      expect(await sql(ORPHANS)).toEqual([]);
    });

    it('reads back exactly the record it was given, and the bundle by its digest', async () => {
      const given = convertBundle(
        parseNativeExecution(
          JSON.stringify(syntheticAttempt({ attemptId: 'attempt_rich', toolCalls: 3, deniedCalls: 2 })),
        ),
        { fileSha256: sha256Digest('the file') },
      );
      const store = await openStore(storeUrl);
      await store.insertBatch([given]);
      const stored = await store.getAttempt(given.key);
      const bundle = await store.getBundle(given.bundleDigest);
      await store.close();
      const { rawCanonical, scores, ...rest } = given;
      expect(stored).toEqual({ key: given.key, bundleDigest: given.bundleDigest, record: rest, scores });
      expect(stored?.record.denials).toBe(2);
      expect(bundle).toBe(rawCanonical);
    });

    it('finds attempts by attempt id alone through an index (every run, in insertion order; one run when named)', async () => {
      const at = (runId: string, attemptId: string, caseId = 'case_synthetic'): LedgerRecord => {
        // The identity's attempt id only (the events keep a plain one), as the hostile corpus does.
        const bundle = syntheticAttempt({ runId, attemptId: 'attempt_plain', caseId });
        bundle.identity = { ...(bundle.identity as Record<string, unknown>), attemptId };
        return convertBundle(parseNativeExecution(JSON.stringify(bundle)));
      };
      // An id of any text: U+0000 in it, 100,000 characters long (every valid bundle is storable).
      const hostile = `attempt\u0000${'x'.repeat(100_000)}`;
      const given = [
        at('run_b', 'attempt_shared'),
        at('run_a', 'attempt_other'),
        at('run_a', 'attempt_shared', 'case_two'),
        at('run_a', hostile),
      ];
      const store = await openStore(storeUrl);
      // One batch each: within a batch PostgreSQL writes by identity, so the order would be its.
      for (const one of given) await store.insertBatch([one]);
      const keys = async (attemptId: string, runId?: string) =>
        (await store.attemptsById(attemptId, runId)).map((found) => found.key);
      expect(await keys('attempt_shared')).toEqual([given[0]!.key, given[2]!.key]);
      expect(await keys('attempt_shared', 'run_a')).toEqual([given[2]!.key]);
      expect(await keys('attempt_shared', 'run_none')).toEqual([]);
      expect(await keys('attempt_none')).toEqual([]);
      expect(await keys('attempt_SHARED')).toEqual([]);
      expect(await keys(hostile)).toEqual([given[3]!.key]);
      expect(await keys(hostile.slice(0, -1))).toEqual([]);
      // What it reads back is what getAttempt reads back: the record and its scores, exactly.
      expect(await store.attemptsById('attempt_shared', 'run_a')).toEqual([
        await store.getAttempt(given[2]!.key),
      ]);
      await store.close();
      // Indexed: the lookup never reads the ledger.
      const indexes =
        kind.name === 'sqlite'
          ? await sql(
              "SELECT sql AS def FROM sqlite_master WHERE type = 'index' AND name = 'attempts_attempt'",
            )
          : await sql("SELECT indexdef AS def FROM pg_indexes WHERE indexname = 'attempts_attempt'");
      expect(indexes.map((row) => String(row.def))).toEqual([
        expect.stringMatching(/attempts.*\(attempt_id\)/i),
      ]);
    });

    it("streams one run's attempts through its index: the same records, scores and order as the whole stream's", async () => {
      const at = (runId: string, index: number): LedgerRecord =>
        convertBundle(
          parseNativeExecution(JSON.stringify(syntheticAttempt({ runId, attemptId: `attempt_${index}` }))),
        );
      // run_a interleaved with the others, past a page (500); a run id that is a prefix of another.
      const prefixed = 'run_a_2';
      const store = await openStore(storeUrl);
      for (let index = 0; index < 520; index += 20)
        await store.insertBatch([
          ...Array.from({ length: 20 }, (_, offset) => at('run_a', index + offset)),
          at('run_b', index),
          at(prefixed, index),
        ]);
      const all: StoredAttempt[] = [];
      for await (const stored of store.attempts()) all.push(stored);
      for (const runId of ['run_a', 'run_b', prefixed]) {
        const one: StoredAttempt[] = [];
        for await (const stored of store.attempts(runId)) one.push(stored);
        expect(one.length).toBeGreaterThan(0);
        expect(one).toEqual(all.filter((stored) => stored.key.runId === runId));
      }
      expect(all.filter((stored) => stored.key.runId === 'run_a')).toHaveLength(520);
      expect(all[0]?.scores.length).toBeGreaterThan(0);
      const none: StoredAttempt[] = [];
      for await (const stored of store.attempts('run_none')) none.push(stored);
      expect(none).toEqual([]);
      await store.close();
    });

    it('keeps the cost figures in their own columns, the legacy ledger amount apart from the estimate', async () => {
      const legacy = syntheticAttempt({ attemptId: 'attempt_legacy', costMicros: null });
      legacy.usage = {
        ...(legacy.usage as Record<string, unknown>),
        providerReportedCostNanodollars: null,
        providerReportedCostProvenance: 'unavailable',
        estimatedCostNanodollars: 4321,
        pricingVersion: 'codex-2026-10',
        costCoverage: 'legacy_ledger_and_estimate',
        legacyLedgerCostNanodollars: 0,
      };
      const store = await openStore(storeUrl);
      await store.insertBatch([
        record('attempt_provider', 1234),
        convertBundle(parseNativeExecution(JSON.stringify(legacy))),
        record('attempt_unpriced', null),
      ]);
      await store.close();
      const text = (column: string): string => `CAST(${column} AS TEXT) AS ${column}`;
      expect(
        await sql(
          `SELECT attempt_id, cost_coverage, ${text('provider_cost_nanodollars')}, ${text('estimated_cost_nanodollars')},
             pricing_version, ${text('legacy_ledger_cost_nanodollars')} FROM attempts ORDER BY attempt_id`,
        ),
      ).toEqual([
        {
          attempt_id: 'attempt_legacy',
          cost_coverage: 'legacy_ledger_and_estimate',
          provider_cost_nanodollars: null,
          estimated_cost_nanodollars: '4321',
          pricing_version: 'codex-2026-10',
          legacy_ledger_cost_nanodollars: '0', // a zero placeholder kept as such, not NULL
        },
        {
          attempt_id: 'attempt_provider',
          cost_coverage: 'provider_reported',
          provider_cost_nanodollars: '1234000', // 1234 micros × 1000
          estimated_cost_nanodollars: null,
          pricing_version: null,
          legacy_ledger_cost_nanodollars: null,
        },
        {
          attempt_id: 'attempt_unpriced',
          cost_coverage: 'unpriced',
          provider_cost_nanodollars: null, // never 0
          estimated_cost_nanodollars: null,
          pricing_version: null,
          legacy_ledger_cost_nanodollars: null,
        },
      ]);
    });

    it('streams attempts back in insertion order (not identity order)', async () => {
      const paths = [];
      for (const attemptId of ['attempt_c', 'attempt_a', 'attempt_b'])
        paths.push(await writeBundle(dir, `${attemptId}.json`, { attemptId }));
      await ingest({ inputs: paths, storeUrl, batchSize: 1 });
      const store = await openStore(storeUrl);
      const streamed: [string, number][] = [];
      for await (const attempt of store.attempts())
        streamed.push([attempt.key.attemptId, attempt.scores.length]);
      await store.close();
      expect(streamed).toEqual([
        ['attempt_c', 1],
        ['attempt_a', 1],
        ['attempt_b', 1],
      ]);
    });

    it('streams every attempt once across pages (more than one page of 500)', async () => {
      const template = record('attempt_template');
      const ids = attemptIds(501);
      const store = await openStore(storeUrl);
      // Distinct identities sharing one bundle: cheap to make, and every row still needs its own page slot.
      await store.insertBatch(ids.map((attemptId) => ({ ...template, key: { ...template.key, attemptId } })));
      const streamed: string[] = [];
      for await (const attempt of store.attempts()) streamed.push(attempt.key.attemptId);
      await store.close();
      expect(streamed).toEqual(ids);
    });

    it('is append-only: UPDATE and DELETE are refused by the database itself', async () => {
      const store = await openStore(storeUrl);
      await store.insertBatch([record('attempt_a')]);
      await store.close();
      const columns = [
        ['attempts', 'provenance'],
        ['scores', 'status'],
        ['bundles', 'canonical_json'],
      ];
      for (const [table, column] of columns) {
        await expect(sql(`DELETE FROM ${table}`)).rejects.toThrow(/append-only/);
        await expect(sql(`UPDATE ${table} SET ${column} = ${column}`)).rejects.toThrow(/append-only/);
      }
      await expect(sql("UPDATE attempts SET provenance = 'live'")).rejects.toThrow(/append-only/);
      expect(
        await sql(
          'SELECT (SELECT CAST(count(*) AS INTEGER) FROM attempts) AS attempts, (SELECT CAST(count(*) AS INTEGER) FROM scores) AS scores, (SELECT CAST(count(*) AS INTEGER) FROM bundles) AS bundles',
        ),
      ).toEqual([{ attempts: 1, scores: 1, bundles: 1 }]);
    });
  });

  describe('policy verdicts', () => {
    const streamed = async (store: LedgerStore) => {
      const rows = [];
      for await (const row of store.policyVerdicts()) rows.push(row);
      return rows;
    };

    it('stores each verdict once: the same verdicts again are duplicates, read back exactly', async () => {
      const store = await openStore(storeUrl);
      await store.insertBatch([record('attempt_a'), record('attempt_b')]);
      const given = [
        verdict('attempt_a'),
        verdict('attempt_a', 'call_1', {
          decision: null,
          ruleId: null,
          reason: null,
          errorCode: 'OL-1242',
          agreement: 'policy_error',
        }),
        verdict('attempt_b'),
      ];
      expect((await store.insertPolicyVerdicts(given)).map((outcome) => outcome.status)).toEqual([
        'inserted',
        'inserted',
        'inserted',
      ]);
      const again = await store.insertPolicyVerdicts([...given].reverse());
      expect(again.map((outcome) => [outcome.status, outcome.verdict.callId])).toEqual([
        ['duplicate', 'call_0'],
        ['duplicate', 'call_1'],
        ['duplicate', 'call_0'],
      ]);
      // Another policy bundle is another key: its verdict for the same call is stored beside the first.
      const otherPolicy = verdict('attempt_a', 'call_0', { policyDigest: `sha256:${'b'.repeat(64)}` });
      expect((await store.insertPolicyVerdicts([otherPolicy]))[0]?.status).toBe('inserted');
      expect(await streamed(store)).toEqual([...given, otherPolicy].map(readBack));
      await store.close();
    });

    it('reports a different verdict for the same key as a conflict and overwrites nothing, byte for byte', async () => {
      const store = await openStore(storeUrl);
      await store.insertBatch([record('attempt_a')]);
      await store.insertPolicyVerdicts([verdict('attempt_a')]);
      await store.close();
      const snapshot = await kind.snapshot(storeUrl);

      const reopened = await openStore(storeUrl);
      const changed = verdict('attempt_a', 'call_0', { decision: 'allow', agreement: 'agree' });
      const outcomes = await reopened.insertPolicyVerdicts([changed]);
      expect(outcomes).toEqual([
        { status: 'conflict', verdict: changed, existing: readBack(verdict('attempt_a')) },
      ]);
      expect(await streamed(reopened)).toEqual([readBack(verdict('attempt_a'))]);
      await reopened.close();
      expect(await kind.snapshot(storeUrl)).toEqual(snapshot);
    });

    it('takes a verdict stored without its reason (as replay once stored them) as the same verdict, kept as it was', async () => {
      const store = await openStore(storeUrl);
      await store.insertBatch([record('attempt_a')]);
      const unreasoned = verdict('attempt_a', 'call_0', { reason: null });
      await store.insertPolicyVerdicts([unreasoned]);
      const reasoned = verdict('attempt_a', 'call_0', { reason: 'a reason now recorded' });
      expect((await store.insertPolicyVerdicts([reasoned]))[0]?.status).toBe('duplicate');
      // Only a missing reason is forgiven: another reason is another verdict.
      await store.insertPolicyVerdicts([verdict('attempt_a', 'call_1', { reason: 'first' })]);
      expect(
        (await store.insertPolicyVerdicts([verdict('attempt_a', 'call_1', { reason: 'second' })]))[0]?.status,
      ).toBe('conflict');
      expect((await streamed(store)).map((row) => row.reason)).toEqual([null, 'first']);
      await store.close();
    });

    it('refuses verdicts whose attempt is not in the ledger (or is, with another bundle) and stores the rest', async () => {
      const store = await openStore(storeUrl);
      await store.insertBatch([record('attempt_a')]);
      const outcomes = await store.insertPolicyVerdicts([
        verdict('attempt_missing'),
        verdict('attempt_a', 'call_0', { bundleDigest: record('attempt_a', 7).bundleDigest }),
        verdict('attempt_a', 'call_1'),
      ]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['refused', 'refused', 'inserted']);
      expect(outcomes[0]).toMatchObject({
        reason:
          'attempt run_synthetic/case_synthetic/config_synthetic/attempt_missing is not in the ledger (ingest it first)',
      });
      expect(outcomes[1]).toMatchObject({
        reason: expect.stringMatching(/is in the ledger with bundle sha256:/) as unknown,
      });
      expect(await streamed(store)).toEqual([readBack(verdict('attempt_a', 'call_1'))]);
      await store.close();
    });

    it('writes a batch of verdicts atomically: a failure mid-batch leaves none', async () => {
      const store = await openStore(storeUrl);
      await store.insertBatch([record('attempt_a')]);
      const invalid = verdict('attempt_a', 'call_bad', {
        agreement: 'maybe' as PolicyVerdictInput['agreement'],
      });
      await expect(store.insertPolicyVerdicts([verdict('attempt_a'), invalid])).rejects.toThrow(
        /check constraint|CHECK constraint/i,
      );
      expect(await streamed(store)).toEqual([]);
      await store.close();
    });

    it('streams every verdict once, in batch order, across pages (more than one page of 500)', async () => {
      const store = await openStore(storeUrl);
      await store.insertBatch([record('attempt_a')]);
      const calls = attemptIds(501);
      // Within a batch the order is the store's (PostgreSQL writes by key): each batch here is in key order.
      const [later, first] = [calls.slice(0, 250), calls.slice(250)];
      await store.insertPolicyVerdicts(first.map((callId) => verdict('attempt_a', callId)));
      await store.insertPolicyVerdicts(later.map((callId) => verdict('attempt_a', callId)));
      expect((await streamed(store)).map((row) => row.callId)).toEqual([...first, ...later]);
      await store.close();
    });

    it('is append-only: UPDATE and DELETE of verdicts are refused by the database itself', async () => {
      const store = await openStore(storeUrl);
      await store.insertBatch([record('attempt_a')]);
      await store.insertPolicyVerdicts([verdict('attempt_a')]);
      await store.close();
      await expect(sql('DELETE FROM policy_verdicts')).rejects.toThrow(/append-only/);
      await expect(sql("UPDATE policy_verdicts SET agreement = 'agree'")).rejects.toThrow(/append-only/);
      expect(await sql('SELECT agreement FROM policy_verdicts')).toEqual([
        { agreement: 'policy_denies_runner_allowed' },
      ]);
    });
  });

  describe('every valid bundle is storable (the hostile corpus)', () => {
    const corpus = hostileCorpus();
    /** What ingest made of each stored entry: the parser's bundle, converted as ingest converts it. */
    const expected = corpus
      .filter((entry) => entry.verdict === 'stored')
      .map((entry) =>
        convertBundle(parseNativeExecution(entry.text), {
          fileSha256: sha256Digest(Buffer.from(entry.text)),
        }),
      );
    const keyText = (key: AttemptKey): string =>
      JSON.stringify([key.runId, key.caseId, key.configId, key.attemptId]);
    const corpusDir = async (): Promise<string> => {
      const at = join(dir, 'hostile');
      await mkdir(at, { recursive: true });
      for (const entry of corpus) await writeFile(join(at, `${entry.name}.json`), entry.text);
      return at;
    };

    it('stores every bundle the parser accepts and refuses the rest as invalid, as the table says', async () => {
      expect(new Set(expected.map((given) => keyText(given.key))).size).toBe(expected.length);
      const summary = await ingest({ inputs: [await corpusDir()], storeUrl, batchSize: 7 });
      expect(summary.invalid.map((invalid) => basename(invalid.input, '.json')).sort()).toEqual(
        corpus
          .filter((entry) => entry.verdict === 'invalid')
          .map((entry) => entry.name)
          .sort(),
      );
      expect({
        inserted: summary.inserted,
        duplicates: summary.duplicates,
        conflicts: summary.conflicts,
        unreadable: summary.unreadable,
        storeRefused: summary.storeRefused,
      }).toEqual({
        inserted: expected.length,
        duplicates: 0,
        conflicts: [],
        unreadable: [],
        storeRefused: [],
      });
      expect(ingestExitCode(summary)).toBe(1);
      // Again: every stored one is a duplicate of itself (its key found again, whatever it holds).
      const again = await ingest({ inputs: [await corpusDir()], storeUrl, batchSize: 7 });
      expect([again.inserted, again.duplicates, again.conflicts.length]).toEqual([0, expected.length, 0]);
      expect(await kind.storageProblems(storeUrl)).toEqual([]);
    });

    it('reads every stored bundle back exactly: attempts, bundles, scores, runs and the report show the same ids', async () => {
      await ingest({ inputs: [await corpusDir()], storeUrl, batchSize: 7 });
      const store = await openStore(storeUrl);
      try {
        for (const given of expected) {
          const { rawCanonical, scores, ...rest } = given;
          // As JSON (a -0 in evidence is 0, as in the bundle's RFC 8785 canonical form and its digest).
          expect(await store.getAttempt(given.key)).toEqual(
            JSON.parse(
              JSON.stringify({ key: given.key, bundleDigest: given.bundleDigest, record: rest, scores }),
            ),
          );
          expect(await store.getBundle(given.bundleDigest)).toBe(rawCanonical);
        }
        // A page of bundles in one query: the same texts, a digest asked twice once, an unknown one absent.
        const digests = expected.map((given) => given.bundleDigest);
        const unknown = `sha256:${'0'.repeat(64)}`;
        const page = await store.getBundles([...digests, digests[0] ?? unknown, unknown]);
        expect(page).toEqual(new Map(expected.map((given) => [given.bundleDigest, given.rawCanonical])));
        expect(await store.getBundles([])).toEqual(new Map());
        const listed: string[] = [];
        for await (const attempt of store.attempts()) listed.push(keyText(attempt.key));
        expect(listed.sort()).toEqual(expected.map((given) => keyText(given.key)).sort());
        const runIds = [...new Set(expected.map((given) => given.key.runId))];
        expect(
          (await store.runs()).map((run) => [run.runId, run.attempts]).sort(([a], [b]) => (a! < b! ? -1 : 1)),
        ).toEqual(
          runIds
            .map((runId) => [runId, expected.filter((given) => given.key.runId === runId).length])
            .sort(([a], [b]) => (a! < b! ? -1 : 1)),
        );
        let text = '';
        await writeReport({
          store,
          storeUrl,
          format: 'json',
          write: (chunk) => {
            text += chunk;
            return Promise.resolve();
          },
        });
        const report = JSON.parse(text) as { attempts: (AttemptKey & { checks: { checkId: string }[] })[] };
        expect(report.attempts.map((attempt) => keyText(attempt)).sort()).toEqual(listed.sort());
        expect(
          report.attempts.flatMap((attempt) => attempt.checks.map((check) => check.checkId)).sort(),
        ).toEqual(expected.flatMap((given) => given.scores.map((score) => score.checkId)).sort());
      } finally {
        await store.close();
      }
    });

    it('takes policy verdicts, retractions and drift runs of hostile ids and text, and reads them back exactly', async () => {
      await ingest({ inputs: [await corpusDir()], storeUrl, batchSize: 7 });
      const store = await openStore(storeUrl);
      try {
        const verdicts: PolicyVerdictInput[] = expected
          .filter((given) => given.toolCalls.length > 0)
          .map((given, index) => ({
            key: given.key,
            bundleDigest: given.bundleDigest,
            callId: given.toolCalls[0]?.callId ?? '',
            policyDigest: POLICY_DIGEST,
            toolName: given.toolCalls[0]?.operationId ?? '',
            decision: 'deny',
            verdict: 'deny',
            decisionJson: JSON.stringify({
              verdict: 'deny',
              reason: `no\u0000${noise(3000, `reason${index}`)}`,
            }),
            ruleId: `rule\u0000${noise(3000, `rule${index}`)}`,
            reason: `no\u0000${noise(3000, `reason${index}`)}\uE000`,
            errorCode: null,
            recordedOutcome: 'succeeded',
            agreement: 'policy_denies_runner_allowed',
          }));
        expect(verdicts.length).toBeGreaterThan(10);
        expect((await store.insertPolicyVerdicts(verdicts)).map((outcome) => outcome.status)).toEqual(
          verdicts.map(() => 'inserted'),
        );
        expect((await store.insertPolicyVerdicts(verdicts)).map((outcome) => outcome.status)).toEqual(
          verdicts.map(() => 'duplicate'),
        );
        const byTarget = (a: PolicyVerdict, b: PolicyVerdict): number =>
          keyText(a.key) < keyText(b.key) ? -1 : keyText(a.key) > keyText(b.key) ? 1 : 0;
        const storedVerdicts: PolicyVerdict[] = [];
        for await (const stored of store.policyVerdicts()) storedVerdicts.push(stored);
        expect(storedVerdicts.sort(byTarget)).toEqual(verdicts.map(readBack).sort(byTarget));

        // Every (run, attempt id) target retracted by its own record (twins of other cases share one).
        const targets = [
          ...new Set(expected.map((given) => JSON.stringify([given.key.runId, given.key.attemptId]))),
        ];
        for (const target of targets) {
          const [runId = '', attemptId = ''] = JSON.parse(target) as string[];
          expect(
            await store.retract({
              runId,
              attemptIds: [attemptId],
              reason: `hostile\u0000${attemptId}`,
              by: 'ci\u0000bot\uE000',
              at: '2026-12-01T09:30:00.000Z',
            }),
          ).toEqual([expect.objectContaining({ status: 'retracted' })]);
        }
        const retractions = await store.retractions();
        expect(
          retractions.map((retraction) => JSON.stringify([retraction.runId, retraction.attemptId])).sort(),
        ).toEqual(targets.sort());
        expect(retractions.map((retraction) => retraction.reason).sort()).toEqual(
          targets.map((target) => `hostile\u0000${(JSON.parse(target) as string[])[1]}`).sort(),
        );
        expect(retractions.every((retraction) => retraction.by === 'ci\u0000bot\uE000')).toBe(true);
        expect((await store.runs()).every((run) => run.retracted === run.attempts)).toBe(true);

        const checkIds = [
          ...new Set(expected.flatMap((given) => given.scores.map((score) => score.checkId))),
        ];
        for (const checkId of checkIds) await store.appendDriftRun({ checkId, score: 0.5, status: 'pass' });
        for (const checkId of checkIds)
          expect(await store.driftWindow(checkId, 10)).toEqual([{ checkId, score: 0.5, status: 'pass' }]);
      } finally {
        await store.close();
      }
    });

    it('writes N good bundles and reports the one the store refuses: its batch is written again bundle by bundle', async () => {
      const at = join(dir, 'poisoned');
      await mkdir(at, { recursive: true });
      await writeBundles(at, 20);
      await (await openStore(storeUrl)).close();
      // A real refusal by the database itself, for one attempt only (as a NUL or an oversized key was).
      await refuseAttempt(storeUrl, 'attempt_00003');
      // In this thread, then (SQLite) on the writer thread, as the CLI writes (that runs the built package).
      const built = (await import(DIST)) as { ingest: typeof ingest };
      for (const writerThread of [false, true]) {
        const summary = await (writerThread ? built.ingest : ingest)({
          inputs: [at],
          storeUrl,
          batchSize: 8,
          writerThread,
        });
        expect(summary.storeRefused).toEqual([
          {
            input: join(at, 'attempt_00003.json'),
            key: key('attempt_00003'),
            bundleDigest: convertBundle(parseNativeExecution(await readFile(join(at, 'attempt_00003.json'))))
              .bundleDigest,
            error: {
              code: 'paperclip_evalbook_store_unusable',
              message: expect.stringMatching(/refused the write: .*poisoned/) as unknown,
              issues: [expect.objectContaining({ code: 'store_record_refused' })],
            },
          },
        ]);
        expect(ingestExitCode(summary)).toBe(2);
        // The second run finds the 19 stored by the first.
        expect([summary.inserted, summary.duplicates]).toEqual(writerThread ? [0, 19] : [19, 0]);
      }
      const store = await openStore(storeUrl);
      const stored: string[] = [];
      for await (const attempt of store.attempts()) stored.push(attempt.key.attemptId);
      await store.close();
      expect(stored.sort()).toEqual(attemptIds(20).filter((id) => id !== 'attempt_00003'));
      expect(await sql(ORPHANS)).toEqual([]);
    });
  });

  describe("drift runs (the checks engine's history)", () => {
    it('gives the newest run and up to N passing or soft-failing runs before it, oldest first', async () => {
      const store = await openStore(storeUrl);
      try {
        expect(await store.driftWindow('quality', 50)).toEqual([]);
        const statuses = ['pass', 'hard_fail', 'soft_fail', 'pass', 'pass', 'hard_fail'] as const;
        for (const [index, status] of statuses.entries())
          await store.appendDriftRun({ checkId: 'quality', score: index / 10, status });
        await store.appendDriftRun({ checkId: 'other', score: 1, status: 'pass' });
        // the newest (a hard failure) comes last; earlier hard failures are left out; the cap keeps the newest
        expect((await store.driftWindow('quality', 3)).map((run) => [run.score, run.status])).toEqual([
          [0.2, 'soft_fail'],
          [0.3, 'pass'],
          [0.4, 'pass'],
          [0.5, 'hard_fail'],
        ]);
        expect(await store.driftWindow('other', 50)).toEqual([
          { checkId: 'other', score: 1, status: 'pass' },
        ]);
      } finally {
        await store.close();
      }
      await expect(sql('DELETE FROM drift_runs')).rejects.toThrow(/append-only/);
      await expect(sql('UPDATE drift_runs SET score = 1')).rejects.toThrow(/append-only/);
      await expect(
        sql("INSERT INTO drift_runs (check_id, score, status) VALUES ('x', 1, 'maybe')"),
      ).rejects.toThrow();
    });
  });
});

describe('SQLite only', () => {
  it('creates the file in its folder, in WAL mode, and reports its integrity', async () => {
    await mkdir(join(dir, 'nested', 'deeper'), { recursive: true });
    const path = join(dir, 'nested', 'deeper', 'evalbook.sqlite');
    const store = await openStore(`sqlite:${path}`);
    expect(store.kind).toBe('sqlite');
    await store.insertBatch([record('attempt_a')]);
    await store.close();
    const reopened = SqliteStore.open(path);
    expect(reopened.integrityCheck()).toEqual(['ok']);
    await reopened.close();
    const db = new Database(path, { fileMustExist: true });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      db.close();
    }
  });
  it('stores the hostile corpus on the writer thread row for row, type for type, as on this thread', async () => {
    // The writer thread is sent each record's insert values with its canonical text and record JSON
    // as UTF-8 in one transferred buffer (packWrites): astral, BMP and escaped text must come back
    // the same strings, in the same columns, with the same SQLite types.
    const at = join(dir, 'hostile');
    await mkdir(at, { recursive: true });
    for (const entry of hostileCorpus()) await writeFile(join(at, `${entry.name}.json`), entry.text);
    const built = (await import(DIST)) as { ingest: typeof ingest };
    const rowsOf = (path: string): Record<string, unknown[]> => {
      const db = new Database(path, { readonly: true, fileMustExist: true });
      try {
        const typed = (table: string, order: string): unknown[] => {
          const columns = (db.pragma(`table_info(${table})`) as { name: string }[]).map(({ name }) => name);
          return db
            .prepare(
              `SELECT ${columns.map((name) => `${name}, typeof(${name}) AS ${name}_type`).join(', ')} FROM ${table} ORDER BY ${order}`,
            )
            .all();
        };
        return {
          attempts: typed('attempts', 'id'),
          bundles: typed('bundles', 'digest'),
          scores: typed('scores', 'rowid'),
        };
      } finally {
        db.close();
      }
    };
    const here = join(dir, 'here.sqlite');
    const there = join(dir, 'there.sqlite');
    const inThread = await ingest({ inputs: [at], storeUrl: `sqlite:${here}`, batchSize: 7 });
    const onWriter = await built.ingest({
      inputs: [at],
      storeUrl: `sqlite:${there}`,
      batchSize: 7,
      writerThread: true,
    });
    expect(inThread.inserted).toBeGreaterThan(10);
    expect({ ...onWriter, store: '' }).toEqual({ ...inThread, store: '' });
    const rows = rowsOf(here);
    expect(rows.bundles).toHaveLength(inThread.inserted);
    expect(rowsOf(there)).toEqual(rows);
  });
});

describe('PostgreSQL only', { timeout: STORE_TEST_MS }, () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await postgresServer();
  }, SERVER_START_MS);

  let storeUrl: string;
  beforeEach(async () => {
    storeUrl = await POSTGRES.freshUrl(dir);
  });
  const sql = (text: string): Promise<Row[]> => POSTGRES.sql(storeUrl, text);
  const versions = POSTGRES_MIGRATIONS.map((migration) => migration.version);

  it('applies every migration once for concurrent openers (postgres:// and postgresql://)', async () => {
    const urls = [storeUrl, storeUrl, storeUrl, storeUrl.replace(/^postgres:/, 'postgresql:')];
    const stores = await Promise.all(urls.map((url) => openStore(url)));
    for (const store of stores) {
      expect(store.kind).toBe('postgres');
      expect(await store.migrations()).toEqual(versions);
    }
    await Promise.all(stores.map((store) => store.close()));
    expect(await sql('SELECT version FROM schema_migrations ORDER BY version')).toEqual(
      versions.map((version) => ({ version })),
    );
  });

  it('migration 8 keeps the text of an older store exactly, U+E000 included, and finds its keys again', async () => {
    await POSTGRES.migrateTo(storeUrl, 7);
    // Text an older Evals stored raw: U+E000 (the codec's escape) next to '0', doubled, alone.
    const bundle = syntheticAttempt({ attemptId: 'attempt_legacy' });
    bundle.identity = { ...(bundle.identity as object), caseId: 'legacy\uE0000', attemptId: 'a\uE000\uE000' };
    bundle.observations = { checks: [{ id: 'check\uE000', passed: true }] };
    const old = convertBundle(parseNativeExecution(JSON.stringify(bundle)));
    const client = new pg.Client({ connectionString: storeUrl });
    await client.connect();
    try {
      await client.query('INSERT INTO bundles (digest, canonical_json) VALUES ($1, $2)', [
        old.bundleDigest,
        old.rawCanonical,
      ]);
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO attempts (run_id, case_id, config_id, attempt_id, bundle_digest, file_sha256, provenance,
           run_terminal_state, failure_classification, transcript_complete, denials, cost_coverage,
           provider_cost_nanodollars, estimated_cost_nanodollars, pricing_version, environment_mismatch, record_json)
         VALUES ($1, $2, $3, $4, $5, NULL, 'seeded', 'succeeded', NULL, TRUE, 1, $6, $7, NULL, NULL, FALSE, $8)
         RETURNING id`,
        [
          old.key.runId,
          old.key.caseId,
          old.key.configId,
          old.key.attemptId,
          old.bundleDigest,
          old.cost.coverage,
          old.cost.providerReportedNanodollars,
          storedRecordJson(old),
        ],
      );
      for (const score of old.scores)
        await client.query(
          'INSERT INTO scores (attempt, check_id, layer, status, score, reason, evidence_json) VALUES ($1, $2, $3, $4, $5, $6, $7)',
          [rows[0]?.id, ...scoreValues(score)],
        );
      await client.query(
        `INSERT INTO retractions (run_id, attempt_id, reason, retracted_by, retracted_at)
         VALUES ($1, $2, 'why \uE0000', 'who \uE000', '2026-12-01T09:30:00.000Z')`,
        [old.key.runId, old.key.attemptId],
      );
      await client.query(
        "INSERT INTO drift_runs (check_id, score, status) VALUES ('check\uE000', 1, 'pass')",
      );
    } finally {
      await client.end();
    }
    const store = await openStore(storeUrl);
    try {
      expect(await store.migrations()).toEqual(versions);
      const { rawCanonical, scores, ...rest } = old;
      expect(await store.getAttempt(old.key)).toEqual({
        key: old.key,
        bundleDigest: old.bundleDigest,
        record: rest,
        scores,
      });
      expect(scores.map((score) => score.checkId)).toContain('check\uE000');
      expect(await store.getBundle(old.bundleDigest)).toBe(rawCanonical);
      expect(await store.retractions()).toEqual([
        {
          runId: old.key.runId,
          attemptId: 'a\uE000\uE000',
          reason: 'why \uE0000',
          by: 'who \uE000',
          at: '2026-12-01T09:30:00.000Z',
        },
      ]);
      expect(await store.driftWindow('check\uE000', 10)).toEqual([
        { checkId: 'check\uE000', score: 1, status: 'pass' },
      ]);
      // Its key is found again: the same attempt is a duplicate, another bundle for it a conflict.
      expect((await store.insertBatch([old])).map((outcome) => outcome.status)).toEqual(['duplicate']);
      bundle.usage = { ...(bundle.usage as object), durationMs: 1 };
      const changed = convertBundle(parseNativeExecution(JSON.stringify(bundle)));
      expect((await store.insertBatch([changed])).map((outcome) => outcome.status)).toEqual(['conflict']);
      expect(await store.countAttempts()).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('reports a missing database and an unreachable server as a store EvalbookError', async () => {
    await expect(openStore(`postgres://postgres@127.0.0.1:${server.port}/no_such_db`)).rejects.toThrow(
      evalbookError('paperclip_evalbook_store_unusable'),
    );
    const closed = await freePort();
    await expect(openStore(`postgres://postgres@127.0.0.1:${closed}/evalbook`)).rejects.toThrow(
      /cannot open the PostgreSQL store/,
    );
    await expect(openStore(`postgres://postgres@127.0.0.1:${closed}/evalbook`)).rejects.toThrow(
      evalbookError('paperclip_evalbook_store_unusable'),
    );
  });

  it('is append-only: TRUNCATE too is refused by the database itself', async () => {
    const store = await openStore(storeUrl);
    await store.insertBatch([record('attempt_a')]);
    await store.close();
    await expect(sql('TRUNCATE attempts CASCADE')).rejects.toThrow(/append-only/);
    for (const table of ['scores', 'bundles'])
      await expect(sql(`TRUNCATE ${table} CASCADE`)).rejects.toThrow(/append-only/);
    expect(await sql('SELECT count(*)::int AS n FROM scores')).toEqual([{ n: 1 }]);
  });

  it(
    '4 processes, overlapping corpora: every attempt exactly once, conflicts reported, no errors',
    { timeout: CONCURRENCY_TEST_MS },
    async () => {
      const IDENTITIES = 200;
      const PROCESSES = 4;
      const conflicting = (index: number): boolean => index % 20 === 0;
      // Process p gets identities [50p, 50p + 100) mod 200: each identity is in exactly two corpora,
      // one from an even and one from an odd process; odd processes change the cost of `conflicting` ones.
      const corpora: string[] = [];
      for (let p = 0; p < PROCESSES; p++) {
        const corpus = join(dir, `corpus_${p}`);
        await mkdir(corpus);
        const writes: Promise<string>[] = [];
        for (let offset = 0; offset < 100; offset++) {
          const index = (p * 50 + offset) % IDENTITIES;
          const attemptId = `attempt_${String(index).padStart(5, '0')}`;
          const variant = p % 2 === 1 && conflicting(index);
          writes.push(
            writeBundle(corpus, `${attemptId}.json`, {
              attemptId,
              toolCalls: 1,
              progressEvents: 0,
              ...(variant ? { costMicros: 4242 } : {}),
            }),
          );
        }
        await Promise.all(writes);
        corpora.push(corpus);
      }
      const child = join(dir, 'child.mjs');
      await writeFile(
        child,
        `import { ingest } from ${JSON.stringify(DIST)};
const summary = await ingest({ inputs: [process.argv[2]], storeUrl: process.argv[3], batchSize: 10 });
process.stdout.write(JSON.stringify(summary));`,
      );
      // Migrations too are raced: the children open a fresh database at once.
      const results = await Promise.all(
        corpora.map(
          (corpus) =>
            new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
              const proc = spawn(process.execPath, [child, corpus, storeUrl], {
                stdio: ['ignore', 'pipe', 'pipe'],
              });
              let stdout = '';
              let stderr = '';
              proc.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
              proc.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
              proc.on('exit', (code) => {
                done({ code, stdout, stderr });
              });
            }),
        ),
      );
      for (const result of results) expect(result).toMatchObject({ code: 0, stderr: '' });
      const summaries = results.map((result) => JSON.parse(result.stdout) as IngestSummary);
      const total = (pick: (summary: IngestSummary) => number): number =>
        summaries.reduce((sum, summary) => sum + pick(summary), 0);
      const conflictCount = Array.from({ length: IDENTITIES }, (_, index) => index).filter(
        conflicting,
      ).length;
      expect(total((summary) => summary.processed)).toBe(2 * IDENTITIES);
      expect(total((summary) => summary.inserted)).toBe(IDENTITIES);
      expect(total((summary) => summary.duplicates)).toBe(IDENTITIES - conflictCount);
      expect(total((summary) => summary.conflicts.length)).toBe(conflictCount);
      expect(total((summary) => summary.invalid.length + summary.unreadable.length)).toBe(0);
      const conflictIds = summaries.flatMap((summary) =>
        summary.conflicts.map((conflict) => conflict.key.attemptId),
      );
      expect(new Set(conflictIds).size).toBe(conflictCount);
      expect(conflictIds.every((attemptId) => conflicting(Number(attemptId.slice('attempt_'.length))))).toBe(
        true,
      );

      const [counts] = await sql(
        `SELECT count(*)::int AS n, count(DISTINCT attempt_id)::int AS distinct_ids,
         (SELECT count(*)::int FROM scores) AS scores, (SELECT count(*)::int FROM bundles) AS bundles FROM attempts`,
      );
      expect(counts).toEqual({
        n: IDENTITIES,
        distinct_ids: IDENTITIES,
        scores: IDENTITIES,
        bundles: IDENTITIES,
      });
      // Each reported conflict names the digest that is actually stored.
      const store = await openStore(storeUrl);
      for (const summary of summaries)
        for (const conflict of summary.conflicts)
          expect((await store.getAttempt(conflict.key))?.bundleDigest).toBe(conflict.existingDigest);
      expect(await store.migrations()).toEqual(versions);
      await store.close();
      expect(await sql(ORPHANS)).toEqual([]);
    },
  );
});
