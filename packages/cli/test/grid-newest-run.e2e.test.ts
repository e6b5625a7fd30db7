// Issue 19, "never a pooled green cell hiding a collapse", on every grid surface of the real `evals`
// binary: a store of two runs whose newest collapsed (refactor × candidate: 12 of 12 solved in
// nightly-1, 0 of 3 in nightly-2, so 80% pooled and green) — the terminal grid, `grid --json`
// (validated against its schema), the Markdown report, the JUnit testcases and the HTML report show
// the newest run by default, the collapse and its trend in words; `--all-runs` pools and says so;
// `--all-runs` with `--run` is a usage error; a store of one run looks as it did but for the header.
// Every verdict follows the same view: `--fail-on below:0.8` fails on the newest run (candidate 1/4)
// and holds on all runs pooled (14/17), and below:0.25 holds at exactly the newest rate, on every format's exit code, with the view in
// the Markdown verdict line, the JSON, the JUnit gate testcase, the HTML configs and stderr; a
// comparison of configs pairs the newest run too.
// (CSV is one row per attempt, each with its run: there is no cell to pool; the published site's
// campaign grid is one campaign's run alone: packages/app/test/site-publish.test.ts.) The first run
// of each command is the binary, the later ones its program in this process (firstRunSpawned).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { schemaErrors } from '../../contract/src/schema-registry.ts';
import { EVALS_BIN } from '@paperclip-evals/test-kit/repo';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { firstRunSpawned } from './support/evals-in-process.ts';

const GRID_SCHEMA = 'https://paperclip-evals.dev/schemas/grid/v1.json';
const REPORT_SCHEMA = 'https://paperclip-evals.dev/schemas/report/v1.json';

let dir: string;

/** The first run of each command (ingest, grid, report) is the binary; the later ones in-process. */
const run = firstRunSpawned(
  (args) => {
    const result = spawnSync(process.execPath, [EVALS_BIN, ...args], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });
    return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
  },
  () => dir,
  { NO_COLOR: '1' },
);

async function evals(args: string[], status = 0): Promise<{ stdout: string; stderr: string }> {
  const result = await run(args);
  if (result.status !== status)
    throw new Error(
      `evals ${args.join(' ')} exited ${String(result.status)}, not ${status}: ${result.stderr}${result.stdout}`,
    );
  return { stdout: result.stdout, stderr: result.stderr };
}

let file = 0;
function bundle(
  folder: string,
  runId: string,
  day: number,
  caseId: string,
  configId: string,
  solved: boolean,
): void {
  const attemptId = `${runId}-${caseId}-${configId}-${file}`;
  const attempt = syntheticAttempt({
    runId,
    caseId,
    configId,
    attemptId,
    deniedCalls: 0,
    startedAtMs: Date.UTC(2026, 10, day, 2, 0, file % 60),
  }) as { observations?: unknown };
  attempt.observations = { checks: [{ id: 'tests-pass', passed: solved }] };
  writeFileSync(join(dir, folder, `${String(file++).padStart(4, '0')}.json`), JSON.stringify(attempt));
}

const TWO = ['--store', 'sqlite:two.sqlite'];
const ONE = ['--store', 'sqlite:one.sqlite'];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'evals-grid-newest-'));
  mkdirSync(join(dir, 'two'));
  mkdirSync(join(dir, 'one'));
  // nightly-1: every cell solves; refactor × candidate twelve times. nightly-2: that cell fails 3 of 3.
  for (let index = 0; index < 12; index++) bundle('two', 'nightly-1', 1, 'refactor', 'candidate', true);
  for (const [caseId, configId] of [
    ['refactor', 'baseline'],
    ['typo', 'baseline'],
    ['typo', 'candidate'],
  ] as const) {
    bundle('two', 'nightly-1', 1, caseId, configId, true);
    bundle('two', 'nightly-2', 2, caseId, configId, true);
  }
  for (let index = 0; index < 3; index++) bundle('two', 'nightly-2', 2, 'refactor', 'candidate', false);
  await evals(['ingest', 'two', ...TWO]);
  for (const configId of ['baseline', 'candidate']) bundle('one', 'only-run', 3, 'typo', configId, true);
  await evals(['ingest', 'one', ...ONE]);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The terminal grid's row of a case, cells split on two or more spaces. */
