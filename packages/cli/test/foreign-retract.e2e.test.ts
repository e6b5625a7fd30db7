// Attempts that are not of the suite, and retractions, end to end with the real `evals` binary on a
// SQLite store (the library tests run the same rules on PostgreSQL too): `ingest --env` refuses a
// foreign case, a foreign config, a stale case digest and a stale config digest with exit 1 and the
// store unchanged byte for byte; `--keep-foreign` stores them apart and the report's numbers and
// `--fail-on below:X` do not move; `--keep-foreign` without `--env` is a usage error; attempts
// ingested without `--env` are judged by the report's `--env` with the same rule (left out as
// foreign unless --include-foreign); `evals retract` takes an attempt or a run out of every report,
// grid, comparison and gate, with who/why/when shown; `evals runs` lists the counts. The first run of
// each command in this file is the real binary; the later ones run its main() in-process
// (support/evals-in-process.ts), which sees the same exit code, stdout and stderr. The gates and
// comparisons of configs here pool both runs (--all-runs): run2, the newest, has base alone.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { firstRunSpawned } from './support/evals-in-process.ts';
import type { SyntheticAttemptOptions } from '@paperclip-evals/test-kit/synthetic';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');
const OTHER_DIGEST = `sha256:${'a'.repeat(64)}`;

let dir: string;
const run = firstRunSpawned(
  (args) => {
    const result = spawnSync(EVALS, args, { cwd: dir, encoding: 'utf8' });
    return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
  },
  () => dir,
);
const suiteOf = (options: SyntheticAttemptOptions) =>
  syntheticAttempt(options).input as { caseSha256: string; configSha256: string };
const write = (path: string, options: SyntheticAttemptOptions): string => {
  mkdirSync(join(dir, path, '..'), { recursive: true });
  writeFileSync(join(dir, path), JSON.stringify(syntheticAttempt(options)));
  return path;
};
/** Every file of the store's folder by digest (the store is closed between commands). */
/**
 * The store's bytes: its file and a -wal holding changes. SQLite's -shm index and an empty -wal are
 * housekeeping (a read-only reader leaves them, the next writer removes them), not ledger content.
 */
const snapshot = (): Record<string, string> =>
  Object.fromEntries(
    readdirSync(join(dir, 'book'))
      .filter(
        (name) =>
          !name.endsWith('-shm') && !(name.endsWith('-wal') && statSync(join(dir, 'book', name)).size === 0),
      )
      .sort()
      .map((name) => [
        name,
        createHash('sha256')
          .update(readFileSync(join(dir, 'book', name)))
          .digest('hex'),
      ]),
  );
const STORE = ['--store', 'sqlite:book/evalbook.sqlite'];

