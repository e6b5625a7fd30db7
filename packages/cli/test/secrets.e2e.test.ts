// Secrets stay secret, end to end against a real PostgreSQL that demands a password (scram-sha-256):
// a table of secret-bearing store locators × every output path of the real `evals` binary (ingest
// summary and --json, report json/md/html/junit, grid, compare, their --json) and every error path (a
// wrong password, an unreachable host, a malformed URL, an unknown scheme, a conninfo string): the
// password never appears, and where the store is shown it is shown masked. Then the libpq PG*
// variables as the way to pass credentials without putting them in a locator. Each command runs as
// the real binary once for an open store and once for an unopenable one (what reaches its pipes,
// firstRunSpawned); the other rows, which ask the same command the same question of another locator
// or another form of output, run the binary's main() in-process (support/evals-in-process.ts), where
// everything it prints is watched the same. `engine --stdio` and the PG* variables (a process's
// environment) always run as the binary.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { freePort, startPostgres } from '@paperclip-evals/test-kit/postgres-server';
import { firstRunSpawned } from './support/evals-in-process.ts';

import type { PostgresServer } from '@paperclip-evals/test-kit/postgres-server';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');
/** The server's password: URL-special characters, so both its written and its decoded form are watched. */
const PASSWORD = 'S3kr1t:p@ss/w#rd';
const ENCODED = encodeURIComponent(PASSWORD);
const SSL_PASSWORD = 'KeyPhrase-77q';

let server: PostgresServer;
let dir: string;
let database = 0;

beforeAll(async () => {
  server = await startPostgres({ password: PASSWORD });
  dir = mkdtempSync(join(tmpdir(), 'evals-secrets-e2e-'));
  mkdirSync(join(dir, 'attempts'));
  writeFileSync(join(dir, 'policy.json'), '{}');
  for (const configId of ['baseline', 'candidate'])
    for (let index = 0; index < 2; index++)
      writeFileSync(
        join(dir, 'attempts', `${configId}-${index}.json`),
        JSON.stringify(syntheticAttempt({ configId, attemptId: `${configId}_${index}` })),
      );
}, 120_000);
afterAll(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  readonly status: number | null;
  /** stdout and stderr together: a secret must be in neither. */
  readonly output: string;
  readonly stdout: string;
}

/** The environment without any PG* variable of the machine running the tests. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PG')));
  return { ...env, NO_COLOR: '1', ...extra };
}

function evals(args: string[], env: NodeJS.ProcessEnv = cleanEnv()): Run {
  const result = spawnSync(EVALS, args, { cwd: dir, input: '', encoding: 'utf8', env });
  return { status: result.status, output: `${result.stdout}\n${result.stderr}`, stdout: result.stdout };
}

/** The machine's PG* variables unset: an in-process run sees the environment cleanEnv() spawns with. */
const NO_PG = Object.fromEntries(
  Object.keys(process.env)
    .filter((name) => name.startsWith('PG'))
    .map((name) => [name, undefined]),
);

/**
 * `evals ARGS` for a table's rows: the first run of each command is the real binary (with
 * cleanEnv()), every later one its main() in this process without the machine's PG* variables.
 */
function tableRuns(): (args: string[]) => Promise<Run> {
  const run = firstRunSpawned(
    (args) => {
      const result = spawnSync(EVALS, args, { cwd: dir, input: '', encoding: 'utf8', env: cleanEnv() });
      return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
    },
    () => dir,
    { ...NO_PG, NO_COLOR: '1' },
  );
  return async (args) => {
    const result = await run(args);
    // A row that watched nothing would pass: every command here prints something.
    expect(`${result.stdout}${result.stderr}`, `evals ${args.join(' ')} printed nothing`).not.toBe('');
    return { status: result.status, output: `${result.stdout}\n${result.stderr}`, stdout: result.stdout };
  };
}

/** The rows over stores that open: each command's first run is a process. */
const openedRun = tableRuns();
/** The rows over stores that cannot be opened (the error paths): each command's first run is a process. */
const unopenableRun = tableRuns();

async function newDatabase(): Promise<string> {
  const name = `secrets_${++database}`;
  await server.createDatabase(name);
  return name;
}

function expectNoSecret(run: Run): void {
  for (const secret of [PASSWORD, ENCODED, SSL_PASSWORD]) expect(run.output).not.toContain(secret);
}

/** Secret-bearing locators of one database, with the form the store must be shown in. */
const LOCATORS: readonly {
  readonly name: string;
  readonly url: (db: string) => string;
  readonly masked: (db: string) => string;
}[] = [
  {
    name: 'a password in the userinfo',
    url: (db) => `postgres://postgres:${ENCODED}@127.0.0.1:${server.port}/${db}`,
    masked: (db) => `postgres://postgres:***@127.0.0.1:${server.port}/${db}`,
  },
  {
    name: 'password= in the query string',
    url: (db) => `postgresql://postgres@127.0.0.1:${server.port}/${db}?password=${ENCODED}`,
    masked: (db) => `postgresql://postgres@127.0.0.1:${server.port}/${db}?password=***`,
  },
  {
    name: 'a password and an sslpassword',
    url: (db) =>
      `postgres://postgres:${ENCODED}@127.0.0.1:${server.port}/${db}?sslmode=disable&sslpassword=${SSL_PASSWORD}`,
    masked: (db) => `postgres://postgres:***@127.0.0.1:${server.port}/${db}?sslmode=disable&sslpassword=***`,
  },
];