const row = (stdout: string, caseId: string): string[] =>
  (stdout.split('\n').find((line) => line.startsWith(`${caseId} `)) ?? '').split(/ {2,}/);

describe('evals grid (terminal)', () => {
  it('shows the newest run by default: the collapse, its trend in words, and says which run', async () => {
    const { stdout } = await evals(['grid', ...TWO]);
    expect(stdout.split('\n')[0]).toBe('newest run nightly-2 (of 2 runs) — --all-runs pools every run');
    const [, baseline, candidate] = row(stdout, 'refactor');
    expect(candidate).toMatch(/^0\/3 \[0%–56%\] ↓ down 100 pts/);
    expect(baseline).toMatch(/^1\/1 \[21%–100%\] = same/);
    expect(stdout).toContain('trend: since the cell');
    // The footer's counts are of every run in scope, and say so under a one-run grid.
    expect(stdout).toMatch(/^artifacts of the attempts of all 2 runs: /m);
    expect(stdout).toMatch(/^denominator: .* over budget in all 2 runs\.$/m);
  });

  it('--all-runs pools every run and says so', async () => {
    const { stdout } = await evals(['grid', '--all-runs', ...TWO]);
    expect(stdout.split('\n')[0]).toBe('all runs: 2 runs pooled');
    const [, , candidate] = row(stdout, 'refactor');
    expect(candidate).toMatch(/^12\/15 \[55%–93%\]$/);
    expect(stdout).not.toContain('↓');
    expect(stdout).toMatch(/^artifacts of the attempts: /m);
    expect(stdout).toMatch(/^denominator: .* over budget in all\.$/m);
  });

  it('--run scopes to one run, with the trend against the runs before it', async () => {
    const first = (await evals(['grid', '--run', 'nightly-1', ...TWO])).stdout;
    expect(first.split('\n')[0]).toBe('run nightly-1');
    expect(row(first, 'refactor')[2]).toMatch(/^12\/12 \[76%–100%\] new/);
    expect(row((await evals(['grid', '--run', 'nightly-2', ...TWO])).stdout, 'refactor')[2]).toMatch(
      /↓ down 100 pts/,
    );
  });

  it('refuses --all-runs with --run (exit 2), naming both', async () => {
    const { stderr } = await evals(['grid', '--all-runs', '--run', 'nightly-1', ...TWO], 2);
    expect(stderr).toMatch(/--all-runs/);
    expect(stderr).toMatch(/--run/);
  });

  it('a store of one run looks as before, but for its header', async () => {
    const { stdout } = await evals(['grid', ...ONE]);
    const lines = stdout.split('\n');
    expect(lines[0]).toBe('newest run only-run (the only run)');
    expect(lines[1]).toMatch(/^case +baseline +candidate *$/);
    expect(lines[2]).toMatch(/^typo +1\/1 \[21%–100%\] +1\/1 \[21%–100%\] *$/);
    expect(lines.slice(1).join('\n')).not.toMatch(/trend:|new|↑|↓|=/);
  });
});