interface Summary {
  attempts: number;
  cases: string[];
  configs: string[];
  configStats: { configId: string; solveRate: number | null }[];
  grid: unknown[];
  leftOut: { foreign: number; retracted: number };
  retractions: { runId: string; attemptId: string | null; reason: string; by: string; at: string }[];
}
interface ReportJson {
  attemptCount: number;
  summary: Summary;
  gate: { passed: boolean } | null;
}
const report = async (...args: string[]) => {
  const result = await run(['report', ...STORE, '--env', 'evalbook.json', ...args]);
  let json: ReportJson | null = null;
  try {
    json = JSON.parse(result.stdout) as ReportJson;
  } catch {
    // not a JSON report (another format, or a failure)
  }
  return { ...result, json };
};
/** The gate's verdict on stderr (what follows the line about attempts left out). */
const gateText = (stderr: string): string => stderr.slice(stderr.indexOf('gate '));
/** The summary without what it says of left-out attempts: what must not move when they are added. */
const counted = ({
  leftOut: _leftOut,
  retractions: _retractions,
  ...rest
}: Summary & Record<string, unknown>) => rest;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evals-foreign-e2e-'));
  mkdirSync(join(dir, 'book')); // a store a user names is created only in a folder that exists
  writeFileSync(
    join(dir, 'evalbook.json'),
    JSON.stringify({
      schema: 'paperclip-evals/environment/v1',
      name: 'suite',
      cases: [
        { id: 'case_a', sha256: suiteOf({ caseId: 'case_a' }).caseSha256 },
        { id: 'case_b', sha256: suiteOf({ caseId: 'case_b' }).caseSha256 },
        { id: 'case_stale', sha256: OTHER_DIGEST },
      ],
      configs: [
        {
          id: 'base',
          sha256: suiteOf({ configId: 'base' }).configSha256,
          model: 'm',
          driver: 'paperclip-deterministic',
        },
        {
          id: 'cand',
          sha256: suiteOf({ configId: 'cand' }).configSha256,
          model: 'm',
          driver: 'paperclip-deterministic',
        },
        { id: 'stale', sha256: OTHER_DIGEST, model: 'm', driver: 'paperclip-deterministic' },
      ],
    }),
  );
  // run1: base solves everything; cand fails one attempt of case_b (its rate 3/4).
  for (const caseId of ['case_a', 'case_b'])
    for (const configId of ['base', 'cand'])
      for (const index of [0, 1]) {
        const failed = caseId === 'case_b' && configId === 'cand' && index === 1;
        write(`runs/${caseId}-${configId}-${index}.json`, {
          runId: 'run1',
          caseId,
          configId,
          attemptId: failed ? 'bad' : `${caseId}-${configId}-${index}`,
          ...(failed ? { runTerminalState: 'failed' as const } : {}),
        });
      }
  write('runs2/a.json', { runId: 'run2', caseId: 'case_a', configId: 'base', attemptId: 'r2' });
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const FOREIGN: readonly [string, SyntheticAttemptOptions, string, string, string][] = [
  [
    'a case the environment does not list',
    { caseId: 'case_typo', configId: 'base' },
    'case_not_in_environment at /identity/caseId',
    'one of case_a, case_b, case_stale',
    'case_typo',
  ],
  [
    'a config the environment does not list',
    { caseId: 'case_a', configId: 'config_typo' },
    'config_not_in_environment at /identity/configId',
    'one of base, cand, stale',
    'config_typo',
  ],
  [
    'a stale case digest',
    { caseId: 'case_stale', configId: 'base' },
    'case_digest_differs at /input/caseSha256',
    OTHER_DIGEST,
    suiteOf({ caseId: 'case_stale' }).caseSha256,
  ],
  [
    'a stale config digest',
    { caseId: 'case_a', configId: 'stale' },
    'config_digest_differs at /input/configSha256',
    OTHER_DIGEST,
    suiteOf({ configId: 'stale' }).configSha256,
  ],
];

