// An output never replaces an input, in every command that writes one (node's outputConflicts, one
// rule): report --out, report --attempt --out, run --out and merge --out each refuse, exit 2 with
// output_conflicts_input, an output naming the environment file, the SQLite store or its
// -wal/-shm/-journal files, an input record — by name, through a symlink and through a hard link —
// and leave the input as it was (a missing -wal is not created). A table over commands × inputs, run
// in-process (the path rule is the question), on one folder.
import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { evalsInProcess } from './support/evals-in-process.ts';

let dir: string;
const STORE = ['--store', 'sqlite:book.sqlite'];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'evals-outputs-apart-'));
  mkdirSync(join(dir, 'runs'));
  writeFileSync(join(dir, 'runs', 'a0.json'), JSON.stringify(syntheticAttempt({ attemptId: 'a0' })));
  expect((await evalsInProcess(['ingest', 'runs', ...STORE], dir)).status).toBe(0);
  // A first read: what SQLite itself keeps beside the store (-wal, -shm) is there before the rows.
  expect((await evalsInProcess(['grid', ...STORE], dir)).status).toBe(0);
  expect((await evalsInProcess(['init', 'e.yaml'], dir)).status).toBe(0);
  symlinkSync('e.yaml', join(dir, 'e-link.yaml'));
  linkSync(join(dir, 'e.yaml'), join(dir, 'e-hard.yaml'));
  writeFileSync(join(dir, 'shard1.json'), '{"shard":1}');
  writeFileSync(join(dir, 'shard2.json'), '{"shard":2}');
  linkSync(join(dir, 'shard2.json'), join(dir, 'shard2-hard.json'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const RUN = ['run', '--release-dir', 'no-release', '--env', 'e.yaml', '--campaign', 'c1', ...STORE];

/** [what, argv, the input file that must stay as it was, the flag of the input named]. */
const ROWS: [string, string[], string, string][] = [
  [
    'report: --out the --env file',
    ['report', ...STORE, '--env', 'e.yaml', '--format', 'md', '--out', 'e.yaml'],
    'e.yaml',
    '--env',
  ],
  [
    'report: --out a symlink to --env',
    ['report', ...STORE, '--env', 'e.yaml', '--out', 'e-link.yaml'],
    'e.yaml',
    '--env',
  ],
  [
    'report: --out a hard link of --env',
    ['report', ...STORE, '--env', 'e.yaml', '--out', 'e-hard.yaml'],
    'e.yaml',
    '--env',
  ],
  ['report: --out the store', ['report', ...STORE, '--out', 'book.sqlite'], 'book.sqlite', '--store'],
  [
    'report: --out the store -wal',
    ['report', ...STORE, '--out', 'book.sqlite-wal'],
    'book.sqlite',
    '--store',
  ],
  [
    'report: --out the store -shm',
    ['report', ...STORE, '--out', 'book.sqlite-shm'],
    'book.sqlite',
    '--store',
  ],
  [
    'report: --out the store -journal',
    ['report', ...STORE, '--out', 'book.sqlite-journal'],
    'book.sqlite',
    '--store',
  ],
  [
    'report --attempt: --out the --env file',
    ['report', ...STORE, '--env', 'e.yaml', '--attempt', 'a0', '--out', 'e.yaml'],
    'e.yaml',
    '--env',
  ],
  [
    'report --attempt: --out the store -wal',
    ['report', ...STORE, '--attempt', 'a0', '--out', 'book.sqlite-wal'],
    'book.sqlite',
    '--store',
  ],
  ['run: --out the --env file', [...RUN, '--out', 'e.yaml'], 'e.yaml', '--env'],
  ['run: --out a hard link of --env', [...RUN, '--out', 'e-hard.yaml'], 'e.yaml', '--env'],
  ['run: --out the store -wal', [...RUN, '--out', 'book.sqlite-wal'], 'book.sqlite', '--store'],
  ['run: --out a symlink to --env', [...RUN, '--out', 'e-link.yaml'], 'e.yaml', '--env'],
  [
    'merge: --out one of the records',
    ['merge', 'shard1.json', 'shard2.json', '--out', 'shard1.json'],
    'shard1.json',
    '<records...>',
  ],
  [
    'merge: --out a hard link of a record',
    ['merge', 'shard1.json', 'shard2.json', '--out', 'shard2-hard.json'],
    'shard2.json',
    '<records...>',
  ],
  [
    'merge: --out the --store -journal',
    ['merge', 'shard1.json', ...STORE, '--out', 'book.sqlite-journal'],
    'book.sqlite',
    '--store',
  ],
  [
    'merge: --out a --from-store',
    ['merge', 'shard1.json', ...STORE, '--from-store', 'sqlite:other.sqlite', '--out', 'other.sqlite'],
    'shard1.json',
    '--from-store',
  ],
];

describe('when an output names an input of its command', () => {
  it.each(ROWS)(
    '%s: exit 2, output_conflicts_input naming both, the input untouched',
    async (_, args, input, flag) => {
      const before = readFileSync(join(dir, input));
      const companions = ['-wal', '-shm', '-journal'].map((suffix) =>
        existsSync(join(dir, `book.sqlite${suffix}`)),
      );
      const result = await evalsInProcess(args, dir);
      expect(result.status, result.stderr).toBe(2);
      expect(result.stderr).toContain('output_conflicts_input');
      expect(result.stderr).toContain(`names (`);
      expect(result.stderr).toContain(flag);
      expect(readFileSync(join(dir, input))).toEqual(before);
      expect(
        ['-wal', '-shm', '-journal'].map((suffix) => existsSync(join(dir, `book.sqlite${suffix}`))),
      ).toEqual(companions);
    },
  );

  it('an output apart from every input is written (the rule refuses only a conflict)', async () => {
    const result = await evalsInProcess(
      ['report', ...STORE, '--env', 'e.yaml', '--format', 'md', '--out', 'r.md'],
      dir,
    );
    expect(result.status, result.stderr).toBe(0);
    expect(readFileSync(join(dir, 'r.md'), 'utf8').length).toBeGreaterThan(0);
  });
});
