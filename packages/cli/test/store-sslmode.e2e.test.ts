// A PostgreSQL store URL with sslmode=prefer, require or verify-ca: node-postgres 8 reads them as
// verify-full and says so with a "SECURITY WARNING" through process.emitWarning, which Node printed on
// the user's stderr with a `--trace-warnings` hint. The store hands the driver sslmode=verify-full
// for them (the same connection), so no warning is printed; when the connection then fails for TLS
// (the test server has none), the store error says how the mode was read and what to do. The real
// binary against a real server, one process per row (the driver warns once a process).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { startPostgres } from '@paperclip-evals/test-kit/postgres-server';

import type { PostgresServer } from '@paperclip-evals/test-kit/postgres-server';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');

let server: PostgresServer;
let dir: string;
let database: string;

beforeAll(async () => {
  server = await startPostgres();
  database = await server.createDatabase('sslmode');
  dir = mkdtempSync(join(tmpdir(), 'evals-sslmode-'));
  mkdirSync(join(dir, 'attempts'));
  writeFileSync(join(dir, 'attempts', 'a.json'), JSON.stringify(syntheticAttempt({ runId: 'run_1' })));
}, 120_000);
afterAll(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

const withoutPg = Object.fromEntries(
  Object.keys(process.env)
    .filter((name) => name.startsWith('PG'))
    .map((name) => [name, undefined]),
);

function ingest(query: string, env: Record<string, string> = {}): { status: number | null; stderr: string } {
  const store = `${database}?${query}`;
  const result = spawnSync(EVALS, ['ingest', 'attempts', '--store', store], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, ...withoutPg, ...env, NODE_OPTIONS: '' },
    timeout: 60_000,
  });
  return { status: result.status, stderr: result.stderr };
}

/** What Node prints for a process warning, and what node-postgres's says. */
const expectNoDriverWarning = (stderr: string): void => {
  expect(stderr).not.toContain('SECURITY WARNING');
  expect(stderr).not.toContain('Warning:');
  expect(stderr).not.toContain('--trace-warnings');
};

describe('a store URL with an SSL mode node-postgres reads as verify-full', () => {
  it.each(['require', 'prefer', 'verify-ca'])(
    'sslmode=%s: no driver warning; the TLS failure says how the mode was read',
    (mode) => {
      const run = ingest(`sslmode=${mode}`);
      expectNoDriverWarning(run.stderr);
      expect(run.status, run.stderr).toBe(2);
      expect(run.stderr).toContain('paperclip_evalbook_store_unusable');
      expect(run.stderr).toContain(`sslmode=${mode} is read as verify-full`);
      expect(run.stderr).toContain('sslmode=disable for a server without TLS');
    },
  );

  it('PGSSLMODE=require: no driver warning, and the same explanation', () => {
    const run = ingest('application_name=evals', { PGSSLMODE: 'require' });
    expectNoDriverWarning(run.stderr);
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toContain('sslmode=require is read as verify-full');
  });

  it('uselibpqcompat=true&sslmode=require (libpq’s meaning, asked for): handed on, no warning', () => {
    const run = ingest('uselibpqcompat=true&sslmode=require');
    expectNoDriverWarning(run.stderr);
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).not.toContain('is read as verify-full');
  });

  it('sslmode=disable: ingests, and prints no warning', () => {
    const run = ingest('sslmode=disable');
    expectNoDriverWarning(run.stderr);
    expect(run.status, run.stderr).toBe(0);
  });
});
