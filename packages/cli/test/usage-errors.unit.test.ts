// Every usage error says where (the flag), what was expected, what was received and what to do — the
// ones commander finds and the ones our commands throw alike — on one readable line each: a
// conflict between two options names both and which to drop, commander's "did you mean" stays on the
// line of its error (never an escaped \n), and each of our own usage errors has its coded issue
// (UsageError cannot be made without one). In-process, through createProgram().
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createProgram } from '../src/program.ts';
import { evals } from './support/evals-in-process.ts';

import type { Command, Option } from 'commander';

function* commands(command: Command, path: readonly string[] = []): Generator<[string[], Command]> {
  if (command.commands.length === 0) yield [[...path], command];
  for (const sub of command.commands) yield* commands(sub, [...path, sub.name()]);
}

const LEAVES = [...commands(createProgram())];

/** A value each option accepts on its own (the rest take any text). */
const VALUES: Readonly<Record<string, string>> = { '--fail-on': 'below:0.5', '--listen': 'sock' };
/** What a command needs before commander checks its options against each other. */
const NEEDS: Readonly<Record<string, readonly string[]>> = { compare: ['--a', 'x', '--b', 'y'] };

const given = (option: Option): string[] =>
  option.required || option.optional
    ? [option.long ?? '', VALUES[option.long ?? ''] ?? 'x']
    : [option.long ?? ''];

/** Every pair of options the tree declares in conflict (`.conflicts()`), as a command line giving both. */
const CONFLICTS = LEAVES.flatMap(([path, command]) =>
  command.options.flatMap((option) =>
    (option as Option & { readonly conflictsWith: readonly string[] }).conflictsWith.map((name) => {
      const other = command.options.find((candidate) => candidate.attributeName() === name);
      if (other === undefined) throw new Error(`${option.long ?? ''} conflicts with an unknown ${name}`);
      return [
        `${path.join(' ')} ${option.long ?? ''} with ${other.long ?? ''}`,
        [...path, ...(NEEDS[path.join(' ')] ?? []), ...given(option), ...given(other)],
        option.long ?? '',
        other.long ?? '',
      ] as const;
    }),
  ),
);

/** A usage issue's stderr line: `  code at where: message (expected …, received …)`. */
const ISSUE_LINE = /^ {2}[a-z_]+ at \S[^\n]*: [^\n]+ \(expected [^\n]+, received [^\n]+\)$/m;

describe('two options that cannot go together: options_conflict, both named, and what to do', () => {
  it('the tree declares conflicts (the table below is not empty)', () => {
    expect(CONFLICTS.length).toBeGreaterThanOrEqual(10);
  });

  it.each(CONFLICTS)('%s', async (_name, args, option, other) => {
    const run = await evals(...args);
    expect(run.code, run.stderr).toBe(2);
    const shown = new RegExp(
      `^ {2}options_conflict at evals [a-z ]+: option '${option}[^']*' cannot be used with option '${other}[^']*': .*give one of them.*\\(expected ${option} or ${other}, not both, received ${option} and ${other}\\)$`,
      'm',
    );
    expect(run.stderr).toMatch(shown);
  });

  it('with --json, the failure object carries the coded issue', async () => {
    const run = await evals('grid', '--all-runs', '--run', 'r', '--json');
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({
      schema: 'paperclip-evals/grid/v1',
      exitCode: 2,
      error: {
        code: 'paperclip_cli_usage_invalid',
        issues: [
          {
            code: 'options_conflict',
            component: 'evals grid',
            expected: '--all-runs or --run, not both',
            received: '--all-runs and --run',
          },
        ],
      },
    });
  });
});

/** Every long option of every command misspelt by its last letter: commander suggests the option. */
const TYPOS = LEAVES.flatMap(([path, command]) =>
  command.options
    .map((option) => option.long ?? '')
    .filter((long) => long.length > 4 && long !== '--help')
    .map((long) => [`${path.join(' ')} ${long.slice(0, -1)}`, path, long] as const),
);