describe('evals ingest --env: attempts not of the suite', () => {
  it('ingests the suite’s own attempts (exit 0)', async () => {
    const result = await run(['ingest', 'runs', 'runs2', ...STORE, '--env', 'evalbook.json']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('9 inserted');
  });

  it.each(FOREIGN)(
    '%s: exit 1, the attempt named with field, expected and received, the store unchanged',
    async (_name, options, where, expected, received) => {
      const before = snapshot();
      const clean = write('clean/c.json', {
        runId: 'run3',
        caseId: 'case_a',
        configId: 'base',
        attemptId: 'clean',
      });
      const foreign = write(`foreign/${where.split(' ')[0]}.json`, {
        runId: 'run3',
        attemptId: 'f',
        ...options,
      });
      const human = await run(['ingest', clean, foreign, ...STORE, '--env', 'evalbook.json']);
      expect(human.status).toBe(1);
      expect(human.stdout).toContain(`foreign    ${foreign}`);
      expect(human.stdout).toContain(where);
      expect(human.stdout).toContain(`expected: ${expected}  received: ${received}`);
      expect(human.stdout).toContain('nothing written: 1 attempt(s)');
      expect(human.stdout).toContain('--keep-foreign');
      const json = await run(['ingest', clean, foreign, ...STORE, '--env', 'evalbook.json', '--json']);
      expect(json.status).toBe(1);
      const parsed = JSON.parse(json.stdout) as {
        exitCode: number;
        inserted: number;
        foreign: { input: string; issues: { code: string; expected: string; received: string }[] }[];
      };
      expect(parsed).toMatchObject({ exitCode: 1, inserted: 0 });
      expect(parsed.foreign).toEqual([
        {
          input: foreign,
          key: { runId: 'run3', caseId: options.caseId, configId: options.configId, attemptId: 'f' },
          issues: [expect.objectContaining({ code: where.split(' ')[0], expected, received })],
        },
      ]);
      expect(snapshot()).toEqual(before);
    },
  );

  it('--keep-foreign stores them apart: the numbers and the --fail-on below gate do not move; --include-foreign counts them', async () => {
    const gateBefore = await report('--all-runs', '--fail-on', 'below:0.7');
    expect(gateBefore.status).toBe(0);
    const failBefore = await report('--all-runs', '--fail-on', 'below:0.8');
    expect(failBefore.status).toBe(1);
    const kept = await run(['ingest', 'foreign', ...STORE, '--env', 'evalbook.json', '--keep-foreign']);
    expect(kept.status).toBe(0);
    expect(kept.stdout).toContain('4 foreign (kept apart)');
    expect(kept.stdout).toContain('kept apart: reports leave it out unless --include-foreign');

    const after = await report('--all-runs', '--fail-on', 'below:0.7');
    expect(after.status).toBe(0);
    expect(counted(after.json!.summary as Summary & Record<string, unknown>)).toEqual(
      counted(gateBefore.json!.summary as Summary & Record<string, unknown>),
    );
    expect(after.json!.summary.leftOut).toEqual({ foreign: 4, retracted: 0, retried: 0 });
    expect(after.json!.attemptCount).toBe(gateBefore.json!.attemptCount);
    expect((await report('--all-runs', '--fail-on', 'below:0.8')).status).toBe(1);
    // The gate's reasons are the same: no row or column of another suite makes it fail.
    expect(gateText((await report('--all-runs', '--fail-on', 'below:0.8')).stderr)).toBe(
      gateText(failBefore.stderr),
    );
    expect(gateText(failBefore.stderr)).toMatch(
      /^gate below:0.8 failed on all runs: \d runs? pooled:\n {2}cand: solve rate 0.750 < 0.8\n$/,
    );

    const grid = await run(['grid', ...STORE, '--env', 'evalbook.json']);
    expect(grid.status).toBe(0);
    expect(grid.stdout).not.toContain('case_typo');
    expect(grid.stdout).not.toContain('config_typo');
    expect(grid.stdout).toContain('4 attempts left out of every count: 4 foreign');
    const included = await run(['grid', ...STORE, '--env', 'evalbook.json', '--include-foreign', '--json']);
    const includedGrid = JSON.parse(included.stdout) as {
      cases: string[];
      configs: string[];
      foreignIncluded: number;
    };
    expect(includedGrid.cases).toContain('case_typo');
    expect(includedGrid.configs).toContain('config_typo');
    expect(includedGrid.foreignIncluded).toBe(4);
    expect(
      (await report('--all-runs', '--fail-on', 'below:0.7', '--include-foreign')).json!.summary.attempts,
    ).toBe(gateBefore.json!.summary.attempts + 4);
    const md = await report('--format', 'md');
    expect(md.stdout).toContain('4 attempts left out of every count: 4 foreign');
  });
});

describe('a report that cannot be made', () => {
  it('writes nothing to stdout (never half a JSON report): an unknown run or compared config, exit 2', async () => {
    for (const args of [
      ['--run', 'nope'],
      ['--a', 'ghost', '--b', 'base'],
      ['--run', 'nope', '--format', 'md'],
    ]) {
      const result = await report(...args);
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stdout, args.join(' ')).toBe('');
      expect(result.stderr, args.join(' ')).toMatch(/no (run|config) named "(nope|ghost)" in this evalbook/);
    }
  });
});