describe.each(LOCATORS)('when the store locator carries $name', ({ url, masked }) => {
  const evals = openedRun;
  let store: string;
  let shown: string;
  beforeAll(async () => {
    const db = await newDatabase();
    store = url(db);
    shown = masked(db);
    const ingested = await evals(['ingest', 'attempts', '--store', store]);
    expect(ingested.status, ingested.output).toBe(0);
  }, 60_000);

  it('ingest prints the store masked in its summary', async () => {
    const run = await evals(['ingest', 'attempts', '--store', store]);
    expect(run.status, run.output).toBe(0);
    expectNoSecret(run);
    expect(run.stdout).toContain(`${shown}: 0 inserted, 4 duplicate`);
  });

  it('ingest --json names the store masked', async () => {
    const run = await evals(['ingest', 'attempts', '--store', store, '--json']);
    expectNoSecret(run);
    expect((JSON.parse(run.stdout) as { store: string }).store).toBe(shown);
  });

  it.each(['json', 'html'] as const)('report --format %s shows the store masked', async (format) => {
    const run = await evals([
      'report',
      '--format',
      format,
      '--store',
      store,
      '--a',
      'baseline',
      '--b',
      'candidate',
    ]);
    expect(run.status, run.output).toBe(0);
    expectNoSecret(run);
    if (format === 'json') expect((JSON.parse(run.stdout) as { store: string }).store).toBe(shown);
    else expect(run.stdout).toContain(`Store <code>${shown.replaceAll('&', '&amp;')}</code>`);
  });

  it.each(['md', 'junit'] as const)('report --format %s holds no secret', async (format) => {
    const run = await evals([
      'report',
      '--format',
      format,
      '--store',
      store,
      '--a',
      'baseline',
      '--b',
      'candidate',
    ]);
    expect(run.status, run.output).toBe(0);
    expectNoSecret(run);
  });

  it('report --out says where it wrote without the secret', async () => {
    const run = await evals(['report', '--format', 'html', '--store', store, '--out', 'report.html']);
    expect(run.status, run.output).toBe(0);
    expectNoSecret(run);
  });

  it.each([[[]], [['--json']]])('grid and compare %j hold no secret', async (extra) => {
    for (const args of [
      ['grid', '--store', store, ...extra],
      ['compare', '--a', 'baseline', '--b', 'candidate', '--store', store, ...extra],
    ]) {
      const run = await evals(args);
      expect(run.status, run.output).toBe(0);
      expectNoSecret(run);
    }
  });

  it('a reading command on a config it does not know fails without the secret (and --json says so)', async () => {
    const run = await evals(['compare', '--a', 'baseline', '--b', 'nope', '--store', store, '--json']);
    expect(run.status).toBe(2);
    expectNoSecret(run);
  });
});

