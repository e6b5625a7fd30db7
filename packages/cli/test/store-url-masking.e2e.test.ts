// No command prints a store's password, against a real PostgreSQL that demands one: every command
// that takes --store (found from the program itself, so a new one cannot be left out) runs as the
// real binary with a password-bearing locator in both forms (userinfo, and `?user=…&password=…`),
// once with the right password (its text, its --json, the files it writes) and once with a wrong
// one (its error): the password is in none of stdout, stderr or a written file, and where `runs` and
// `retract` name the store they name it masked. The wrong password's error keeps the text after the
// masked URL (`…password=***: password authentication failed`). The first run of each command with
// each password is the binary, later ones in-process (the same printing path), to spare a process a row.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { startPostgres } from '@paperclip-evals/test-kit/postgres-server';

import type { PostgresServer } from '@paperclip-evals/test-kit/postgres-server';
import type { Command } from 'commander';

import { createProgram } from '../src/program.ts';
import { evalsInProcess } from './support/evals-in-process.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');
const PASSWORD = 'Pw5ecretZq81';
const WRONG = 'Wr0ngPassQ77';

let server: PostgresServer;
let dir: string;

beforeAll(async () => {
  server = await startPostgres({ password: PASSWORD });
  dir = mkdtempSync(join(tmpdir(), 'evals-store-masking-'));
  mkdirSync(join(dir, 'attempts'));
  for (const configId of ['baseline', 'candidate'])
    writeFileSync(
      join(dir, 'attempts', `${configId}.json`),
      JSON.stringify(syntheticAttempt({ runId: 'run_1', configId, attemptId: `${configId}_0` })),
    );
}, 120_000);
afterAll(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

const FORMS = {
  userinfo: (password: string, db: string) =>
    `postgres://postgres:${password}@127.0.0.1:${server.port}/${db}`,
  query: (password: string, db: string) =>
    `postgres://127.0.0.1:${server.port}/${db}?user=postgres&password=${password}`,
} as const;

/** Every command that takes a store locator, by its name in `evals --help` (`policy replay`). */
function storeCommands(): string[] {
  const found: string[] = [];
  const walk = (command: Command, prefix: string): void => {
    for (const sub of command.commands) {
      const name = `${prefix}${sub.name()}`;
      if (sub.options.some((option) => option.long?.endsWith('store') === true)) found.push(name);
      walk(sub, `${name} `);
    }
  };
  walk(createProgram(), '');
  return found.sort();
}

/** Each store command's runs for a locator: what it prints and writes (under out/) with that store. */
const RUNS: Record<string, (store: string) => string[][]> = {
  ingest: (store) => [
    ['ingest', 'attempts', '--store', store],
    ['ingest', 'attempts', '--store', store, '--json'],
  ],
  report: (store) => [
    ['report', '--store', store],
    ['report', '--store', store, '--format', 'md'],
    ['report', '--store', store, '--format', 'html', '--out', 'out/report.html'],
    ['report', '--store', store, '--attempt', 'baseline_0', '--out', 'out/attempt.html'],
  ],
  grid: (store) => [
    ['grid', '--store', store],
    ['grid', '--store', store, '--json'],
  ],
  compare: (store) => [
    ['compare', '--a', 'baseline', '--b', 'candidate', '--store', store],
    ['compare', '--a', 'baseline', '--b', 'candidate', '--store', store, '--json'],
  ],
  engine: (store) => [['engine', '--stdio', '--store', store]],
  'policy replay': (store) => [['policy', 'replay', '--store', store, '--json']],
  retract: (store) => [
    ['retract', '--run', 'run_1', '--attempt', 'baseline_0', '--reason', 'r', '--by', 'me', '--store', store],
    [
      'retract',
      '--run',
      'run_1',
      '--attempt',
      'baseline_0',
      '--reason',
      'r',
      '--by',
      'me',
      '--store',
      store,
      '--json',
    ],
  ],
  migrate: (store) => [
    ['migrate', '--store', store],
    ['migrate', '--store', store, '--json'],
  ],
  runs: (store) => [
    ['runs', '--store', store],
    ['runs', '--store', store, '--json'],
  ],
  run: (store) => [['run', '--env', 'nosuch.yaml', '--store', store]],
  merge: (store) => [
    ['merge', 'nosuch.json', '--store', store, '--from-store', store, '--out', 'out/merged.json'],
  ],
  publish: (store) => [['publish', '--store', store, '--out', 'out/site']],
};

/** Commands that stay processes on every run: they read stdin or run processes of their own. */
const ALWAYS_SPAWNED = new Set(['engine', 'policy', 'run']);
/** Which (command, password) pairs have run as the binary in this file. */
const spawnedOnce = new Set<string>();
const withoutPg = Object.fromEntries(
  Object.keys(process.env)
    .filter((name) => name.startsWith('PG'))
    .map((name) => [name, undefined]),
);

/**
 * stdout, stderr and every file under out/, as one text. The first run of each command with each
 * password (the right one, the wrong one) is the real binary; later ones the program in-process
 * (evals-in-process.ts), which prints through the same sink — so every command's masking is still
 * seen from a process, and each row costs no process start.
 */
async function runEvals(args: string[]): Promise<{ status: number | null; stdout: string; seen: string }> {
  rmSync(join(dir, 'out'), { recursive: true, force: true });
  mkdirSync(join(dir, 'out'));
  const command = args[0] ?? '';
  const key = `${command} ${args.some((arg) => arg.includes(WRONG)) ? 'wrong' : 'right'}`;
  let result: { status: number | null; stdout: string; stderr: string };
  if (ALWAYS_SPAWNED.has(command) || !spawnedOnce.has(key)) {
    spawnedOnce.add(key);
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PG')));
    result = spawnSync(EVALS, args, {
      cwd: dir,
      input: '',
      encoding: 'utf8',
      env: { ...env, NO_COLOR: '1' },
    });
  } else result = await evalsInProcess(args, dir, { ...withoutPg, NO_COLOR: '1' });
  const files: string[] = [];
  const walk = (path: string): void => {
    for (const name of readdirSync(path)) {
      const child = join(path, name);
      if (statSync(child).isDirectory()) walk(child);
      else files.push(readFileSync(child, 'utf8'));
    }
  };
  walk(join(dir, 'out'));
  return {
    status: result.status,
    stdout: result.stdout,
    seen: [result.stdout, result.stderr, ...files].join('\n'),
  };
}

it('the table covers every command that takes a store', () => {
  expect(Object.keys(RUNS).sort()).toEqual(storeCommands());
});

let database = 0;
describe.each(Object.keys(FORMS) as (keyof typeof FORMS)[])('a password in the %s', (form) => {
  let db: string;
  beforeAll(async () => {
    db = `masking_${++database}`;
    await server.createDatabase(db);
  });

  it.each(Object.keys(RUNS))('%s never shows the password, in what it prints or writes', async (command) => {
    const store = FORMS[form](PASSWORD, db);
    for (const args of RUNS[command]!(store)) {
      const run = await runEvals(args);
      expect(run.seen, args.join(' ')).not.toContain(PASSWORD);
    }
  });

  it('runs and retract name the store masked', async () => {
    const store = FORMS[form](PASSWORD, db);
    const shown = FORMS[form]('***', db);
    expect((await runEvals(['runs', '--store', store])).stdout).toContain(`in ${shown}.`);
    expect(
      (JSON.parse((await runEvals(['runs', '--store', store, '--json'])).stdout) as { store: string }).store,
    ).toBe(shown);
    const retracted = await runEvals([
      'retract',
      '--run',
      'run_1',
      '--reason',
      'r',
      '--by',
      'me',
      '--store',
      store,
      '--json',
    ]);
    expect(retracted.status, retracted.seen).toBe(0);
    expect((JSON.parse(retracted.stdout) as { store: string }).store).toBe(shown);
  });

  it.each(Object.keys(RUNS))(
    '%s with a wrong password: the error shows neither password',
    async (command) => {
      const store = FORMS[form](WRONG, db);
      for (const args of RUNS[command]!(store)) {
        const run = await runEvals(args);
        expect(run.seen, args.join(' ')).not.toContain(WRONG);
        expect(run.seen, args.join(' ')).not.toContain(PASSWORD);
      }
    },
  );

  it('the error keeps what follows the masked locator', async () => {
    const run = await runEvals(['runs', '--store', FORMS[form](WRONG, db)]);
    expect(run.status).not.toBe(0);
    expect(run.seen).toMatch(/\*\*\*(?:@[^\s:]+:\d+\/\w+)?: /);
  });
});
