// Every failure a user can cause carries a code: one failing invocation of each command, run
// in-process, and what it prints. In text, stderr's first line names the code; with --json, stdout
// is the one {schema, exitCode, error} object of schemas/evals/cli-failure-v1.schema.json, with a
// non-null code (runnerd inspect and negotiate print their own {ok: false, code, …}: their schemas).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { schemaErrors } from '@paperclip-evals/contract';

import { evalsInProcess } from './support/evals-in-process.ts';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const VALID = join(REPO, 'fixtures/attempts/valid');
const DEMO_ENV = join(REPO, 'fixtures/environments/demo/evalbook.yaml');
const CLI_FAILURE = 'https://paperclip-evals.dev/schemas/cli-failure/v1.json';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evals-failures-'));
  await writeFile(join(dir, 'existing.yaml'), 'kept\n');
  const ingest = await evalsInProcess(['ingest', VALID, '--store', 'sqlite:s.sqlite'], dir);
  expect(ingest.status).toBe(0);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const STORE = ['--store', 'sqlite:s.sqlite'];

/** One failing invocation per command (and each the new-user review named), with the code it must carry. */
const ROWS: readonly (readonly [string, readonly string[], string])[] = [
  ['validate: stdin twice', ['validate', '-', '-'], 'paperclip_cli_usage_invalid'],
  [
    'ingest: a store in a missing folder',
    ['ingest', VALID, '--store', 'sqlite:nosuch/s.sqlite'],
    'paperclip_output_unwritable',
  ],
  [
    'ingest: an environment that is not there',
    ['ingest', VALID, ...STORE, '--env', 'nosuch.yaml'],
    'paperclip_contract_document_invalid',
  ],
  ['grid: a run it lacks', ['grid', ...STORE, '--run', 'nosuch'], 'paperclip_evalbook_scope_unknown'],
  [
    'compare: a config it lacks',
    ['compare', ...STORE, '--a', 'config_synthetic', '--b', 'nosuch'],
    'paperclip_evalbook_scope_unknown',
  ],
  [
    'compare: a run it lacks',
    ['compare', ...STORE, '--a-run', 'run_synthetic', '--b-run', 'nosuch'],
    'paperclip_evalbook_scope_unknown',
  ],
  [
    'compare: configs and runs at once',
    ['compare', ...STORE, '--a', 'x', '--b', 'y', '--a-run', 'r'],
    'paperclip_cli_usage_invalid',
  ],
  [
    'runs: no store there',
    ['runs', '--store', 'sqlite:nosuch/s.sqlite'],
    'paperclip_evalbook_store_unusable',
  ],
  ['retract: no --reason', ['retract', ...STORE, '--run', 'R'], 'paperclip_cli_usage_invalid'],
  [
    'retract: an attempt it lacks',
    ['retract', ...STORE, '--run', 'run_synthetic', '--attempt', 'nosuch', '--reason', 'x', '--by', 'me'],
    'paperclip_evalbook_retraction_refused',
  ],
  [
    'retract: a run it lacks',
    ['retract', ...STORE, '--run', 'nosuch', '--reason', 'x', '--by', 'me'],
    'paperclip_evalbook_retraction_refused',
  ],
  ['digest: a file that is not there', ['digest', 'nosuch.json'], 'paperclip_cli_input_unreadable'],
  [
    'qualify: a release folder that is not there',
    ['qualify', '--release-dir', 'nosuch'],
    'paperclip_app_input_invalid',
  ],
  ['publish --verify: no site there', ['publish', '--verify', 'nosuch'], 'paperclip_app_input_invalid'],
  [
    'run --plan: a lane it lacks',
    ['run', '--plan', '--env', DEMO_ENV, '--campaign', 'c1', '--lanes', 'nosuch'],
    'campaign_suite_invalid',
  ],
  [
    'merge: a shard that is not there',
    ['merge', 'nosuch.json', '--out', 'm.json'],
    'campaign_record_invalid',
  ],
  [
    'policy replay: no store there',
    [
      'policy',
      'replay',
      '--store',
      'sqlite:nosuch/s.sqlite',
      '--policy-binary',
      'nosuch',
      '--sha256',
      `sha256:${'0'.repeat(64)}`,
      '--bundle',
      'nosuch.json',
    ],
    'paperclip_cli_input_unreadable',
  ],
];

/** Text-only failures the review named (report has no --json; init writes no JSON). */
const TEXT_ROWS: readonly (readonly [string, readonly string[], string])[] = [
  ['report: a run it lacks', ['report', ...STORE, '--run', 'nosuchrun'], 'paperclip_evalbook_scope_unknown'],
  [
    'report: an attempt it lacks',
    ['report', ...STORE, '--attempt', 'nosuch', '--out', 'a.html'],
    'paperclip_evalbook_scope_unknown',
  ],
  ['init: a file already there', ['init', 'existing.yaml'], 'paperclip_output_unwritable'],
];

describe('every failure carries a code, in text and in --json', () => {
  it.each([...ROWS, ...TEXT_ROWS])('%s: stderr names the code', async (_name, args, code) => {
    const run = await evalsInProcess(args, dir);
    expect(run.status).toBeGreaterThan(0);
    expect(run.status).toBeLessThan(70);
    const first = run.stderr.split('\n')[0] ?? '';
    expect(first).toMatch(new RegExp(`^evals(?: policy replay)?: ${code}(?::|$)`));
    expect(run.stderr).not.toMatch(/ENOENT: no such file|expected undefined|received undefined/);
  });

  it.each(ROWS)('%s --json: one cli-failure/v1 object with a non-null code', async (_name, args, code) => {
    const run = await evalsInProcess([...args, '--json'], dir);
    const failure = JSON.parse(run.stdout) as {
      schema: string;
      exitCode: number;
      error: { code: string | null };
    };
    expect(schemaErrors(CLI_FAILURE, failure)).toEqual([]);
    expect(failure.exitCode).toBe(run.status);
    expect(failure.error.code).toBe(code);
  });
});

describe('a refusal says what was expected apart from what was received', () => {
  it('init over an existing file: expected a new file, received a file that exists', async () => {
    const run = await evalsInProcess(['init', 'existing.yaml'], dir);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(
      /\(expected a new file in an existing folder.*, received a file that exists\)/,
    );
  });
});

describe('an unreadable input is said as the file system says it, without a raw errno message', () => {
  it('validate nosuch.json: "no such file or directory (ENOENT)", in text and --json', async () => {
    const text = await evalsInProcess(['validate', 'nosuch.json'], dir);
    expect(text.status).toBe(2);
    expect(text.stdout).toContain('nosuch.json  no such file or directory (ENOENT)');
    const json = await evalsInProcess(['validate', 'nosuch.json', '--json'], dir);
    expect(JSON.parse(json.stdout)).toMatchObject({
      files: [{ input: 'nosuch.json', status: 'unreadable', error: 'no such file or directory (ENOENT)' }],
    });
  });
});
