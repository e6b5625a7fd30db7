// `--out` never destroys a ledger (a new user's review, S1): each command that writes a file a user
// names, given an existing SQLite database there — another Evalbook than the one it reads, here the
// default store — refuses it (exit 2, paperclip_output_unwritable, issue output_is_a_database),
// says nothing was written and what to do, and leaves the database byte for byte: the one writer
// (node's output-file.ts) does it for all. The ledgers still open afterwards (a store is opened,
// never written through --out). In-process, on real SQLite files `evals ingest` made. `evals merge
// --out` writes through the same writer after reading its shards: its row calls that writer
// (campaign's writeCampaignRecord) itself. The command tree says which commands have an --out.
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { writeCampaignRecord } from '@paperclip-evals/campaign';

import { createProgram } from '../src/program.ts';
import { evalsInProcess } from './support/evals-in-process.ts';

import type { CampaignRecord } from '@paperclip-evals/campaign';
import type { Command } from 'commander';

const VALID = fileURLToPath(new URL('../../../fixtures/attempts/valid', import.meta.url));

let dir = '';
const run = (...args: string[]) => evalsInProcess(args, dir);
/** The ledger no command here reads: the one --out names. */
const OTHER = '.evalbook/evalbook.sqlite';
let ledger: Buffer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evals-output-database-'));
  expect((await run('ingest', VALID, '--store', 'sqlite:a.sqlite')).status).toBe(0);
  expect((await run('ingest', VALID, '--store', `sqlite:${OTHER}`)).status).toBe(0);
  ledger = await readFile(join(dir, OTHER));
  expect(ledger.subarray(0, 16).toString('latin1')).toBe('SQLite format 3\0');
  expect((await run('init', 'evalbook.yaml')).status).toBe(0);
  await mkdir(join(dir, 'r4'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Every command with a file output (`--out`, init's path), aimed at the other ledger. */
const COMMANDS: readonly (readonly [string, readonly string[]])[] = [
  ['report --format html', ['report', '--store', 'sqlite:a.sqlite', '--format', 'html', '--out', OTHER]],
  ['report --format csv', ['report', '--store', 'sqlite:a.sqlite', '--format', 'csv', '--out', OTHER]],
  ['report --format json', ['report', '--store', 'sqlite:a.sqlite', '--out', OTHER]],
  ['report --format junit', ['report', '--store', 'sqlite:a.sqlite', '--format', 'junit', '--out', OTHER]],
  [
    'report --attempt',
    ['report', '--store', 'sqlite:a.sqlite', '--attempt', 'attempt_solved_0001', '--out', OTHER],
  ],
  ['qualify', ['qualify', '--release-dir', 'r4', '--out', OTHER]],
  [
    'run',
    [
      'run',
      '--release-dir',
      'r4',
      '--env',
      'evalbook.yaml',
      '--store',
      'sqlite:a.sqlite',
      '--campaign',
      'c3',
      '--out',
      OTHER,
    ],
  ],
  ['init', ['init', OTHER]],
];

describe('--out at an existing SQLite database (another ledger)', () => {
  it.each(COMMANDS)(
    '%s: refused (output_is_a_database, exit 2), the ledger byte for byte',
    async (_name, args) => {
      const answer = await run(...args);
      expect(answer.status).toBe(2);
      expect(answer.stderr).toContain('paperclip_output_unwritable');
      expect(answer.stderr).toContain(`output_is_a_database at ${OTHER}: it is a SQLite database`);
      expect(answer.stderr).toContain(
        'nothing was written: name another file (to replace it, remove it first)',
      );
      expect(await readFile(join(dir, OTHER))).toEqual(ledger);
    },
  );

  it('the --json failure object names the issue', async () => {
    const answer = await run('qualify', '--release-dir', 'r4', '--out', OTHER, '--json');
    expect(JSON.parse(answer.stdout)).toMatchObject({
      exitCode: 2,
      error: {
        code: 'paperclip_output_unwritable',
        issues: [{ code: 'output_is_a_database', component: OTHER }],
      },
    });
  });

  it('publish: a root file that is a SQLite database is not replaced', async () => {
    await mkdir(join(dir, 'site'));
    await cp(join(dir, OTHER), join(dir, 'site', 'history.json'));
    const answer = await run('publish', '--store', 'sqlite:a.sqlite', '--out', 'site');
    expect(answer.status).toBe(2);
    expect(answer.stderr).toContain('output_is_a_database');
    expect(await readFile(join(dir, 'site', 'history.json'))).toEqual(ledger);
  });

  it('both ledgers still open and list their runs: a store is opened, never replaced', async () => {
    for (const store of ['sqlite:a.sqlite', `sqlite:${OTHER}`])
      expect((await run('runs', '--store', store)).status).toBe(0);
    // And a report to a file that is no database is written as before.
    expect(
      (await run('report', '--store', 'sqlite:a.sqlite', '--format', 'csv', '--out', 'b2.csv')).status,
    ).toBe(0);
    expect((await readFile(join(dir, 'b2.csv'), 'utf8')).length).toBeGreaterThan(0);
  });

  it('merge: its record writer (writeCampaignRecord) refuses the ledger as the others do', async () => {
    const record = { campaignId: 'c3' } as CampaignRecord; // refused before a field of it is read
    const error = await writeCampaignRecord(join(dir, OTHER), record).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({
      code: 'paperclip_output_unwritable',
      issues: [{ code: 'output_is_a_database' }],
    });
    expect(await readFile(join(dir, OTHER))).toEqual(ledger);
  });

  it('the rows cover every command the tree gives an --out (and init, whose path is its argument)', () => {
    const named = (command: Command): string[] => [
      ...(command.options.some((option) => option.long === '--out') ? [command.name()] : []),
      ...command.commands.flatMap(named),
    ];
    const withOut = named(createProgram()).sort();
    expect(withOut).toEqual(['merge', 'publish', 'qualify', 'report', 'run']);
    const covered = new Set([...COMMANDS.map(([, args]) => args[0]), 'publish', 'merge']);
    for (const command of withOut) expect(covered).toContain(command);
  });
});
