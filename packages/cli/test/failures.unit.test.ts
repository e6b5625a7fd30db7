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

import { EXIT } from '../src/exit-codes.ts';
import { createProgram } from '../src/program.ts';
import { evalsInProcess } from './support/evals-in-process.ts';

import type { Command, Option } from 'commander';

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
    'paperclip_campaign_suite_invalid',
  ],
  [
    'merge: a shard that is not there',
    ['merge', 'nosuch.json', '--out', 'm.json'],
    'paperclip_campaign_record_invalid',
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

// Commander's own usage errors, found before any action runs: each is the CLI's coded
// paperclip_cli_usage_invalid (exit 2 from the table), its one issue saying what was expected and
// what was received and pointing at the command's --help, and with --json the command's
// {schema, exitCode, error} object. One row per kind of error each leaf command of the tree can
// raise, generated from createProgram(), so a command added later gets its rows.
describe("commander's usage errors are coded, in text and in --json, for every command", () => {
  type Row = readonly [name: string, args: readonly string[], kind: string, json: boolean];

  function* leaves(command: Command, path: readonly string[] = []): Generator<[string[], Command]> {
    if (command.commands.length === 0) yield [[...path], command];
    for (const sub of command.commands) yield* leaves(sub, [...path, sub.name()]);
  }
  /** A value each mandatory option takes without its parser refusing it. */
  const value = (option: Option): string[] =>
    option.required || option.optional
      ? [option.long ?? '', option.argChoices?.[0] ?? '1']
      : [option.long ?? ''];

  const rows: Row[] = [
    ['evals: an unknown command', ['frobnicate'], 'unknown_command', false],
    ['evals policy: an unknown command', ['policy', 'frobnicate'], 'unknown_command', false],
    ['evals runnerd: an unknown command', ['runnerd', 'frobnicate'], 'unknown_command', false],
  ];
  for (const [path, command] of leaves(createProgram())) {
    const name = path.join(' ');
    const json = command.options.some((option) => option.long === '--json');
    const at = json ? [...path, '--json'] : path;
    const mandatory = command.options.filter((option) => option.mandatory).flatMap(value);
    const args = command.registeredArguments.map((argument) => (argument.variadic ? 'x.json' : 'x'));
    const required = command.registeredArguments.filter((argument) => argument.required).map(() => 'x');
    rows.push([
      `${name}: an unknown option`,
      [...at, ...mandatory, ...required, '--frobnicate'],
      'unknown_option',
      json,
    ]);
    if (!command.registeredArguments.some((argument) => argument.variadic))
      rows.push([
        `${name}: an argument too many`,
        [...at, ...mandatory, ...args, 'extra'],
        'excess_arguments',
        json,
      ]);
    if (required.length > 0)
      rows.push([`${name}: a missing argument`, [...at, ...mandatory], 'missing_argument', json]);
    const firstMandatory = command.options.find((option) => option.mandatory);
    if (firstMandatory !== undefined)
      rows.push([
        `${name}: a missing required option`,
        [...at, ...required],
        'required_option_missing',
        json,
      ]);
    const choices = command.options.find((option) => option.argChoices !== undefined);
    if (choices !== undefined)
      rows.push([
        `${name}: a bad choice of ${choices.long ?? ''}`,
        [...at, ...mandatory, ...required, choices.long ?? '', 'not-a-choice'],
        'option_value_invalid',
        json,
      ]);
    const valued = command.options.find((option) => option.required && !option.mandatory);
    if (valued !== undefined)
      rows.push([
        `${name}: ${valued.long ?? ''} without its value`,
        [...at, ...mandatory, ...required, valued.long ?? ''],
        'option_value_missing',
        json,
      ]);
  }

  it('covers every kind of commander usage error across the tree (so no kind passes by absence)', () => {
    expect(new Set(rows.map(([, , kind]) => kind))).toEqual(
      new Set([
        'unknown_command',
        'unknown_option',
        'excess_arguments',
        'missing_argument',
        'required_option_missing',
        'option_value_invalid',
        'option_value_missing',
      ]),
    );
    expect(rows.length).toBeGreaterThan(60);
  });

  it.each(rows)('%s', async (_name, args, kind, json) => {
    const run = await evalsInProcess(args, dir);
    expect(run.status, run.stderr).toBe(EXIT.usage);
    const [first = '', issue = ''] = run.stderr.split('\n');
    expect(first).toMatch(/^evals(?: [a-z]+)*: paperclip_cli_usage_invalid$/);
    expect(issue).toMatch(
      new RegExp(`^  ${kind} at evals[a-z ]*: .*; see evals[a-z ]* --help \\(expected .+, received .+\\)$`),
    );
    if (!json) {
      expect(run.stdout).toBe('');
      return;
    }
    const failure = JSON.parse(run.stdout) as {
      exitCode: number;
      error: { code: string; issues: { code: string; expected?: unknown; received?: unknown }[] };
    };
    expect(schemaErrors(CLI_FAILURE, failure)).toEqual([]);
    expect(failure.exitCode).toBe(run.status);
    expect(failure.error.code).toBe('paperclip_cli_usage_invalid');
    expect(failure.error.issues.map((issue) => issue.code)).toEqual([kind]);
    expect(failure.error.issues[0]?.expected).toBeDefined();
    expect(failure.error.issues[0]?.received).toBeDefined();
  });
});
