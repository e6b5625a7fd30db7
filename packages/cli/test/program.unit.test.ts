// The `evals` program in-process (createProgram + runProgram, output captured through print.ts's
// sink): every command's help, --version, flag parsing and validation errors with their exit code
// and message, and real runs of validate, ingest, report, grid, compare and runs over a temp SQLite
// Evalbook. What only a process can show (signals, the bin's start-up, stdin, a closed stdout) stays
// in the *.e2e.test.ts files.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createProgram } from '../src/program.ts';
import { evals } from './support/evals-in-process.ts';

import type { Command } from 'commander';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const VALID = join(REPO, 'fixtures/attempts/valid');
const INVALID = join(REPO, 'fixtures/attempts/invalid/attempt-id-missing.json');
const VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

function* leaves(command: Command, path: readonly string[] = []): Generator<string[]> {
  if (command.commands.length === 0) yield [...path];
  for (const sub of command.commands) yield* leaves(sub, [...path, sub.name()]);
}

const COMMANDS = [...leaves(createProgram())];

describe('evals --version and --help', () => {
  it('--version prints the package version on stdout (exit 0)', async () => {
    expect(await evals('--version')).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });

  it('--help lists every command (exit 0)', async () => {
    const run = await evals('--help');
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    for (const [name] of COMMANDS) expect(run.stdout).toContain(`  ${name}`);
  });

  it('knows the commands it documents (the walk below is not empty)', () => {
    expect(COMMANDS.map((path) => path.join(' ')).sort()).toEqual(
      [
        'compare',
        'digest',
        'engine',
        'grid',
        'ingest',
        'init',
        'merge',
        'migrate',
        'negotiate',
        'policy evaluate',
        'policy replay',
        'publish',
        'qualify',
        'report',
        'retract',
        'run',
        'runnerd inspect',
        'runs',
        'validate',
        'view',
      ].sort(),
    );
  });

  it.each(COMMANDS.map((path) => [path.join(' '), path] as const))(
    '%s --help teaches: usage, its exit codes (exit 0, stdout only)',
    async (_name, path) => {
      const run = await evals(...path, '--help');
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('');
      expect(run.stdout).toContain(`Usage: evals ${path.join(' ')}`);
      expect(run.stdout).toMatch(/\nExit codes: 0 /);
    },
  );

  // The exit-code table and the help agree: every campaign error's exit code is listed in `run --help`
  // with what that error is (a conflict is said to be one, under the code the table gives it).
  it.each([
    ['paperclip_campaign_record_conflict', 'conflict'],
    ['paperclip_campaign_suite_invalid', 'usage'],
    ['paperclip_campaign_record_invalid', 'invalid record'],
    ['paperclip_campaign_release_incompatible', 'does not join'],
  ] as const)('run --help lists the exit code of %s with its meaning (%s)', async (code, meaning) => {
    const { exitCodeFor } = await import('../src/exit-codes.ts');
    const { CampaignError } = await import('@paperclip-evals/campaign');
    const exit = exitCodeFor(new CampaignError(code, 'x'));
    const line =
      /\nExit codes: ([\s\S]*?)\n\n/
        .exec((await evals('run', '--help')).stdout)?.[1]
        ?.replaceAll('\n', ' ') ?? ''; // the paragraph, unwrapped
    const segments = new Map(
      line.split(' · ').map((segment) => [Number(segment.split(' ')[0]), segment] as const),
    );
    expect(segments.get(exit), line).toContain(meaning);
  });

  // A paragraph of the text after the options is wrapped as one: its source's own line breaks (the
  // source is written ~110 columns wide) never leave a short line in the middle of a sentence.
  it.each([[], ...COMMANDS].map((path) => [path.join(' ') || '(root)', path] as const))(
    '%s --help wraps each paragraph as one: no short line before the paragraph ends',
    async (_name, path) => {
      const run = await evals(...path, '--help');
      const lines = run.stdout.split('\n');
      const ragged = lines.filter((line, index) => {
        const next = lines[index + 1] ?? '';
        // a margin line followed by another margin line of the same paragraph
        const inParagraph = line !== '' && !/^\s/.test(line) && next !== '' && !/^\s/.test(next);
        return inParagraph && !/:$/.test(line) && line.length + 1 + (next.split(' ')[0]?.length ?? 0) <= 80;
      });
      expect(ragged).toEqual([]);
    },
  );

  // Help is our own text: a backslash in an example (jq's \", printf's \n, a continuation line's \)
  // prints as the one backslash the source has, never escaped as input would be.
  it.each([[], ...COMMANDS].map((path) => [path.join(' ') || '(root)', path] as const))(
    '%s --help prints its text as written (no \\\\ where the source has \\)',
    async (_name, path) => {
      const program = createProgram();
      const command = path.reduce<Command>(
        (parent, name) => parent.commands.find((sub) => sub.name() === name)!,
        program,
      );
      const run = await evals(...path, '--help');
      expect(run.stdout.startsWith(command.helpInformation())).toBe(true);
      expect(run.stdout).not.toContain('\\\\');
    },
  );

  it('shows the examples with their one backslash (jq, printf, continuation lines, \\u001b)', async () => {
    expect((await evals('qualify', '--help')).stdout).toContain('select(.status != \\"pass\\")');
    expect((await evals('policy', 'evaluate', '--help')).stdout).toContain("printf '%s\\n'");
    expect((await evals('run', '--help')).stdout).toMatch(/--shard 2\/4 \\\n/);
    expect((await evals('--help')).stdout.replaceAll('\n', ' ')).toContain('ESC as \\u001b, CR as \\r');
  });

  it('still escapes what commander quotes from argv in an error', async () => {
    const run = await evals('validate', '--frob\u001b[31m', 'x.json');
    expect(run.stderr).toContain("unknown option '--frob\\u001b[31m'");
    expect(run.stderr).not.toContain('\u001b');
  });
});