describe('when the store cannot be opened', () => {
  const cases: readonly { name: string; store: () => Promise<string>; says: RegExp }[] = [
    {
      name: 'a wrong password',
      store: async () => `postgres://postgres:${ENCODED}x@127.0.0.1:${server.port}/${await newDatabase()}`,
      says: /password authentication failed/,
    },
    {
      name: 'an unreachable host',
      store: async () => `postgres://postgres:${ENCODED}@127.0.0.1:${await freePort()}/db`,
      says: /ECONNREFUSED.*is PostgreSQL running and listening on that host and port\?/,
    },
    {
      name: 'a database the server does not have',
      store: async () =>
        `postgres://postgres:${ENCODED}@127.0.0.1:${server.port}/${await newDatabase()}_missing`,
      says: /does not exist \(the server has no such database: create it/,
    },
    {
      name: 'a URL whose password is not percent-encoded',
      store: () => Promise.resolve(`postgres://postgres:${PASSWORD}@127.0.0.1:${server.port}/db`),
      says: /has an @ after its host: percent-encode the password/,
    },
    {
      name: 'an unknown scheme',
      store: () => Promise.resolve(`mysql://root:${ENCODED}@127.0.0.1/db`),
      says: /unknown store URL "mysql:\/\/root:\*\*\*@127\.0\.0\.1\/db"/,
    },
    {
      name: 'a keyword/value conninfo',
      store: () => Promise.resolve(`host=127.0.0.1 user=postgres password='${PASSWORD}' dbname=db`),
      says: /password=\*\*\*/,
    },
  ];
  describe.each(cases)('with $name', ({ store, says }) => {
    it.each(
      [
        ['ingest', 'attempts'],
        ['ingest', 'attempts', '--json'],
        ['report', '--format', 'json'],
        ['grid'],
        ['grid', '--json'],
        ['compare', '--a', 'baseline', '--b', 'candidate', '--json'],
        ['engine', '--stdio'],
        ['policy', 'replay', '--policy-binary', 'nope', '--sha256', `sha256:${'0'.repeat(64)}`].concat([
          '--bundle',
          'policy.json',
          '--json',
        ]),
      ].map((args) => ({ args, command: args.slice(0, 3).join(' ') })),
    )('$command: exit 2, the reason, no secret', async ({ args }) => {
      // engine --stdio serves this process's stdio: always the binary.
      const withStore = [...args, '--store', await store()];
      const run = args[0] === 'engine' ? evals(withStore) : await unopenableRun(withStore);
      expect(run.status, run.output).toBe(2);
      expect(run.output).toMatch(says);
      expectNoSecret(run);
      if (args.includes('--json') && args[0] !== 'ingest' && args[0] !== 'policy') {
        const failure = JSON.parse(run.stdout) as { exitCode: number; error: { message: string } };
        expect(failure.exitCode).toBe(2);
        expect(failure.error.message).toMatch(says);
      }
    });
  });

  it('an environment file whose store carries a password is masked too', async () => {
    const db = await newDatabase();
    writeFileSync(
      join(dir, 'wrong.yaml'),
      `schema: paperclip-evals/environment/v1\nname: wrong\nstore: postgres://postgres:${ENCODED}x@127.0.0.1:${server.port}/${db}\ncases: []\nconfigs: []\n`,
    );
    // Refused as not of the suite before the store is opened: the summary names the store masked.
    const refused = evals(['ingest', 'attempts', '--env', 'wrong.yaml']);
    expect(refused.status, refused.output).toBe(1);
    expectNoSecret(refused);
    expect(refused.stdout).toContain(`postgres://postgres:***@127.0.0.1:${server.port}/${db}`);
    const run = evals(['ingest', 'attempts', '--env', 'wrong.yaml', '--keep-foreign']);
    expect(run.status, run.output).toBe(2);
    expect(run.output).toMatch(/password authentication failed/);
    expect(run.output).toContain(`postgres://postgres:***@127.0.0.1:${server.port}/${db}`);
    expectNoSecret(run);
  });
});

describe('when credentials come from the libpq PG* variables', () => {
  it('PGUSER and PGPASSWORD authenticate postgres://host:port/db (no userinfo)', async () => {
    const db = await newDatabase();
    const run = evals(
      ['ingest', 'attempts', '--store', `postgres://127.0.0.1:${server.port}/${db}`],
      cleanEnv({ PGUSER: 'postgres', PGPASSWORD: PASSWORD }),
    );
    expect(run.status, run.output).toBe(0);
    expect(run.stdout).toContain(`postgres://127.0.0.1:${server.port}/${db}: 4 inserted`);
    expectNoSecret(run);
  });

  it('PGHOST, PGPORT, PGUSER and a PGPASSFILE serve postgres:///db', async () => {
    const db = await newDatabase();
    const passfile = join(dir, 'pgpass');
    writeFileSync(passfile, `127.0.0.1:${server.port}:*:postgres:${PASSWORD.replaceAll(':', '\\:')}\n`);
    chmodSync(passfile, 0o600);
    const env = cleanEnv({
      PGHOST: '127.0.0.1',
      PGPORT: String(server.port),
      PGUSER: 'postgres',
      PGPASSFILE: passfile,
    });
    const ingested = evals(['ingest', 'attempts', '--store', `postgres:///${db}`], env);
    expect(ingested.status, ingested.output).toBe(0);
    const grid = evals(['grid', '--json', '--store', `postgres:///${db}`], env);
    expect(grid.status, grid.output).toBe(0);
    expect((JSON.parse(grid.stdout) as { configs: string[] }).configs).toEqual(['baseline', 'candidate']);
  });

  it('without a password the server refuses, and a wrong PGPASSWORD is never echoed', async () => {
    const db = await newDatabase();
    const store = `postgres://postgres@127.0.0.1:${server.port}/${db}`;
    const none = evals(['ingest', 'attempts', '--store', store]);
    expect(none.status, none.output).toBe(2);
    expect(none.output).toMatch(/password/);
    const wrong = evals(['ingest', 'attempts', '--store', store], cleanEnv({ PGPASSWORD: `${PASSWORD}x` }));
    expect(wrong.status, wrong.output).toBe(2);
    expect(wrong.output).toMatch(/password authentication failed/);
    expectNoSecret(wrong);
  });

  it('PGSERVICE (which node-postgres would ignore) is refused, not silently skipped', async () => {
    const db = await newDatabase();
    const run = evals(
      ['ingest', 'attempts', '--store', `postgres://127.0.0.1:${server.port}/${db}`],
      cleanEnv({ PGSERVICE: 'evalbook', PGUSER: 'postgres', PGPASSWORD: PASSWORD }),
    );
    expect(run.status, run.output).toBe(2);
    expect(run.output).toMatch(/PGSERVICE is set, but PostgreSQL connection service files are not read/);
  });
});