describe("commander's suggestion is on the line of its error (never an escaped \\n)", () => {
  it.each(TYPOS)('%s', async (_name, path, long) => {
    const run = await evals(...path, long.slice(0, -1));
    expect(run.code).toBe(2);
    expect(run.stderr).not.toContain('\\n');
    expect(run.stderr).toMatch(
      new RegExp(`unknown option '${long.slice(0, -1)}' \\(Did you mean [^)]*${long}[^)]*\\?\\); see evals`),
    );
  });

  // Commander checks required options first: a misspelt required flag read as a missing one.
  it('a misspelt required option is an unknown option, not a missing one', async () => {
    const run = await evals('qualify', '--release-di', 'release');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "unknown_option at evals qualify: unknown option '--release-di' (Did you mean --release-dir?)",
    );
    expect(run.stderr).not.toContain('required option');
  });

  // Commander showed the root help, exit 0, as if the command were one.
  it('an unknown command beside --help is an unknown command (exit 2), not the root help', async () => {
    const run = await evals('ledger', '--help');
    expect(run).toMatchObject({ code: 2, stdout: '' });
    expect(run.stderr).toContain("unknown_command at evals: unknown command 'ledger'");
    expect((await evals('help', 'report')).code).toBe(0);
    expect((await evals('report', '--help')).code).toBe(0);
  });

  // An option the command lacks but a user reaches for: what to do instead.
  it.each([
    [['report', '--json'], 'the report is JSON by default (--format json)'],
    [['grid', '--format', 'md'], 'the grid as Markdown, JUnit or HTML is evals report --format'],
    [['grid', '--out', 'g.txt'], 'evals report --out FILE writes the grid in a report'],
    [['compare', '--a', 'x', '--b', 'y', '--format', 'md'], 'evals report --a A --b B --format md'],
    [['compare', '--a', 'x', '--b', 'y', '--out', 'c.txt'], 'evals report --a A --b B --out FILE'],
    [['init', '--force'], 'init never replaces a file'],
  ])('%j: says what to do instead', async (args, hint) => {
    const run = await evals(...args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      new RegExp(
        `^ {2}unknown_option at evals [a-z]+: unknown option '${args.find((arg) => ['--json', '--format', '--out', '--force'].includes(arg)) ?? ''}'[^\n]*: [^\n]*${hint.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[^\n]*; see evals [a-z]+ --help`,
        'm',
      ),
    );
  });

  it('an unknown command too', async () => {
    const run = await evals('repor');
    expect(run.stderr).toContain("unknown command 'repor' (Did you mean report?); see evals --help");
    expect(run.stderr).not.toContain('\\n');
  });
});

describe("each of the commands' own usage errors says where, what was expected and what was received", () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'evals-usage-errors-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const run = ['run', '--env', 'evalbook.yaml', '--campaign', 'c'];
  const rows: [string, string[], string, string][] = [
    [
      'publish --verify with --out',
      ['publish', '--verify', 'site', '--out', 'x'],
      'options_conflict',
      '--out',
    ],
    ['publish with neither --out nor --verify', ['publish'], 'required_option_missing', '--out'],
    [
      'view with a port that is not a number',
      ['view', 'site', '--port', 'abc'],
      'option_value_invalid',
      '--port',
    ],
    ['stdin twice', ['validate', '-', '-'], 'stdin_repeated', '-'],
    [
      'ingest with a runnerd digest that is not one',
      ['ingest', 'x.json', '--runnerd-sha256', 'abc'],
      'option_value_invalid',
      '--runnerd-sha256',
    ],
    [
      'report --attempt with a format that is not HTML',
      ['report', '--attempt', 'a', '--format', 'md'],
      'options_conflict',
      '--format',
    ],
    ['run without a release', run, 'required_option_missing', '--release-dir'],
    ['run --plan with --out', [...run, '--plan', '--out', 'c.json'], 'options_conflict', '--out'],
    ['run --max-parallel 0', [...run, '--max-parallel', '0'], 'option_value_invalid', '--max-parallel'],
    [
      'run --max-cost-usd in cents',
      [...run, '--max-cost-usd', '$1'],
      'option_value_invalid',
      '--max-cost-usd',
    ],
    [
      'run --pass-env given a value',
      [...run, '--pass-env', 'sk-live-1'],
      'option_value_invalid',
      '--pass-env',
    ],
    [
      'run --pass-env of an unset variable',
      [...run, '--pass-env', 'EVALS_USAGE_ERRORS_TEST_UNSET'],
      'environment_variable_unset',
      '--pass-env',
    ],
    [
      'run --eval-session-sha256 that is not a digest',
      [...run, '--eval-session-bin', 'b.mjs', '--eval-session-sha256', 'abc'],
      'option_value_invalid',
      '--eval-session-sha256',
    ],
    [
      'merge --from-store without --store',
      ['merge', 'a.json', '--out', 'm.json', '--from-store', 'sqlite:s.sqlite'],
      'option_without_companion',
      '--from-store',
    ],
    ['retract without --run', ['retract', '--reason', 'r'], 'required_option_missing', '--run'],
    ['retract without --reason', ['retract', '--run', 'r'], 'required_option_missing', '--reason'],
  ];

  it.each(rows)('%s', async (_name, args, code, where) => {
    const previous = process.cwd();
    process.chdir(dir);
    try {
      const result = await evals(...args);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(ISSUE_LINE);
      expect(result.stderr).toContain(`  ${code} at ${where}: `);
      expect(result.stderr).not.toContain('sk-live-1');
    } finally {
      process.chdir(previous);
    }
  });

  it('with --json, the failure object carries it (publish)', async () => {
    const result = await evals('publish', '--json');
    expect(JSON.parse(result.stdout)).toMatchObject({
      schema: 'paperclip-evals/publish/v1',
      exitCode: 2,
      error: {
        issues: [
          {
            code: 'required_option_missing',
            component: '--out',
            expected: '--out SITE or --verify SITE',
            received: 'neither',
          },
        ],
      },
    });
  });
});
