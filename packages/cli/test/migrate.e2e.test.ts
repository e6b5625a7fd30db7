// `evals migrate` on the real CLI (bin/evals.js, built): a SQLite store an older Evals made (built
// here by applying only the first migrations, as that Evals did) is refused by a reader, whose
// refusal names `evals migrate --store …`; migrate brings it up (from → to), then readers open it
// and a second migrate has nothing to do. A mistyped path is never created, and a file that is not
// an Evalbook (another program's SQLite, a text file) or a store from a newer Evals is refused and
// left as it was. A PostgreSQL store one migration behind (test-kit's throwaway server) is brought
// up the same way. Every --json output holds to its schema (paperclip-evals/migrate/v1, or the CLI's
// failure object).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { schemaErrors } from '../../contract/src/schema-registry.ts';
import { POSTGRES_MIGRATIONS, migratePostgres } from '../../evalbook/src/ledger/postgres-store.ts';
import { SQLITE_MIGRATIONS, migrate } from '../../evalbook/src/ledger/sqlite-store.ts';
import { startPostgres } from '@paperclip-evals/test-kit/postgres-server';
import { EVALS_BIN, REPO_ROOT } from '@paperclip-evals/test-kit/repo';

import type { PostgresServer } from '@paperclip-evals/test-kit/postgres-server';

/** better-sqlite3 and pg, as the store (evalbook) has them: the CLI does not depend on them. */
const storeRequire = createRequire(join(REPO_ROOT, 'packages/evalbook/package.json'));
const Database = storeRequire('better-sqlite3') as new (
  path: string,
  options?: { readonly readonly?: boolean },
) => Parameters<typeof migrate>[0];
type PoolClient = Parameters<typeof migratePostgres>[0];
const { Pool } = storeRequire('pg') as {
  Pool: new (options: { connectionString: string; max: number }) => {
    connect(): Promise<PoolClient>;
    end(): Promise<void>;
  };
};

const LATEST = Math.max(...SQLITE_MIGRATIONS.map((migration) => migration.version));
const MIGRATE_SCHEMA = 'https://paperclip-evals.dev/schemas/migrate/v1.json';
const FAILURE_SCHEMA = 'https://paperclip-evals.dev/schemas/cli-failure/v1.json';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evals-migrate-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function evals(...args: string[]): { code: number; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [EVALS_BIN, ...args], { cwd: dir, encoding: 'utf8', input: '' });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** A SQLite store as the Evals that knew only the first `known` migrations left it. */
function oldStore(name: string, known: number): string {
  const path = join(dir, name);
  const db = new Database(path);
  migrate(db, SQLITE_MIGRATIONS.slice(0, known));
  db.close();
  return path;
}

const versionsOf = (path: string): number[] => {
  const db = new Database(path, { readonly: true });
  try {
    return db
      .prepare<[], { version: number }>('SELECT version FROM schema_migrations ORDER BY version')
      .all()
      .map((row) => row.version);
  } finally {
    db.close();
  }
};

describe('an old SQLite store', () => {
  it.each([
    ['one migration behind', LATEST - 1],
    ['from the first migration only', 1],
  ])('%s: a reader refuses it naming evals migrate; migrate brings it up once', (_label, known) => {
    const path = oldStore(`old-${known}.sqlite`, known);
    const url = `sqlite:${path}`;
    const refused = evals('runs', '--store', url);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`evals migrate --store sqlite:${path}`);
    expect(refused.stderr).not.toContain('evals ingest` migrates');

    const pending = SQLITE_MIGRATIONS.map((migration) => migration.version).filter((v) => v > known);
    const migrated = evals('migrate', '--store', url);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.stdout.trim()).toBe(
      `migrated ${url} from version ${known} to ${LATEST} (${pending.length} migration${pending.length === 1 ? '' : 's'}: ${pending.join(', ')})`,
    );
    expect(versionsOf(path)).toEqual(SQLITE_MIGRATIONS.map((migration) => migration.version));
    expect(evals('runs', '--store', url).code).toBe(0);

    const again = evals('migrate', '--store', url);
    expect(again.code).toBe(0);
    expect(again.stdout.trim()).toBe(`${url} is already at version ${LATEST}: nothing to do`);
  });

  it('--json: migrated, then up to date, each against its schema', () => {
    const url = `sqlite:${oldStore('json.sqlite', LATEST - 1)}`;
    const first = JSON.parse(evals('migrate', '--store', url, '--json').stdout) as unknown;
    expect(schemaErrors(MIGRATE_SCHEMA, first)).toEqual([]);
    expect(first).toEqual({
      schema: 'paperclip-evals/migrate/v1',
      exitCode: 0,
      store: url,
      status: 'migrated',
      from: LATEST - 1,
      to: LATEST,
      applied: [LATEST],
    });
    const second = JSON.parse(evals('migrate', '--store', url, '--json').stdout) as unknown;
    expect(schemaErrors(MIGRATE_SCHEMA, second)).toEqual([]);
    expect(second).toMatchObject({ status: 'up_to_date', from: LATEST, to: LATEST, applied: [] });
  });

  it("finds the store as other commands do: the environment file's store:", async () => {
    const path = oldStore('from-env.sqlite', LATEST - 1);
    const env = join(dir, 'evalbook.yaml');
    await writeFile(
      env,
      [
        'schema: paperclip-evals/environment/v1',
        'name: migrate',
        `store: sqlite:${path}`,
        'cases: []',
        'configs: []',
        '',
      ].join('\n'),
    );
    const migrated = evals('migrate', '--env', env);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.stdout).toContain(`from version ${LATEST - 1} to ${LATEST}`);
  });
});