describe('flags: parsing and validation errors are usage errors (exit 2) that say what was expected', () => {
  const rows: [string, string[], RegExp][] = [
    ['an unknown command', ['frobnicate'], /unknown command 'frobnicate'/],
    [
      'a command a newcomer guesses',
      ['campaign'],
      /unknown command 'campaign' \(`evals run` runs a campaign/,
    ],
    ['an unknown option', ['validate', '--frob', 'x.json'], /unknown option '--frob'/],
    ['a missing argument', ['validate'], /missing required argument 'inputs'/],
    ['a missing mandatory option', ['qualify'], /required option '--release-dir <dir>' not specified/],
    [
      'a size out of range',
      ['validate', '--max-bytes', '0', 'x.json'],
      /expected a size from 1 byte to 512 MiB/,
    ],
    [
      'a format not offered',
      ['report', '--format', 'pdf'],
      /expected one of json, md, html, junit, csv, received pdf/,
    ],
    [
      'a rate above 1',
      ['report', '--fail-on', 'below:1.5'],
      /below:RATE with RATE from 0 to 1.*received below:1\.5\)/,
    ],
    ['a gate it does not know', ['compare', '--a', 'x', '--b', 'y', '--fail-on', 'x'], /expected regression/],
    [
      'a repeated option',
      ['grid', '--run', 'a', '--run', 'b'],
      /option '--run <runId>' given twice \("a", then "b"\)/,
    ],
    [
      'an option without its companion',
      ['ingest', 'x.json', '--keep-foreign'],
      /'--keep-foreign' needs --env/,
    ],
    [
      'too many producers',
      ['policy', 'replay', '--policy-binary', 'p', '--sha256', 's', '--bundle', 'b', '--processes', '1025'],
      /expected at most 1024, received 1025/,
    ],
    [
      'a timeout that is not a number',
      ['runnerd', 'inspect', '--path', 'p', '--sha256', 's', '--timeout-ms', 'soon'],
      /expected a positive whole number, received soon\)/,
    ],
    [
      'run --plan with --out (a plan writes no record)',
      ['run', '--plan', '--env', 'evalbook.yaml', '--campaign', 'c', '--out', 'campaign.json'],
      /--plan prints the plan and runs nothing: --out has no record to write/,
    ],
    [
      'run --out naming its own --env file',
      ['run', '--env', 'evalbook.yaml', '--campaign', 'c', '--release-dir', 'r', '--out', './evalbook.yaml'],
      /--out \.\/evalbook\.yaml is the file --env names/,
    ],
    [
      'a cost ceiling of zero (it would run nothing, yet record the campaign)',
      ['run', '--env', 'evalbook.yaml', '--campaign', 'c', '--release-dir', 'r', '--max-cost-usd', '0.000'],
      /--max-cost-usd 0 would run nothing .*leave --max-cost-usd out for no ceiling/,
    ],
    [
      'a cost ceiling that is no amount',
      ['run', '--env', 'evalbook.yaml', '--campaign', 'c', '--release-dir', 'r', '--max-cost-usd', '$5'],
      /--max-cost-usd takes an amount in USD/,
    ],
    [
      'the same shard store twice',
      [
        'merge',
        's1.json',
        '--out',
        'c.json',
        '--store',
        'sqlite:all.sqlite',
        '--from-store',
        'sqlite:s1.sqlite',
        '--from-store',
        'sqlite:s1.sqlite',
      ],
      /--from-store sqlite:s1\.sqlite is given twice: name each shard's store once/,
    ],
    ['a comparison without its pair', ['compare', '--a', 'x'], /--a and --b go together/],
    ['a comparison of nothing', ['compare'], /nothing to compare: name two configs/],
    [
      'configs and runs at once',
      ['report', '--a', 'x', '--b', 'y', '--a-run', 'r'],
      /configs \(--a, --b\) or runs \(--a-run, --b-run\), not both/,
    ],
    [
      'a gate that needs a comparison',
      ['report', '--fail-on', 'regression', '--store', 'sqlite:nowhere.sqlite'],
      /--fail-on regression judges a comparison, and none is named: add --a and --b/,
    ],
    [
      '--listen, reserved',
      ['policy', 'evaluate', '--listen', 'sock'],
      /--listen sock is reserved and not implemented/,
    ],
    [
      'a log level it does not know',
      ['engine', '--stdio', '--log-level', 'loud'],
      /expected one of debug, info, warn, error, received loud/,
    ],
  ];
  it.each(rows)('%s', async (_name, args, message) => {
    const run = await evals(...args);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
    // what was expected and received is said once, by the issue, never again in its message
    expect(run.stderr.match(/\bexpected\b/g)?.length ?? 0, run.stderr).toBeLessThanOrEqual(1);
    expect(run.stderr.match(/\breceived\b/g)?.length ?? 0, run.stderr).toBeLessThanOrEqual(1);
  });
});