describe('evals grid --json', () => {
  interface Grid {
    view: string;
    gridRuns: string[];
    latestRun: string;
    grid: { caseId: string; configId: string; solveRate: number }[];
    latestGrid: { caseId: string; configId: string; solveRate: number; trend: string; runId: string }[];
  }
  const of = <T extends { caseId: string; configId: string }>(cells: T[]): T =>
    cells.find((cell) => cell.caseId === 'refactor' && cell.configId === 'candidate')!;

  it('says which runs each grid covers and each newest cell its trend, and holds to its schema', async () => {
    const json = JSON.parse((await evals(['grid', '--json', ...TWO])).stdout) as Grid;
    expect(schemaErrors(GRID_SCHEMA, json)).toEqual([]);
    expect(json.view).toBe('newest_run');
    expect(json.gridRuns).toEqual(['nightly-1', 'nightly-2']);
    expect(json.latestRun).toBe('nightly-2');
    expect(of(json.latestGrid)).toMatchObject({ solveRate: 0, trend: 'down', runId: 'nightly-2' });
    expect(of(json.grid).solveRate).toBe(0.8);
    expect(json.latestGrid.filter((cell) => cell.trend === 'same')).toHaveLength(3);
  });

  it('--all-runs: view all_runs, the same grids', async () => {
    const json = JSON.parse((await evals(['grid', '--json', '--all-runs', ...TWO])).stdout) as Grid;
    expect(schemaErrors(GRID_SCHEMA, json)).toEqual([]);
    expect(json.view).toBe('all_runs');
    expect(of(json.grid).solveRate).toBe(0.8);
  });

  it('the schema refuses a newest cell without its trend, or an unknown view', async () => {
    const json = JSON.parse((await evals(['grid', '--json', ...TWO])).stdout) as Grid;
    const { trend: _trend, ...bare } = json.latestGrid[0]!;
    expect(schemaErrors(GRID_SCHEMA, { ...json, latestGrid: [bare] })).not.toEqual([]);
    expect(schemaErrors(GRID_SCHEMA, { ...json, view: 'pooled' })).not.toEqual([]);
    const { gridRuns: _runs, ...noRuns } = json;
    expect(schemaErrors(GRID_SCHEMA, noRuns)).not.toEqual([]);
  });
});

describe('evals report', () => {
  it('Markdown: the newest run grid shows the collapse; --all-runs the pooled figure', async () => {
    const md = (await evals(['report', '--format', 'md', ...TWO])).stdout;
    expect(md).toContain('### Grid: newest run nightly-2 (of 2 runs)');
    expect(md).toMatch(/\| refactor \| 1\/1 100\.0% = same \| 0\/3 0\.0% ↓ down 100 pts \|/);
    const pooled = (await evals(['report', '--format', 'md', '--all-runs', ...TWO])).stdout;
    expect(pooled).toContain('### Grid: all runs: 2 runs pooled');
    expect(pooled).toMatch(/\| refactor \| 2\/2 100\.0% \| 12\/15 80\.0% \|/);
  });

  it("JUnit: the newest run's testcase fails with its trend; --all-runs counts every run", async () => {
    const xml = (await evals(['report', '--format', 'junit', ...TWO])).stdout;
    const testcase = (text: string): string =>
      /<testcase name="refactor" classname="candidate"[^>]*>[\s\S]*?<\/testcase>/.exec(text)?.[0] ?? '';
    expect(testcase(xml)).toContain(
      'message="0/3 solved in nightly-2 (↓ down 100 pts since nightly-1: was 12/12); 3 unsolved"',
    );
    expect(xml).toContain('<property name="grid.runs" value="newest run nightly-2 (of 2 runs)"/>');
    const pooled = (await evals(['report', '--format', 'junit', '--all-runs', ...TWO])).stdout;
    expect(testcase(pooled)).toContain('message="12/15 solved; 3 unsolved"');
    expect(pooled).toContain('<property name="grid.runs" value="all runs: 2 runs pooled"/>');
  });

  it('JSON: gridView says which grid the surfaces show, and the report holds to its schema', async () => {
    for (const [flags, view] of [
      [[], 'newest_run'],
      [['--all-runs'], 'all_runs'],
    ] as const) {
      const json = JSON.parse((await evals(['report', ...flags, ...TWO])).stdout) as {
        gridView: string;
        summary: { gridRuns: string[]; latestGrid: { trend: string }[] };
      };
      expect(schemaErrors(REPORT_SCHEMA, json)).toEqual([]);
      expect(json.gridView).toBe(view);
      expect(json.summary.gridRuns).toEqual(['nightly-1', 'nightly-2']);
    }
  });

  it('HTML: the page opens on the newest run, or on all runs with --all-runs', async () => {
    const scope = (html: string): string => /"defaultScope":"(\w+)"/.exec(html)?.[1] ?? 'missing';
    expect(scope((await evals(['report', '--format', 'html', ...TWO])).stdout)).toBe('latest');
    const pooled = (await evals(['report', '--format', 'html', '--all-runs', ...TWO])).stdout;
    expect(scope(pooled)).toBe('all');
    expect(pooled).toContain('data-scope-button="all" aria-pressed="true"');
    // The Attempts card counts every run in scope whichever view opens, and says so.
    expect(pooled).toMatch(/data-summary="attempts"[^>]*>.*? solved · all 2 runs<\/div>/);
  });

  it('refuses --all-runs with --run or --attempt (exit 2)', async () => {
    await evals(['report', '--format', 'md', '--all-runs', '--run', 'nightly-2', ...TWO], 2);
    await evals(['report', '--attempt', 'x', '--all-runs', ...TWO], 2);
  });
});

