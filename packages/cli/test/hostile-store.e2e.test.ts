// Every valid bundle is storable, through the real `evals` binary, on SQLite and on a real PostgreSQL
// (the test kit's `postgres-server`): the hostile corpus (the test kit's, the same table the
// store suites ingest) is stored or refused as invalid the same way on both — never exit 70 — and
// `evals runs` and `evals report` list its ids; a bundle the store itself refuses (a trigger) is
// reported as not stored (exit 2), and every other bundle of the run is written.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { hostileCorpus } from '@paperclip-evals/test-kit/hostile-bundles';
import { startPostgres } from '@paperclip-evals/test-kit/postgres-server';
import { refuseAttempt } from '@paperclip-evals/test-kit/refuse-attempt';

import type { PostgresServer } from '@paperclip-evals/test-kit/postgres-server';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');

const SERVER_START_MS = 120_000;
const TEST_MS = 120_000;

let dir: string;
let server: PostgresServer | undefined;
let databases = 0;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'evals-hostile-e2e-'));
  mkdirSync(join(dir, 'hostile'));
  for (const entry of hostileCorpus()) writeFileSync(join(dir, 'hostile', `${entry.name}.json`), entry.text);
  mkdirSync(join(dir, 'twenty'));
  for (let index = 0; index < 20; index++) {
    const attemptId = `attempt_${String(index).padStart(2, '0')}`;
    writeFileSync(join(dir, 'twenty', `${attemptId}.json`), JSON.stringify(syntheticAttempt({ attemptId })));
  }
  server = await startPostgres();
}, SERVER_START_MS);
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
}, SERVER_START_MS);

function evals(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(EVALS, args, { cwd: dir, input: '', encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

interface Store {
  readonly name: string;
  /** A fresh, empty store's URL. */
  fresh(): Promise<string>;
}

const STORES: readonly Store[] = [
  { name: 'sqlite', fresh: () => Promise.resolve(`sqlite:${join(dir, `book-${++databases}.sqlite`)}`) },
  { name: 'postgres', fresh: () => (server as PostgresServer).createDatabase(`hostile_${++databases}`) },
];

describe.each(STORES)('evals ingest on $name', { timeout: TEST_MS }, (store) => {
  it('stores the hostile corpus or refuses a bundle as invalid, as the table says; runs and report list its ids', async () => {
    const corpus = hostileCorpus();
    const url = await store.fresh();
    const ingest = evals(['ingest', 'hostile', '--store', url, '--json']);
    expect(ingest.stderr).toBe('');
    expect(ingest.status).toBe(1);
    const summary = JSON.parse(ingest.stdout) as {
      inserted: number;
      invalid: { input: string }[];
      storeRefused: unknown[];
    };
    const stored = corpus.filter((entry) => entry.verdict === 'stored');
    expect(summary.inserted).toBe(stored.length);
    expect(summary.storeRefused).toEqual([]);
    expect(summary.invalid.map((invalid) => basename(invalid.input, '.json')).sort()).toEqual(
      corpus
        .filter((entry) => entry.verdict === 'invalid')
        .map((entry) => entry.name)
        .sort(),
    );
    const identity = (entry: { text: string }): Record<string, string> =>
      (JSON.parse(entry.text) as { identity: Record<string, string> }).identity;
    const runs = evals(['runs', '--store', url, '--json']);
    expect(runs.status).toBe(0);
    expect(
      (JSON.parse(runs.stdout) as { runs: { runId: string }[] }).runs.map((run) => run.runId).sort(),
    ).toEqual([...new Set(stored.map((entry) => identity(entry).runId))].sort());
    const report = evals(['report', '--store', url, '--format', 'json', '--out', '-']);
    expect(report.status).toBe(0);
    const keyText = (key: Record<string, unknown>): string =>
      JSON.stringify([key.runId, key.caseId, key.configId, key.attemptId]);
    expect(
      (JSON.parse(report.stdout) as { attempts: Record<string, unknown>[] }).attempts.map(keyText).sort(),
    ).toEqual(stored.map((entry) => keyText(identity(entry))).sort());
  });

  it('writes the other bundles when the store refuses one, reports it as not stored and exits 2', async () => {
    const url = await store.fresh();
    expect(evals(['ingest', 'twenty/attempt_00.json', '--store', url]).status).toBe(0);
    await refuseAttempt(url, 'attempt_07');
    const human = evals(['ingest', 'twenty', '--store', url]);
    expect(human.status).toBe(2);
    expect(human.stdout).toMatch(
      /not stored +twenty\/attempt_07\.json .*the store refused this valid bundle/,
    );
    expect(human.stdout).toMatch(/store_record_refused/);
    expect(human.stdout).toMatch(
      /18 inserted, 1 duplicate, 0 conflict, 0 invalid, 0 unreadable, 1 not stored/,
    );
    const again = evals(['ingest', 'twenty', '--store', url, '--json']);
    expect(again.status).toBe(2);
    expect(JSON.parse(again.stdout)).toMatchObject({
      exitCode: 2,
      inserted: 0,
      duplicates: 19,
      storeRefused: [
        {
          input: 'twenty/attempt_07.json',
          key: { attemptId: 'attempt_07' },
          error: { code: 'paperclip_evalbook_store_unusable', issues: [{ code: 'store_record_refused' }] },
        },
      ],
    });
  });
});