describe("a failure with --json: the diagnostic on stderr, the one JSON object on stdout, the table's exit code", () => {
  it("policy replay with nothing to replay: the app's coded refusal, under the command's own prefix (exit 2)", async () => {
    const run = await evals(
      'policy',
      'replay',
      '--policy-binary',
      'p',
      '--sha256',
      's',
      '--bundle',
      'b',
      '--json',
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^evals policy replay: paperclip_app_request_invalid: name attempt files or directories/,
    );
    expect(JSON.parse(run.stdout)).toMatchObject({
      schema: 'paperclip-evals/policy-replay/v1',
      exitCode: 2,
      error: { code: 'paperclip_app_request_invalid', issues: [] },
    });
  });

  it('runnerd inspect of a path that is not there: {ok: false, code, message, issues} (exit 4)', async () => {
    const run = await evals(
      'runnerd',
      'inspect',
      '--path',
      join(REPO, 'nowhere'),
      '--sha256',
      `sha256:${'0'.repeat(64)}`,
      '--json',
    );
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(/^evals: paperclip_runnerd_artifact_invalid/);
    expect(JSON.parse(run.stdout)).toMatchObject({
      ok: false,
      code: 'paperclip_runnerd_artifact_invalid',
      issues: [{ code: 'path_invalid' }],
    });
  });

  it('without --json the same failure prints nothing on stdout', async () => {
    const run = await evals(
      'runnerd',
      'inspect',
      '--path',
      join(REPO, 'nowhere'),
      '--sha256',
      `sha256:${'0'.repeat(64)}`,
    );
    expect(run.code).toBe(4);
    expect(run.stdout).toBe('');
  });
});

