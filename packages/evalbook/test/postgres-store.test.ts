// PostgreSQL store against a real throwaway server (test/support/postgres-server.ts): migrations (and
// refusing a store from the future, concurrent openers), idempotent re-ingest, conflicts that
// overwrite nothing, invalid bundles never written, batch atomicity, append-only triggers, and four
// child processes ingesting overlapping corpora at once: every attempt exactly once, conflicts
// reported, no errors. The children run the built package (packages/evalbook/dist).
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { parseNativeExecution } from '@paperclip-evals/contract';

import { convertBundle } from '../src/convert.ts';
import { ingest, ingestExitCode } from '../src/ingest.ts';
import type { IngestSummary } from '../src/ingest.ts';
import { PostgresStore } from '../src/postgres-store.ts';
import { StoreError, openStore } from '../src/store.ts';
import { startPostgres } from './support/postgres-server.ts';
import type { PostgresServer } from './support/postgres-server.ts';
import { syntheticAttempt, tempDir, writeBundle, writeBundles } from './support/bundles.ts';

const DIST = pathToFileURL(fileURLToPath(new URL('../dist/index.js', import.meta.url))).href;

let server: PostgresServer;
let started: PostgresServer | undefined;
let databases = 0;
beforeAll(async () => {
  server = started = await startPostgres();
});
afterAll(async () => {
  await started?.stop();
});

let dir: string;
let cleanup: () => Promise<void>;
let storeUrl: string;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('evalbook-pgtest-'));
  storeUrl = await server.createDatabase(`evalbook_${++databases}`);
});
afterEach(() => cleanup());

const sql = async <T extends pg.QueryResultRow>(text: string): Promise<T[]> => {
  const client = new pg.Client({ connectionString: storeUrl });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
};

const record = (attemptId: string, costMicros?: number) =>
  convertBundle(
    parseNativeExecution(
      JSON.stringify(syntheticAttempt(costMicros === undefined ? { attemptId } : { attemptId, costMicros })),
    ),
  );

const key = (attemptId: string) => ({
  runId: 'run_synthetic',
  caseId: 'case_synthetic',
  configId: 'config_synthetic',
  attemptId,
});

describe('PostgreSQL migrations', () => {
  it('applies every migration once, also for concurrent openers, and refuses a store from the future', async () => {
    const stores = await Promise.all([1, 2, 3, 4].map(() => openStore(storeUrl)));
    for (const store of stores) {
      expect(store.kind).toBe('postgres');
      expect(await store.migrations()).toEqual([1]);
    }
    await Promise.all(stores.map((store) => store.close()));
    const again = await PostgresStore.open(storeUrl);
    expect(await again.migrations()).toEqual([1]);
    await again.close();
    await sql("INSERT INTO schema_migrations VALUES (99, 'future', now())");
    await expect(openStore(storeUrl)).rejects.toThrow(StoreError);
    await expect(openStore(storeUrl)).rejects.toThrow(/future/);
  });

  it('reports an unreachable server as a StoreError', async () => {
    await expect(openStore(`postgres://postgres@127.0.0.1:${server.port}/no_such_db`)).rejects.toThrow(
      StoreError,
    );
  });
});