describe('evals retract and evals runs', () => {
  it('refuses what the store does not hold, and a flag given twice, writing nothing (exit 2)', async () => {
    const before = snapshot();
    const missingRun = await run(['retract', ...STORE, '--run', 'nope', '--reason', 'x', '--by', 'alice']);
    expect(missingRun.status).toBe(2);
    expect(missingRun.stderr).toContain('no run named "nope" in this evalbook');
    const missingAttempt = await run([
      'retract',
      ...STORE,
      '--run',
      'run1',
      '--attempt',
      'bad',
      '--attempt',
      'ghost',
      '--reason',
      'x',
      '--by',
      'alice',
    ]);
    expect(missingAttempt.status).toBe(2);
    expect(missingAttempt.stderr).toContain('run "run1" has no attempt "ghost": nothing retracted');
    const twice = await run([
      'retract',
      ...STORE,
      '--run',
      'run1',
      '--run',
      'run2',
      '--reason',
      'x',
      '--by',
      'alice',
    ]);
    expect(twice.status).toBe(2);
    expect(twice.stderr).toContain('option \'--run <runId>\' given twice ("run1", then "run2")');
    const noReason = await run(['retract', ...STORE, '--run', 'run1', '--by', 'alice']);
    expect(noReason.status).toBe(2);
    expect(noReason.stderr).toContain('--reason');
    const blank = await run(['retract', ...STORE, '--run', 'run1', '--reason', '  ', '--by', 'alice']);
    expect(blank.status).toBe(2);
    expect(blank.stderr).toContain('reason: expected a non-empty text');
    expect(snapshot()).toEqual(before);
  });

  it('retracts an attempt: it leaves the report, grid, comparison and gate, with who/why/when shown', async () => {
    const before = await report('--all-runs', '--fail-on', 'below:1');
    expect(before.status).toBe(1);
    const compareBefore = JSON.parse(
      (await run(['compare', ...STORE, '--all-runs', '--a', 'base', '--b', 'cand', '--json'])).stdout,
    ) as { deltaSolveRate: number };
    expect(compareBefore.deltaSolveRate).toBeLessThan(0);

    const result = await run([
      'retract',
      ...STORE,
      '--run',
      'run1',
      '--attempt',
      'bad',
      '--reason',
      'the sandbox lost its network',
      '--by',
      'alice',
    ]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(
      /^retracted {10}1 attempt: attempt bad of run run1 retracted by alice at \d{4}-\d{2}-\d{2}T[\d:.]+Z: the sandbox lost its network$/m,
    );
    const again = await run([
      'retract',
      ...STORE,
      '--run',
      'run1',
      '--attempt',
      'bad',
      '--reason',
      'again',
      '--by',
      'bob',
      '--json',
    ]);
    expect(again.status).toBe(0);
    const outcome = (
      JSON.parse(again.stdout) as {
        outcomes: { status: string; retraction: { by: string; reason: string } }[];
      }
    ).outcomes;
    expect(outcome).toHaveLength(1);
    expect(outcome[0]).toMatchObject({
      status: 'already_retracted',
      retraction: { by: 'alice', reason: 'the sandbox lost its network' },
    });

    const after = await report('--all-runs', '--fail-on', 'below:1');
    expect(after.status).toBe(0);
    expect(after.json!.attemptCount).toBe(before.json!.attemptCount - 1);
    expect(after.json!.summary.leftOut).toEqual({ foreign: 4, retracted: 1, retried: 0 });
    expect(after.json!.summary.retractions).toEqual([
      {
        runId: 'run1',
        attemptId: 'bad',
        reason: 'the sandbox lost its network',
        by: 'alice',
        at: after.json!.summary.retractions[0]?.at,
      },
    ]);
    expect(after.json!.summary.retractions[0]?.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(after.json!.summary.configStats.find((config) => config.configId === 'cand')?.solveRate).toBe(1);
    const md = await report('--format', 'md');
    expect(md.stdout).toContain('Retracted: attempt bad of run run1 retracted by alice at ');
    expect(md.stdout).toContain('1 retracted');
    const junit = await report('--format', 'junit');
    expect(junit.stdout).toContain(
      '<testsuite name="left out" tests="2" failures="0" errors="0" skipped="2" time="0.000">',
    );
    expect(junit.stdout).toContain('name="1 retracted attempt(s)"');
    expect(junit.stdout).toMatch(
      /<skipped message="attempt bad of run run1 retracted by alice at [^"]+: the sandbox lost its network"\/>/,
    );
    const html = await report('--format', 'html');
    expect(html.stdout).toContain('data-retracted="1"');
    expect(html.stdout).toContain('retracted by alice');
    const grid = await run(['grid', ...STORE, '--env', 'evalbook.json']);
    expect(grid.stdout).toContain(
      "5 attempts left out of every count: 4 foreign (case or config not the environment's: kept apart at ingest, or not in --env; --include-foreign counts them), 1 retracted",
    );
    const compare = await run(['compare', ...STORE, '--all-runs', '--a', 'base', '--b', 'cand', '--json']);
    const comparison = JSON.parse(compare.stdout) as {
      deltaSolveRate: number;
      leftOut: { retracted: number };
    };
    expect(comparison.deltaSolveRate).toBe(0);
    expect(comparison.leftOut.retracted).toBe(1);
    expect((await run(['compare', ...STORE, '--all-runs', '--a', 'base', '--b', 'cand'])).stdout).toContain(
      '1 retracted',
    );
  });

  it('retracts a whole run: --run naming it is told why; evals runs lists counts and records', async () => {
    const result = await run(['retract', ...STORE, '--run', 'run2', '--reason', 'superseded', '--by', 'bob']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('1 attempt: run run2 (every attempt) retracted by bob');
    const scoped = await report('--run', 'run2');
    expect(scoped.status).toBe(2);
    expect(scoped.stderr).toContain('run "run2" has no attempt to count: its attempts are retracted');

    const runs = await run(['runs', ...STORE]);
    expect(runs.status).toBe(0);
    const lines = runs.stdout.split('\n');
    expect(lines[0]).toMatch(
      /^run\s+attempts\s+cases\s+configs\s+foreign\s+retracted\s+spend\s+terminal states$/,
    );
    // The spend column: what the run cost (provider-reported else estimated), unpriced apart.
    // Money at a reader's precision (displayUsd: cents from $1, three significant digits below);
    // the --json rows keep the exact nanodollars.
    const usd = '\\$(0\\.0*[1-9][0-9]{0,2}|0\\.00|[1-9][0-9,]*\\.[0-9]{2})( \\+ [0-9]+ unpriced)?';
    expect(lines[1]).toMatch(
      new RegExp(`^run1\\s+8\\s+2\\s+2\\s+0\\s+1\\s+${usd}\\s+1 failed, 7 succeeded$`),
    );
    expect(lines[2]).toMatch(new RegExp(`^run2\\s+1\\s+1\\s+1\\s+0\\s+1\\s+${usd}\\s+1 succeeded$`));
    expect(lines[3]).toMatch(new RegExp(`^run3\\s+4\\s+3\\s+3\\s+4\\s+0\\s+${usd}\\s+4 succeeded$`));
    expect(runs.stdout).toContain('retractions:');
    expect(runs.stdout).toContain('attempt bad of run run1 retracted by alice');
    expect(runs.stdout).toContain('run run2 (every attempt) retracted by bob');
    // The footer says what is true: no option counts retracted attempts.
    expect(runs.stdout).toContain(
      'Foreign attempts (kept apart at ingest) count in no report, grid, comparison or gate unless --include-foreign; retracted ones count in none, ever.',
    );
    expect(runs.stdout).not.toContain('unless asked');
    const json = JSON.parse((await run(['runs', ...STORE, '--json'])).stdout) as {
      schema: string;
      runs: {
        runId: string;
        attempts: number;
        foreign: number;
        retracted: number;
        terminalStates: Record<string, number>;
      }[];
    };
    expect(json.schema).toBe('paperclip-evals/runs/v1');
    expect(
      json.runs.map(({ runId, attempts, foreign, retracted }) => ({ runId, attempts, foreign, retracted })),
    ).toEqual([
      { runId: 'run1', attempts: 8, foreign: 0, retracted: 1 },
      { runId: 'run2', attempts: 1, foreign: 0, retracted: 1 },
      { runId: 'run3', attempts: 4, foreign: 4, retracted: 0 },
    ]);
  });
});

describe('attempts ingested without --env, reported with it', () => {
  const BOOK2 = ['--store', 'sqlite:book2.sqlite'];
  const env = ['--env', 'evalbook.json'];

  it('--keep-foreign without --env is a usage error naming --env, before any work (no store created)', async () => {
    const result = await run(['ingest', 'foreign', '--store', 'sqlite:never.sqlite', '--keep-foreign']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("option '--keep-foreign' needs --env");
    expect(result.stdout).toBe('');
    expect(existsSync(join(dir, 'never.sqlite'))).toBe(false);
  });

  it('are left out as foreign (every mismatch the ingest rule knows), counted as left out, unless --include-foreign', async () => {
    // The suite's own attempts and the four foreign ones (a case typo, a config typo, a stale case
    // digest, a stale config digest), all ingested without an environment: nothing refuses them.
    const ingested = await run(['ingest', 'runs', 'runs2', 'foreign', ...BOOK2]);
    expect(ingested.status).toBe(0);
    expect(ingested.stdout).toContain('13 inserted');

    const reported = await run(['report', ...BOOK2, ...env, '--all-runs', '--fail-on', 'below:0.7']);
    expect(reported.status).toBe(0);
    const json = JSON.parse(reported.stdout) as ReportJson;
    expect(json.summary.cases).not.toContain('case_typo');
    expect(json.summary.configs).not.toContain('config_typo');
    expect(json.summary.leftOut.foreign).toBe(4);
    expect(reported.stderr).toContain('4 foreign');
    expect(json.summary.attempts).toBe(9);
    expect(json.attemptCount).toBe(9);

    // The gate judges the suite only: below:0.8 fails on cand alone, never on a foreign column.
    const gate = await run(['report', ...BOOK2, ...env, '--all-runs', '--fail-on', 'below:0.8']);
    expect(gate.status).toBe(1);
    expect(gateText(gate.stderr)).toMatch(
      /^gate below:0.8 failed on all runs: \d runs? pooled:\n {2}cand: solve rate 0.750 < 0.8\n$/,
    );

    const grid = await run(['grid', ...BOOK2, ...env]);
    expect(grid.status).toBe(0);
    expect(grid.stdout).not.toContain('case_typo');
    expect(grid.stdout).not.toContain('config_typo');
    expect(grid.stdout).toContain('4 attempts left out of every count: 4 foreign');
    // A foreign config is not there to compare with.
    const typo = await run(['compare', ...BOOK2, ...env, '--a', 'base', '--b', 'config_typo']);
    expect(typo.status).toBe(2);
    expect(typo.stderr).toContain('config_typo');
    const compared = JSON.parse(
      (await run(['compare', ...BOOK2, ...env, '--a', 'base', '--b', 'cand', '--json'])).stdout,
    ) as { leftOut: { foreign: number } };
    expect(compared.leftOut.foreign).toBe(4);

    // Asked for, they count like any other attempt, and the report says how many.
    const included = await run(['grid', ...BOOK2, ...env, '--include-foreign', '--json']);
    const includedGrid = JSON.parse(included.stdout) as {
      cases: string[];
      configs: string[];
      foreignIncluded: number;
      leftOut: { foreign: number };
    };
    expect(includedGrid.cases).toContain('case_typo');
    expect(includedGrid.configs).toContain('config_typo');
    expect(includedGrid.foreignIncluded).toBe(4);
    expect(includedGrid.leftOut.foreign).toBe(0);
    // Each listed attempt carries the mismatch the report's environment found.
    const listed = JSON.parse((await run(['report', ...BOOK2, ...env, '--include-foreign'])).stdout) as {
      attempts: { caseId: string; configId: string; environmentMismatch: { field: string }[] }[];
    };
    expect(
      listed.attempts
        .filter((attempt) => attempt.environmentMismatch.length > 0)
        .map((attempt) => attempt.environmentMismatch.map((item) => item.field).join())
        .sort(),
    ).toEqual(['case', 'caseSha256', 'config', 'configSha256']);

    // Without --env there is no suite to judge by: every attempt counts, as ingested.
    const plain = JSON.parse((await run(['grid', ...BOOK2, '--json'])).stdout) as { cases: string[] };
    expect(plain.cases).toContain('case_typo');
  });
});
