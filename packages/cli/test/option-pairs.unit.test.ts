// Options that go together (--a/--b, --a-run/--b-run on compare and report, run's
// --eval-session-bin/--eval-session-sha256): one alone names the missing flag, and a pair that
// compares a thing with itself (a config or run against itself always ties, so a gate would hold on
// nothing) is refused too — each a coded usage error (exit 2) with expected/received and what to do,
// with --json one cli-failure/v1 object, before any store is opened.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { schemaErrors } from '@paperclip-evals/contract';

import { evalsInProcess } from './support/evals-in-process.ts';

const CLI_FAILURE = 'https://paperclip-evals.dev/schemas/cli-failure/v1.json';
// A store that does not exist: a pair error must come first, so the store is never reached.
const STORE = ['--store', 'sqlite:nosuch/s.sqlite'];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evals-option-pairs-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** args, the issue code, its component, what the message must say. */
const ROWS: readonly (readonly [readonly string[], string, string, string])[] = [
  [['--a', 'x'], 'option_pair_incomplete', '--b', '--b is missing'],
  [['--b', 'x'], 'option_pair_incomplete', '--a', '--a is missing'],
  [['--a-run', 'r'], 'option_pair_incomplete', '--b-run', '--b-run is missing'],
  [['--b-run', 'r'], 'option_pair_incomplete', '--a-run', '--a-run is missing'],
  [['--a', 'x', '--b', 'x'], 'option_pair_same', '--a/--b', 'both name "x"'],
  [['--a-run', 'r', '--b-run', 'r'], 'option_pair_same', '--a-run/--b-run', 'both name "r"'],
  [['--a', 'x', '--b', 'y', '--a-run', 'r'], 'option_pairs_conflict', '--a/--b, --a-run/--b-run', 'not both'],
];

describe.each([
  ['compare', ['compare', '--json']],
  ['report', ['report', '--format', 'json', '--out', '-']],
])('evals %s', (_name, command) => {
  it.each(ROWS)('%j: %s at %s', async (args, code, component, says) => {
    const run = await evalsInProcess([...command, ...args, ...STORE], dir);
    expect(run.status).toBe(2);
    if (command.includes('--json')) {
      const failure = JSON.parse(run.stdout) as {
        error: {
          code: string;
          message: string;
          issues: { code: string; component: string; expected: string; received: string }[];
        };
      };
      expect(schemaErrors(CLI_FAILURE, failure)).toEqual([]);
      expect(failure.error.code).toBe('paperclip_cli_usage_invalid');
      expect(failure.error.message).toContain(says);
      expect(failure.error.issues).toMatchObject([
        { code, component, expected: expect.any(String) as unknown, received: expect.any(String) as unknown },
      ]);
    } else {
      expect(run.stderr).toContain(`${code} at ${component}`);
      expect(run.stderr).toContain(says);
    }
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/nosuch/);
  });
});

it('compare with neither pair says what to name', async () => {
  const run = await evalsInProcess(['compare', '--json', ...STORE], dir);
  expect(run.status).toBe(2);
  const failure = JSON.parse(run.stdout) as { error: { issues: { code: string; received: string }[] } };
  expect(failure.error.issues).toMatchObject([{ code: 'option_pair_incomplete', received: 'neither' }]);
});

it('evals run: --eval-session-bin without its digest names the missing flag', async () => {
  const run = await evalsInProcess(
    [
      'run',
      '--json',
      '--env',
      'e.yaml',
      '--release-dir',
      'r',
      '--campaign',
      'c',
      '--eval-session-bin',
      'bin',
    ],
    dir,
  );
  expect(run.status).toBe(2);
  const failure = JSON.parse(run.stdout) as {
    error: { message: string; issues: { code: string; component: string }[] };
  };
  expect(failure.error.message).toContain('--eval-session-sha256 is missing');
  expect(failure.error.issues).toMatchObject([
    { code: 'option_pair_incomplete', component: '--eval-session-sha256' },
  ]);
});
