// --fail-on gates and repeated options end to end with the real `evals` binary: several gates are
// each judged and reported (stderr and every format), compare takes the same gates as report, a gate
// that needs a comparison without one is a usage error before the store is opened, case-regression
// sees a case that fell although the pooled Δ is 0, and a repeated selector is a usage error. The
// first run of each command in this file is the real binary; the later ones run its main()
// in-process (support/evals-in-process.ts), which sees the same exit code, stdout and stderr.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { firstRunSpawned } from './support/evals-in-process.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');
const STORE = ['--store', 'sqlite:book.sqlite'];
const AB = ['--a', 'base', '--b', 'cand'];

let dir: string;
const run = firstRunSpawned(
  (args) => {
    const result = spawnSync(EVALS, args, { cwd: dir, encoding: 'utf8' });
    return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
  },
  () => dir,
);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'evals-gates-e2e-'));
  mkdirSync(join(dir, 'runs'));
  // case_down falls 6/6 → 2/6 from base to cand, case_up rises 2/6 → 6/6: the pooled Δ is 0.
  const sides: [string, string, number][] = [
    ['case_down', 'base', 6],
    ['case_down', 'cand', 2],
    ['case_up', 'base', 2],
    ['case_up', 'cand', 6],
  ];
  for (const [caseId, configId, solved] of sides)
    for (let index = 0; index < 6; index++) {
      const attemptId = `${configId}-${caseId}-${index}`;
      const bundle = syntheticAttempt({
        caseId,
        configId,
        attemptId,
        ...(index < solved ? {} : { runTerminalState: 'failed' as const }),
      });
      writeFileSync(join(dir, 'runs', `${attemptId}.json`), JSON.stringify(bundle));
    }
  expect((await run(['ingest', 'runs', ...STORE])).status).toBe(0);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface GateJson {
  passed: boolean;
  gates: { failOn: string; passed: boolean; reasons: string[] }[];
}

describe('a repeated --fail-on', () => {
  it('judges every gate: a failing first gate fails the run, and every verdict is on stderr', async () => {
    const result = await run([
      'report',
      ...STORE,
      '--format',
      'md',
      '--fail-on',
      'below:0.9',
      '--fail-on',
      'below:0.1',
    ]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      'gate below:0.9 failed on newest run run_synthetic (the only run):\n  base: solve rate 0.667 < 0.9',
    );
    expect(result.stderr).toContain('gate below:0.1 held');
    expect(result.stderr).toContain('gates: 1 of 2 failed');
    expect(result.stdout).toContain('- `below:0.9`: **FAILED**');
    expect(result.stdout).toContain('- `below:0.1`: passed');
  });

  it('puts every verdict and the overall passed in the JSON report', async () => {
    const result = await run([
      'report',
      ...STORE,
      ...AB,
      '--fail-on',
      'below:0.1',
      '--fail-on',
      'case-regression:50',
    ]);
    expect(result.status).toBe(1);
    const gate = (JSON.parse(result.stdout) as { gate: GateJson }).gate;
    expect(gate.passed).toBe(false);
    expect(gate.gates.map((entry) => [entry.failOn, entry.passed])).toEqual([
      ['below:0.1', true],
      ['case-regression:50', false],
    ]);
    const held = await run(['report', ...STORE, '--fail-on', 'below:0.1', '--fail-on', 'below:0.5']);
    expect(held.status).toBe(0);
    expect(held.stderr).toContain('gates: all 2 held');
  });

  it('shows every gate in JUnit and HTML too', async () => {
    const junit = await run([
      'report',
      ...STORE,
      '--format',
      'junit',
      '--fail-on',
      'below:0.9',
      '--fail-on',
      'below:0.1',
    ]);
    expect(junit.status).toBe(1);
    expect(junit.stdout).toContain(
      '<testsuite name="gates" tests="2" failures="1" errors="0" skipped="0" time="0.000">',
    );
    const html = await run([
      'report',
      ...STORE,
      '--format',
      'html',
      '--fail-on',
      'below:0.9',
      '--fail-on',
      'below:0.1',
    ]);
    expect(html.status).toBe(1);
    expect(html.stdout).toContain('data-fail-on="below:0.9"');
    expect(html.stdout).toContain('data-fail-on="below:0.1"');
  });
});

describe('case-regression:PTS', () => {
  it('fails on case_down (6/6 → 2/6) although the pooled Δ is 0 and regression holds', async () => {
    const compared = JSON.parse((await run(['compare', ...STORE, ...AB, '--json'])).stdout) as {
      deltaSolveRate: number;
    };
    expect(compared.deltaSolveRate).toBeCloseTo(0, 12);
    expect((await run(['report', ...STORE, ...AB, '--fail-on', 'regression'])).status).toBe(0);
    const result = await run([
      'report',
      ...STORE,
      ...AB,
      '--format',
      'md',
      '--fail-on',
      'case-regression:50',
    ]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      'gate case-regression:50 failed on newest run run_synthetic (the only run):\n  case_down: 6/6 → 2/6 (−66.7 pts)\n',
    );
    expect(result.stderr).not.toContain('case_up');
    expect((await run(['report', ...STORE, ...AB, '--fail-on', 'case-regression:70'])).status).toBe(0);
  });

  it('takes PTS in (0, 100] only', async () => {
    for (const bad of [
      'case-regression:0',
      'case-regression:100.5',
      'case-regression:',
      'case-regression:-5',
    ]) {
      const result = await run(['report', ...STORE, ...AB, '--fail-on', bad]);
      expect(result.status).toBe(2);
      expect(result.stderr).toContain('case-regression:PTS with PTS above 0 and at most 100');
    }
    expect((await run(['report', ...STORE, ...AB, '--fail-on', 'case-regression:100'])).status).toBe(0);
  });
});

