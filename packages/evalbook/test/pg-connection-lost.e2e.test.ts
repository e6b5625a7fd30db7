// A PostgreSQL server that drops the connection mid-batch (a real server: the batch's own INSERT
// terminates its backend, deterministically, from a trigger): ingest must end with the store's coded
// error (store_unreachable, exit 2 in the CLI), never crash the process with node-postgres's
// unhandled 'error' event; nothing of the dropped batch is kept, every earlier batch is, and the
// same ingest again (the server fine) completes it with every attempt exactly once.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { isDriverFailure, postgresFailure } from '../src/ledger/postgres-store.ts';
import { ingest } from '../src/ledger/ingest.ts';
import { STORE_UNUSABLE, isEvalbookError } from '../src/errors.ts';
import { tempDir, writeBundles } from '@paperclip-evals/test-kit/bundle-files';
import { startPostgres } from '@paperclip-evals/test-kit/postgres-server';

import type { PostgresServer } from '@paperclip-evals/test-kit/postgres-server';

const TOTAL = 30;
const BATCH = 10;

let dir: string;
let cleanup: () => Promise<void>;
let server: PostgresServer | undefined;
beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('evalbook-pg-lost-'));
  await mkdir(join(dir, 'bundles'));
  await writeBundles(join(dir, 'bundles'), TOTAL);
  server = await startPostgres();
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await cleanup();
}, 120_000);

async function admin<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

describe('a PostgreSQL connection lost mid-batch', () => {
  it('is the coded store_unreachable error, not a crash; earlier batches kept whole; a rerun completes', async () => {
    const url = await (server as PostgresServer).createDatabase('evalbook_lost');
    const inputs = [join(dir, 'bundles')];
    // The store's tables exist after a first ingest of nothing new (an empty folder).
    await mkdir(join(dir, 'none'));
    await ingest({ inputs: [join(dir, 'none')], storeUrl: url });
    // The third batch's INSERT into attempts kills its own backend: the connection drops mid-batch.
    await admin(
      url,
      `CREATE TABLE drop_after (n integer);
       CREATE FUNCTION drop_connection() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF (SELECT count(*) FROM attempts) >= ${2 * BATCH} THEN PERFORM pg_terminate_backend(pg_backend_pid()); END IF;
         RETURN NEW;
       END $$;
       CREATE TRIGGER drop_connection BEFORE INSERT ON attempts FOR EACH STATEMENT EXECUTE FUNCTION drop_connection();`,
    );
    const failure = await ingest({ inputs, storeUrl: url, batchSize: BATCH }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isEvalbookError(failure, STORE_UNUSABLE)).toBe(true);
    expect(JSON.stringify((failure as { issues: unknown }).issues)).toContain('store_unreachable');
    const [{ n }] = (await admin<{ n: string }>(url, 'SELECT count(*) AS n FROM attempts')) as [
      { n: string },
    ];
    expect(Number(n)).toBe(2 * BATCH);

    await admin(url, 'DROP TRIGGER drop_connection ON attempts');
    const summary = await ingest({ inputs, storeUrl: url, batchSize: BATCH });
    expect({ inserted: summary.inserted, duplicates: summary.duplicates }).toEqual({
      inserted: TOTAL - 2 * BATCH,
      duplicates: 2 * BATCH,
    });
  }, 60_000);
});

describe("the driver's lost-connection errors", () => {
  // What node-postgres says of a connection that is gone: on the query in flight, and on every
  // later query of the same client. Each is a driver failure, coded store_unreachable.
  it.each([
    'Connection terminated unexpectedly',
    'Connection terminated',
    'Client has encountered a connection error and is not queryable',
    'Client was closed and is not queryable',
  ])('%s', (message) => {
    const error = new Error(message);
    expect(isDriverFailure(error)).toBe(true);
    const coded = postgresFailure(error);
    expect(coded.issues.map((issue) => issue.code)).toEqual(['store_unreachable']);
  });
});
