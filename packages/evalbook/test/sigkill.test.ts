// Crash safety: a child process ingesting a few thousand bundles (SQLite batches written on its
// writer thread, as the CLI does) is SIGKILLed mid-way; a rerun then
// leaves every attempt present exactly once and the SQLite file passes PRAGMA integrity_check. The
// same against a real PostgreSQL server (`@paperclip-evals/test-kit/postgres-server`), with a smaller corpus.
// The child runs the built package (packages/evalbook/dist), as `pnpm test` builds before testing.
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ingest } from '../src/ledger/ingest.ts';
import { tempDir, writeBundles } from '@paperclip-evals/test-kit/bundle-files';
import { startPostgres } from '@paperclip-evals/test-kit/postgres-server';

import type { PostgresServer } from '@paperclip-evals/test-kit/postgres-server';

const DIST = pathToFileURL(fileURLToPath(new URL('../dist/index.js', import.meta.url))).href;
const TOTAL = 3000;

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('evalbook-sigkill-'));
  await mkdir(join(dir, 'bundles'));
  await writeBundles(join(dir, 'bundles'), TOTAL);
});
afterAll(() => cleanup());

describe('SIGKILL during ingest', () => {
  it('leaves a consistent store; a rerun completes it with every attempt exactly once', async () => {
    const dbPath = join(dir, 'evalbook.sqlite');
    const child = join(dir, 'child.mjs');
    await writeFile(
      child,
      `import { ingest } from ${JSON.stringify(DIST)};
await ingest({ inputs: [process.argv[2]], storeUrl: 'sqlite:' + process.argv[3], batchSize: 50, writerThread: true,
  onProgress: (p) => process.stdout.write(p.inserted + '\\n') });
process.stdout.write('done\\n');`,
    );
    const proc = spawn(process.execPath, [child, join(dir, 'bundles'), dbPath], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const signal = await new Promise<NodeJS.Signals | null>((done) => {
      let killed = false;
      proc.stdout.setEncoding('utf8');
      proc.stdout.on('data', (text: string) => {
        const counts = text.trim().split('\n').map(Number);
        if (!killed && counts.some((count) => count >= 500)) {
          killed = true;
          proc.kill('SIGKILL');
        }
      });
      proc.on('exit', (_code, sig) => {
        done(sig);
      });
    });
    expect(signal).toBe('SIGKILL');

    const db = new Database(dbPath, { readonly: true });
    const before = (db.prepare('SELECT count(*) AS n FROM attempts').get() as { n: number }).n;
    db.close();
    expect(before).toBeGreaterThanOrEqual(500);
    expect(before).toBeLessThan(TOTAL);
    expect(before % 50).toBe(0); // whole batches only

    const rerun = await ingest({ inputs: [join(dir, 'bundles')], storeUrl: `sqlite:${dbPath}` });
    expect(rerun).toMatchObject({
      inserted: TOTAL - before,
      duplicates: before,
      conflicts: [],
      invalid: [],
      unreadable: [],
    });

    const check = new Database(dbPath);
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    const counts = check
      .prepare(
        'SELECT count(*) AS n, count(DISTINCT attempt_id) AS distinctIds, (SELECT count(*) FROM scores) AS scores FROM attempts',
      )
      .get() as { n: number; distinctIds: number; scores: number };
    check.close();
    expect(counts).toEqual({ n: TOTAL, distinctIds: TOTAL, scores: TOTAL });
  }, 60_000);
});

describe('SIGKILL during ingest into PostgreSQL', () => {
  const PG_TOTAL = 600;
  const BATCH = 50;
  const KILL_AT = 150;
  let server: PostgresServer | undefined;
  beforeAll(async () => {
    server = await startPostgres();
    await mkdir(join(dir, 'pg-bundles'));
    await writeBundles(join(dir, 'pg-bundles'), PG_TOTAL);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  }, 120_000);

  it('leaves whole batches only; a rerun completes it with every attempt exactly once', async () => {
    const storeUrl = await (server as PostgresServer).createDatabase('evalbook_sigkill');
    const query = async <T extends pg.QueryResultRow>(text: string): Promise<T[]> => {
      const client = new pg.Client({ connectionString: storeUrl });
      await client.connect();
      try {
        return (await client.query<T>(text)).rows;
      } finally {
        await client.end();
      }
    };
    const child = join(dir, 'pg-child.mjs');
    await writeFile(
      child,
      `import { ingest } from ${JSON.stringify(DIST)};
await ingest({ inputs: [process.argv[2]], storeUrl: process.argv[3], batchSize: ${BATCH},
  onProgress: (p) => process.stdout.write(p.inserted + '\\n') });
process.stdout.write('done\\n');`,
    );
    const proc = spawn(process.execPath, [child, join(dir, 'pg-bundles'), storeUrl], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const signal = await new Promise<NodeJS.Signals | null>((done) => {
      let killed = false;
      proc.stdout.setEncoding('utf8');
      proc.stdout.on('data', (text: string) => {
        const counts = text.trim().split('\n').map(Number);
        if (!killed && counts.some((count) => count >= KILL_AT)) {
          killed = true;
          proc.kill('SIGKILL');
        }
      });
      proc.on('exit', (_code, sig) => {
        done(sig);
      });
    });
    expect(signal).toBe('SIGKILL');

    // The server ends the dead child's sessions (rolling back an open batch, finishing a COMMIT already
    // sent) once it sees the sockets close: wait for that, so the count below is final.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const [{ sessions } = { sessions: 0 }] = await query<{ sessions: number }>(
        'SELECT count(*)::int AS sessions FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      if (sessions === 0) break;
      if (Date.now() > deadline) throw new Error(`${sessions} session(s) of the killed child still open`);
      await new Promise((resolveWait) => setTimeout(resolveWait, 50));
    }
    const [{ n: before } = { n: -1 }] = await query<{ n: number }>('SELECT count(*)::int AS n FROM attempts');
    expect(before).toBeGreaterThanOrEqual(KILL_AT);
    expect(before).toBeLessThan(PG_TOTAL);
    expect(before % BATCH).toBe(0); // whole batches only

    const rerun = await ingest({ inputs: [join(dir, 'pg-bundles')], storeUrl, batchSize: BATCH });
    expect(rerun).toMatchObject({
      inserted: PG_TOTAL - before,
      duplicates: before,
      conflicts: [],
      invalid: [],
      unreadable: [],
    });
    const [counts] = await query(
      `SELECT count(*)::int AS n, count(DISTINCT attempt_id)::int AS distinct_ids,
         (SELECT count(*)::int FROM scores) AS scores, (SELECT count(*)::int FROM bundles) AS bundles FROM attempts`,
    );
    expect(counts).toEqual({ n: PG_TOTAL, distinct_ids: PG_TOTAL, scores: PG_TOTAL, bundles: PG_TOTAL });
  }, 180_000);
});