describe('runs over a temp SQLite Evalbook', () => {
  let dir: string;
  let store: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'evals-program-'));
    store = `sqlite:${join(dir, 'book.sqlite')}`;
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('validate: every valid fixture (exit 0), an invalid bundle (exit 1), a path that is not there (exit 2)', async () => {
    const valid = await evals('validate', VALID);
    expect(valid.code).toBe(0);
    expect(valid.stdout).toMatch(/\n5 valid, 0 invalid, 0 unreadable\n$/);
    const invalid = await evals('validate', INVALID, '--json');
    expect(invalid.code).toBe(1);
    expect(JSON.parse(invalid.stdout)).toMatchObject({
      schema: 'paperclip-evals/validate-report/v1',
      summary: { valid: 0, invalid: 1, unreadable: 0 },
    });
    const missing = await evals('validate', VALID, join(dir, 'nowhere.json'));
    expect(missing.code).toBe(2);
  });

  it('grid --json of a store that does not exist: one failure object on stdout (exit 2), nothing created', async () => {
    const run = await evals('grid', '--store', store, '--json');
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({
      schema: 'paperclip-evals/grid/v1',
      exitCode: 2,
      error: { code: 'paperclip_evalbook_store_unusable' },
    });
    expect(run.stderr).toMatch(/^evals: paperclip_evalbook_store_unusable/);
  });

  it('ingest writes every attempt (exit 0); again, each is a duplicate (exit 0)', async () => {
    const first = await evals('ingest', VALID, '--store', store, '--json');
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ exitCode: 0, inserted: 5, duplicates: 0 });
    const again = await evals('ingest', VALID, '--store', store);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/: 0 inserted, 5 duplicate, 0 conflict, 0 invalid/);
  });

  it('ingest of an invalid bundle writes nothing of it (exit 1)', async () => {
    const run = await evals('ingest', INVALID, '--store', store, '--json');
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ exitCode: 1, inserted: 0 });
  });

  // (A report on stdout is spooled, then copied to this process's fd 1 whole: the e2e tests show it.)
  it('report --format json streams every attempt (exit 0); --out the store itself is refused (exit 2)', async () => {
    const out = join(dir, 'report.json');
    const run = await evals('report', '--store', store, '--out', out);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^wrote .*report\.json: 5 attempts/);
    const report = JSON.parse(await readFile(out, 'utf8')) as { schema: string; attempts: unknown[] };
    expect(report.schema).toBe('paperclip-evals/report/v1');
    expect(report.attempts).toHaveLength(5);
    const clobber = await evals('report', '--store', store, '--out', join(dir, 'book.sqlite'));
    expect(clobber.code).toBe(2);
    expect(clobber.stderr).toMatch(/is the Evalbook being reported on/);
  });

  it('report --out writes the file and says so on stderr; a gate that fails exits 1 with its verdict', async () => {
    const out = join(dir, 'report.md');
    const run = await evals(
      'report',
      '--store',
      store,
      '--format',
      'md',
      '--out',
      out,
      '--fail-on',
      'below:1',
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^wrote .*report\.md: 5 attempts/);
    expect(run.stderr).toMatch(/gate below:1 failed on newest run \S+ \(the only run\):/);
    expect(await readFile(out, 'utf8')).toMatch(/^## Evalbook report\n/);
  });

  it('grid, runs and compare read it (exit 0); compare of configs it lacks is a usage error', async () => {
    const grid = await evals('grid', '--store', store, '--json');
    expect(grid.code).toBe(0);
    expect(JSON.parse(grid.stdout)).toMatchObject({
      schema: 'paperclip-evals/grid/v1',
      configs: ['config_synthetic'],
    });
    const runs = await evals('runs', '--store', store, '--json');
    expect(runs.code).toBe(0);
    expect(JSON.parse(runs.stdout)).toMatchObject({ runs: [{ runId: 'run_synthetic', attempts: 5 }] });
    const compare = await evals(
      'compare',
      '--store',
      store,
      '--a',
      'config_synthetic',
      '--b',
      'nope',
      '--json',
    );
    expect(compare.code).not.toBe(0);
    expect(JSON.parse(compare.stdout)).toMatchObject({
      schema: 'paperclip-evals/compare/v1',
      exitCode: compare.code,
    });
  });

  it('retract appends a record (exit 0), and reports leave the attempts out', async () => {
    const retract = await evals(
      'retract',
      '--store',
      store,
      '--run',
      'run_synthetic',
      '--reason',
      'test',
      '--by',
      'unit',
    );
    expect(retract.code, retract.stderr).toBe(0);
    expect(retract.stdout).toMatch(/^retracted {10}5 attempts/);
    const grid = await evals('grid', '--store', store);
    expect(grid.code).toBe(0);
    expect(grid.stdout).toMatch(/retracted/);
  });

  it('digest and init run in-process too', async () => {
    const file = join(dir, 'doc.json');
    await writeFile(file, '{"b":1,"a":2}');
    const digest = await evals('digest', '--canonical', file, '--json');
    expect(digest.code).toBe(0);
    expect(JSON.parse(digest.stdout)).toMatchObject({ canonical: true, files: [{ file }] });
    const init = await evals('init', join(dir, 'evalbook.yaml'));
    expect(init.code).toBe(0);
    expect(init.stdout).toMatch(/^wrote .*evalbook\.yaml: a starter Evalbook environment/);
    const again = await evals('init', join(dir, 'evalbook.yaml'));
    expect(again.code).toBe(2);
  });
});
