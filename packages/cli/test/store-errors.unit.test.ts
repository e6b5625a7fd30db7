// A store that is not there, or a store URL of no known kind, is a coded error that says where, what
// was expected and what was received, and what to do — for every command that reads the Evalbook —
// and never shows a password. In-process, in an empty working folder (so the default store is absent).
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { evals } from './support/evals-in-process.ts';

let dir = '';
let previous = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evals-store-errors-'));
  previous = process.cwd();
  process.chdir(dir);
});
afterAll(async () => {
  process.chdir(previous);
  await rm(dir, { recursive: true, force: true });
});

/** Every command that reads the Evalbook, as a new user first types it. */
const READERS: [string, string[]][] = [
  ['report', ['report', '--format', 'md']],
  ['grid', ['grid']],
  ['compare', ['compare', '--a', 'baseline', '--b', 'candidate']],
  ['runs', ['runs']],
  ['report --attempt', ['report', '--attempt', 'a1', '--out', 'a1.html']],
  ['retract', ['retract', '--run', 'r1', '--reason', 'why', '--by', 'me']],
  ['publish', ['publish', '--out', 'site']],
];

describe('no store at the default place: which store, that it is the default, and what to do', () => {
  it.each(READERS)('%s', async (_name, args) => {
    const run = await evals(...args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "  store_missing at .evalbook/evalbook.sqlite: no Evalbook at .evalbook/evalbook.sqlite (the default store: neither --store nor an --env file's `store` key names one): name an existing one with --store sqlite:PATH",
    );
    expect(run.stderr).toMatch(/\(expected a SQLite Evalbook file [^)]*\), received nothing there\)$/m);
  });
});

describe('a store that is not there: where its name came from', () => {
  beforeAll(async () => {
    await mkdir(join(dir, 'w'));
    expect((await evals('init', join('w', 'evalbook.yaml'))).code).toBe(0);
  });

  it('--store names the default store: said to be named by --store, not to be the default', async () => {
    const run = await evals('grid', '--store', 'sqlite:.evalbook/evalbook.sqlite');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no Evalbook at .evalbook/evalbook.sqlite (named by --store): ');
    expect(run.stderr).not.toContain('default store');
  });

  it.each(READERS)(
    '%s --env FILE whose store: names it: the file, and the folder a relative path is read from',
    async (_name, args) => {
      const run = await evals(...args, '--env', join('w', 'evalbook.yaml'));
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(
        `no Evalbook at .evalbook/evalbook.sqlite (the store: of the env file w/evalbook.yaml; a relative path there is read from the working folder, not the file's: here ${join(process.cwd(), '.evalbook/evalbook.sqlite')}): name an existing one with --store sqlite:PATH (or in the store: of w/evalbook.yaml), or make it first`,
      );
      expect(run.stderr).not.toContain('default store');
    },
  );
});

describe('a store named that is not there, or not a store URL', () => {
  it('sqlite:PATH that is not there: not said to be the default', async () => {
    const run = await evals('grid', '--store', 'sqlite:nope.sqlite', '--json');
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({
      error: {
        code: 'paperclip_evalbook_store_unusable',
        issues: [{ code: 'store_missing', component: 'nope.sqlite', received: 'nothing there' }],
      },
    });
    expect(run.stderr).not.toContain('default store');
  });

  it('a bare path: the URL it should have been', async () => {
    const run = await evals('grid', '--store', 'book.sqlite');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      '  store_url_unknown at book.sqlite: unknown store URL "book.sqlite": name a store as sqlite:PATH or postgres://… (this file: sqlite:book.sqlite)',
    );
  });

  it.each([
    ['a URL of another database', 'mysql://root:hunter2@127.0.0.1/db'],
    ['a conninfo', "host=127.0.0.1 user=me password='hunter2' dbname=db"],
  ])('%s: coded, its password never shown, no path suggested', async (_name, url) => {
    const run = await evals('grid', '--store', url, '--json');
    expect(run.code).toBe(2);
    expect(`${run.stdout}${run.stderr}`).not.toContain('hunter2');
    expect(run.stderr).not.toContain('this file: sqlite:');
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { issues: [{ code: 'store_url_unknown' }] } });
  });
});