describe('every verdict follows the view the grid shows', () => {
  const GATE = ['--fail-on', 'below:0.8'];

  it('below:0.8 gates the newest run (exit 1) and holds on all runs pooled (14/17) (exit 0), in every format', async () => {
    for (const format of ['json', 'md', 'junit', 'html', 'csv']) {
      const newest = await evals(['report', '--format', format, ...GATE, ...TWO], 1);
      expect(newest.stderr).toContain(
        'gate below:0.8 failed on newest run nightly-2 (of 2 runs):\n  candidate: solve rate 0.250 < 0.8',
      );
      const pooled = await evals(['report', '--format', format, '--all-runs', ...GATE, ...TWO], 0);
      expect(pooled.stderr).toContain('gate below:0.8 held on all runs: 2 runs pooled');
    }
    // exactly the newest run's rate (1 of 4) holds; a hair above fails
    await evals(['report', '--fail-on', 'below:0.25', ...TWO], 0);
    await evals(['report', '--fail-on', 'below:0.26', ...TWO], 1);
    // --run scopes: nightly-1 solved every attempt
    expect((await evals(['report', '--run', 'nightly-1', ...GATE, ...TWO], 0)).stderr).toContain(
      'gate below:0.8 held on run nightly-1',
    );
  });

  it('JSON says the view of the verdicts and has both runs’ config rates', async () => {
    const json = JSON.parse((await evals(['report', ...GATE, ...TWO], 1)).stdout) as {
      view: unknown;
      gate: { view: unknown; gates: { judged: string }[] };
      summary: {
        configStats: { configId: string; solveRate: number }[];
        latestConfigStats: { configId: string; solveRate: number }[];
      };
    };
    expect(schemaErrors(REPORT_SCHEMA, json)).toEqual([]);
    const view = {
      kind: 'newest_run',
      run: 'nightly-2',
      runs: ['nightly-2'],
      text: 'newest run nightly-2 (of 2 runs)',
    };
    expect(json.view).toEqual(view);
    expect(json.gate.view).toEqual(view);
    const rate = (stats: { configId: string; solveRate: number }[]) =>
      stats.find((config) => config.configId === 'candidate')?.solveRate;
    expect(rate(json.summary.latestConfigStats)).toBe(0.25);
    expect(rate(json.summary.configStats)).toBe(14 / 17);
    const pooled = JSON.parse((await evals(['report', '--all-runs', ...GATE, ...TWO], 0)).stdout) as {
      view: unknown;
    };
    expect(pooled.view).toEqual({
      kind: 'all_runs',
      run: null,
      runs: ['nightly-1', 'nightly-2'],
      text: 'all runs: 2 runs pooled',
    });
  });

  it('Markdown: the verdict line and the Configs table are the newest run’s, and say so', async () => {
    const md = (await evals(['report', '--format', 'md', ...GATE, ...TWO], 1)).stdout;
    expect(md.split('\n')[2]).toBe(
      '**Verdict: gate failed** — 6 attempts over 2 cases × 2 configs, 3 solved (50.0%), in newest run nightly-2 (of 2 runs); `--all-runs` pools every run.',
    );
    expect(md).toContain(
      '- `below:0.8`: **FAILED** on newest run nightly-2 (of 2 runs) — candidate: solve rate 0.250 \\< 0.8',
    );
    expect(md).toMatch(/\| candidate \| 25\.0% \[[^\]]+\] \| 1 \/ 4 \|/);
    const pooled = (await evals(['report', '--format', 'md', '--all-runs', ...GATE, ...TWO], 0)).stdout;
    expect(pooled.split('\n')[2]).toBe(
      '**Verdict: gate passed** — 21 attempts over 2 cases × 2 configs, 18 solved (85.7%), in all runs: 2 runs pooled.',
    );
    expect(pooled).toMatch(/\| candidate \| 82\.4% \[[^\]]+\] \| 14 \/ 17 \|/);
  });

  it('JUnit: the gate testcase says what it judged, and the gates suite its view', async () => {
    const xml = (await evals(['report', '--format', 'junit', ...GATE, ...TWO], 1)).stdout;
    expect(xml).toContain('<property name="gates.view" value="newest run nightly-2 (of 2 runs)"/>');
    expect(xml).toContain('gate below:0.8 failed on newest run nightly-2 (of 2 runs):');
  });

  it('HTML: the configs table and the rate plot are the newest run’s, and say so', async () => {
    const rate = (html: string): string =>
      /<tr data-config="candidate" data-rate="([^"]*)"/.exec(html)?.[1] ?? 'missing';
    const html = (await evals(['report', '--format', 'html', ...GATE, ...TWO], 1)).stdout;
    expect(rate(html)).toBe('0.25');
    expect(html).toContain('Per-config rates of newest run nightly-2 (of 2 runs)');
    expect(html).toContain('Gate <code>below:0.8</code>: FAILED on newest run nightly-2 (of 2 runs)');
    expect(rate((await evals(['report', '--format', 'html', '--all-runs', ...TWO])).stdout)).toBe(
      String(14 / 17),
    );
  });

  it('compare: configs are paired within the newest run, or over every run with --all-runs', async () => {
    const args = ['compare', '--a', 'baseline', '--b', 'candidate', '--json', ...TWO];
    const newest = JSON.parse((await evals(args)).stdout) as {
      runs: string[];
      view: { kind: string };
      regressions: { caseId: string; bSolved: number; bCounted: number }[];
    };
    expect(newest.runs).toEqual(['nightly-2']);
    expect(newest.view.kind).toBe('newest_run');
    expect(newest.regressions).toMatchObject([{ caseId: 'refactor', bSolved: 0, bCounted: 3 }]);
    const pooled = JSON.parse((await evals([...args, '--all-runs'])).stdout) as {
      runs: string[];
      regressions: { bSolved: number; bCounted: number }[];
    };
    expect(pooled.runs).toEqual(['nightly-1', 'nightly-2']);
    expect(pooled.regressions).toMatchObject([{ bSolved: 12, bCounted: 15 }]);
    expect((await evals(['compare', '--a', 'baseline', '--b', 'candidate', ...TWO])).stdout).toContain(
      'configs compared in newest run nightly-2 (of 2 runs) — --all-runs pools every run',
    );
    // runs compared are named: --all-runs is for configs
    await evals(['compare', '--a-run', 'nightly-1', '--b-run', 'nightly-2', '--all-runs', ...TWO], 2);
  });
});