describe('PostgreSQL ingest', () => {
  it('is idempotent: the same bundles again are duplicates (exit 0)', async () => {
    const input = join(dir, 'bundles');
    await mkdir(input);
    await writeBundles(input, 25);
    const first = await ingest({ inputs: [input], storeUrl, batchSize: 10 });
    expect(first).toMatchObject({ inserted: 25, duplicates: 0, conflicts: [], invalid: [], unreadable: [] });
    const second = await ingest({ inputs: [input], storeUrl, batchSize: 10 });
    expect(second).toMatchObject({ inserted: 0, duplicates: 25 });
    expect(ingestExitCode(second)).toBe(0);
    const store = await openStore(storeUrl);
    expect(await store.countAttempts()).toBe(25);
    const ids: string[] = [];
    for await (const attempt of store.attempts()) ids.push(attempt.key.attemptId);
    expect(ids).toEqual(
      Array.from({ length: 25 }, (_, index) => `attempt_${String(index).padStart(5, '0')}`),
    );
    await store.close();
  });

  it('reports a conflict (exit 1) and leaves the original untouched', async () => {
    const original = await writeBundle(dir, 'a.json', { attemptId: 'attempt_x' });
    await ingest({ inputs: [original], storeUrl });
    const store = await openStore(storeUrl);
    const before = await store.getAttempt(key('attempt_x'));
    const beforeRaw = await store.getBundle(before?.bundleDigest ?? '');
    expect(before?.scores.length).toBeGreaterThan(0);
    await store.close();
    const rowsBefore = await sql('SELECT * FROM attempts ORDER BY id');

    const changed = await writeBundle(dir, 'b.json', { attemptId: 'attempt_x', costMicros: 1 });
    const summary = await ingest({ inputs: [changed], storeUrl });
    expect(summary.conflicts).toHaveLength(1);
    expect(summary.conflicts[0]?.existingDigest).toBe(before?.bundleDigest);
    expect(ingestExitCode(summary)).toBe(1);

    const after = await openStore(storeUrl);
    expect(await after.getAttempt(key('attempt_x'))).toEqual(before);
    expect(await after.getBundle(before?.bundleDigest ?? '')).toBe(beforeRaw);
    expect(await after.getBundle(summary.conflicts[0]?.bundleDigest ?? '')).toBeNull();
    expect(await after.countAttempts()).toBe(1);
    await after.close();
    expect(await sql('SELECT * FROM attempts ORDER BY id')).toEqual(rowsBefore);
  });

  it('never writes an invalid bundle', async () => {
    const good = await writeBundle(dir, 'good.json', { attemptId: 'attempt_good' });
    const bad = syntheticAttempt({ attemptId: 'attempt_bad' });
    (bad.usage as Record<string, unknown>).totalTokens = 1;
    await writeFile(join(dir, 'bad.json'), JSON.stringify(bad));
    const summary = await ingest({ inputs: [good, join(dir, 'bad.json')], storeUrl });
    expect(summary.inserted).toBe(1);
    expect(summary.invalid).toHaveLength(1);
    const store = await openStore(storeUrl);
    expect(await store.countAttempts()).toBe(1);
    await store.close();
  });
});

describe('PostgresStore', () => {
  it('writes a batch atomically: a failure mid-batch leaves nothing', async () => {
    const store = await PostgresStore.open(storeUrl);
    const broken = record('attempt_broken');
    const badRecord = { ...broken, scores: [...broken.scores, ...broken.scores] }; // (attempt, check) primary key violated
    await expect(store.insertBatch([record('attempt_a'), record('attempt_b'), badRecord])).rejects.toThrow(
      /unique|constraint/,
    );
    expect(await store.countAttempts()).toBe(0);
    expect(await store.getBundle(record('attempt_a').bundleDigest)).toBeNull();
    const outcomes = await store.insertBatch([
      record('attempt_b'),
      record('attempt_a'),
      record('attempt_a'),
      record('attempt_b', 7),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'inserted',
      'inserted',
      'duplicate',
      'conflict',
    ]);
    expect(outcomes[3]).toMatchObject({ existingDigest: record('attempt_b').bundleDigest });
    await store.close();
  });

  it('is append-only: UPDATE, DELETE and TRUNCATE are refused by the database itself', async () => {
    const store = await PostgresStore.open(storeUrl);
    await store.insertBatch([record('attempt_a')]);
    await store.close();
    await expect(sql("UPDATE attempts SET provenance = 'live'")).rejects.toThrow(/append-only/);
    await expect(sql('DELETE FROM scores')).rejects.toThrow(/append-only/);
    await expect(sql('DELETE FROM bundles')).rejects.toThrow(/append-only/);
    await expect(sql('TRUNCATE attempts CASCADE')).rejects.toThrow(/append-only/);
    expect(await sql('SELECT count(*)::int AS n FROM scores')).toEqual([{ n: 1 }]);
  });
});

describe('concurrent ingest into one PostgreSQL store', () => {
  it('4 processes, overlapping corpora: every attempt exactly once, conflicts reported, no errors', async () => {
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
    const conflictCount = Array.from({ length: IDENTITIES }, (_, index) => index).filter(conflicting).length;
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

    const [counts] = await sql<{ n: number; distinct_ids: number; scores: number; bundles: number }>(
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
    expect(await store.migrations()).toEqual([1]);
    await store.close();
  }, 40_000);
});