describe('compare --fail-on', () => {
  it('judges the same gates as report, with the same exit code and verdicts', async () => {
    const gates = ['--fail-on', 'case-regression:50', '--fail-on', 'below:0.1'];
    const compare = await run(['compare', ...STORE, ...AB, ...gates]);
    expect(compare.status).toBe(1);
    expect(compare.stdout).toContain('cand vs base (by config)');
    const report = await run(['report', ...STORE, ...AB, ...gates]);
    expect(compare.stderr).toBe(report.stderr);
    expect(compare.stderr).toContain(
      'gate case-regression:50 failed on newest run run_synthetic (the only run):',
    );
    expect(compare.stderr).toContain('gate below:0.1 held');
    expect((await run(['compare', ...STORE, ...AB, '--fail-on', 'below:0.1'])).status).toBe(0);
  });

  it('puts the verdicts in --json', async () => {
    const result = await run(['compare', ...STORE, ...AB, '--json', '--fail-on', 'case-regression:50']);
    expect(result.status).toBe(1);
    const json = JSON.parse(result.stdout) as { sharedCases: number; gate: GateJson };
    expect(json.sharedCases).toBe(2);
    expect(json.gate).toEqual({
      passed: false,
      view: {
        kind: 'newest_run',
        run: 'run_synthetic',
        runs: ['run_synthetic'],
        text: 'newest run run_synthetic (the only run)',
      },
      gates: [
        {
          failOn: 'case-regression:50',
          passed: false,
          reasons: ['case_down: 6/6 → 2/6 (−66.7 pts)'],
          judged: 'newest run run_synthetic (the only run)',
        },
      ],
    });
    expect(
      (JSON.parse((await run(['compare', ...STORE, ...AB, '--json'])).stdout) as { gate: unknown }).gate,
    ).toBeNull();
  });
});

describe('a gate that needs a comparison, without one', () => {
  it('is a usage error before the store is opened', async () => {
    for (const gate of ['regression', 'case-regression:50']) {
      const result = await run([
        'report',
        '--store',
        'sqlite:nowhere/book.sqlite',
        '--fail-on',
        'drift',
        '--fail-on',
        gate,
      ]);
      expect(result.status).toBe(2);
      expect(result.stderr).toContain(
        `--fail-on ${gate} judges a comparison, and none is named: add --a and --b`,
      );
      expect(result.stderr).not.toContain('no Evalbook');
      expect(result.stdout).toBe('');
      expect(existsSync(join(dir, 'nowhere'))).toBe(false);
      expect(
        (await run(['report', ...STORE, '--format', 'html', '--out', 'x.html', '--fail-on', gate])).status,
      ).toBe(2);
      expect(existsSync(join(dir, 'x.html'))).toBe(false);
    }
  });
});

describe('a repeated selector', () => {
  it.each([
    [
      ['report', ...STORE, '--run', 'run_synthetic', '--run', 'nightly-2'],
      "'--run <runId>'",
      '"run_synthetic", then "nightly-2"',
    ],
    [['report', ...STORE, '--format', 'md', '--format', 'json'], "'--format <format>'", '"md", then "json"'],
    [['report', ...STORE, '--out', 'a.json', '--out', 'b.json'], "'--out <file>'", '"a.json", then "b.json"'],
    [
      ['compare', ...STORE, '--a', 'base', '--a', 'cand', '--b', 'cand'],
      "'--a <config>'",
      '"base", then "cand"',
    ],
    [
      ['compare', ...STORE, '--a-run', 'x', '--b-run', 'y', '--b-run', 'z'],
      "'--b-run <runId>'",
      '"y", then "z"',
    ],
    [
      ['grid', '--store', 'sqlite:book.sqlite', '--store', 'sqlite:other.sqlite'],
      "'--store <url>'",
      '"sqlite:book.sqlite", then "sqlite:other.sqlite"',
    ],
    [['ingest', 'runs', '--env', 'a.yaml', '--env', 'b.yaml'], "'--env <file>'", '"a.yaml", then "b.yaml"'],
  ])('%j is a usage error naming the option and both values', async (args, option, values) => {
    const result = await run(args);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`option ${option} given twice (${values})`);
    expect(result.stdout).toBe('');
    expect(existsSync(join(dir, 'a.json'))).toBe(false);
    expect(existsSync(join(dir, 'b.json'))).toBe(false);
  });

  it('--run says why it is not a union', async () => {
    expect((await run(['grid', ...STORE, '--run', 'a', '--run', 'b'])).stderr).toContain(
      'leave --run out to count every run, or compare two runs with --a-run and --b-run',
    );
  });
});

describe('--help of report and compare', () => {
  it.each(['report', 'compare'])('%s teaches repeatable gates and case-regression', async (command) => {
    // As a reader reads it: the help is wrapped to the terminal's width, so words may break across lines.
    const help = (await run([command, '--help'])).stdout.replace(/\s+/g, ' ');
    expect(help).toContain('--fail-on <gate>');
    expect(help).toContain('repeatable: every gate must hold, and each verdict is reported');
    expect(help).toContain('case-regression:PTS');
    expect(help).toContain('Every option but --fail-on is given once: repeating one is a usage error');
  });
});