describe('what migrate refuses, writing nothing', () => {
  it('a mistyped path: no store is created there (exit 2, the failure object with --json)', () => {
    const path = join(dir, 'evalbok.sqlite');
    const text = evals('migrate', '--store', `sqlite:${path}`);
    expect(text.code).toBe(2);
    expect(text.stderr).toContain(`no Evalbook at ${path}`);
    expect(text.stderr).toContain('migrate creates no store, nothing was written');
    const failure = evals('migrate', '--store', `sqlite:${path}`, '--json');
    expect(failure.code).toBe(2);
    const value = JSON.parse(failure.stdout) as { schema: string; error: { code: string } };
    expect(schemaErrors(FAILURE_SCHEMA, value)).toEqual([]);
    expect(value.schema).toBe('paperclip-evals/migrate/v1');
    expect(value.error.code).toBe('paperclip_evalbook_store_unusable');
    expect(existsSync(path)).toBe(false);
  });

  it("another program's SQLite file: refused, and no Evalbook table is added to it", () => {
    const path = join(dir, 'other.sqlite');
    const db = new Database(path);
    db.exec('CREATE TABLE notes (body TEXT)');
    db.close();
    const result = evals('migrate', '--store', `sqlite:${path}`, '--json');
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('store_not_an_evalbook');
    const after = new Database(path, { readonly: true });
    const tables = after
      .prepare<[], { name: string }>("SELECT name FROM sqlite_schema WHERE type = 'table'")
      .all()
      .map((row) => row.name);
    after.close();
    expect(tables).toEqual(['notes']);
  });

  it.each([
    ['a text file', 'not a database\n'],
    ['an empty file', ''],
  ])('%s: refused, its bytes unchanged', async (_label, content) => {
    const path = join(dir, `text-${content.length}.sqlite`);
    await writeFile(path, content);
    const result = evals('migrate', '--store', `sqlite:${path}`);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/not an Evalbook|not a readable Evalbook/);
    expect(await readFile(path, 'utf8')).toBe(content);
  });

  it('a store from a newer Evals: refused as today (upgrade Evals), left as it was', () => {
    const path = oldStore('future.sqlite', SQLITE_MIGRATIONS.length);
    const db = new Database(path);
    db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'future', 'now')").run(
      LATEST + 1,
    );
    db.close();
    const result = evals('migrate', '--store', `sqlite:${path}`);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('a store from the future');
    expect(versionsOf(path).at(-1)).toBe(LATEST + 1);
  });
});

describe('a PostgreSQL store', () => {
  const LATEST_PG = Math.max(...POSTGRES_MIGRATIONS.map((migration) => migration.version));
  let server: PostgresServer | undefined;
  beforeAll(async () => {
    server = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  }, 120_000);

  it('an old one: migrate applies what is pending and says from → to; a second run has nothing to do', async () => {
    const url = await server!.createDatabase('evalbook_old');
    const pool = new Pool({ connectionString: url, max: 1 });
    const client = await pool.connect();
    try {
      await migratePostgres(client, POSTGRES_MIGRATIONS.slice(0, -1));
    } finally {
      client.release();
      await pool.end();
    }
    const first = evals('migrate', '--store', url, '--json');
    expect(first.code, first.stderr).toBe(0);
    const report = JSON.parse(first.stdout) as unknown;
    expect(schemaErrors(MIGRATE_SCHEMA, report)).toEqual([]);
    expect(report).toMatchObject({
      status: 'migrated',
      from: LATEST_PG - 1,
      to: LATEST_PG,
      applied: [LATEST_PG],
    });
    const again = evals('migrate', '--store', url);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`is already at version ${LATEST_PG}: nothing to do`);
  }, 120_000);
});
