// `evals init` and `evals report` end to end with the real `evals` binary: the starter environment
// loads as is and is never overwritten; the JSON report lists every ingested attempt with its
// statuses and cost with provenance, matches the store, never creates a store that is not there, and
// writes --out atomically; the CSV has the same attempts and exact costs; Markdown links a published
// HTML report and refuses an --html-url it cannot link safely. Each command's first run here is the
// real binary; the later ones run its main() in-process (support/evals-in-process.ts).
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { firstRunSpawned } from './support/evals-in-process.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');

interface Report {
  schema: string;
  attemptCount: number;
  attempts: {
    attemptId: string;
    status: string;
    configId: string;
    bundleDigest: string;
    terminal: { run: string };
    transcript: { complete: boolean };
    denials: number;
    checks: { checkId: string; status: string }[];
    cost: {
      coverage: string;
      effectiveNanodollars: number | null;
      providerReportedProvenance: string | null;
    };
  }[];
  summary: {
    coverage: { text: string; priced: number; unpriced: number; pricedTotalNanodollars: number };
    configStats: {
      configId: string;
      solved: number;
      denominator: { counted: number };
      cost: { attempts: number };
    }[];
    grid: { caseId: string; configId: string; solved: number }[];
  };
  budgets: { scope: string; status: string; configId: string | null }[];
}

let dir: string;
/** The first run of each command in this file is the real binary, the later ones main() in-process. */
const run = firstRunSpawned(
  (args) => {
    const result = spawnSync(EVALS, args, { cwd: dir, encoding: 'utf8' });
    return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
  },
  () => dir,
);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evals-report-e2e-'));
  mkdirSync(join(dir, 'runs'));
  const attempts = [
    { attemptId: 'a0', configId: 'config_a' },
    { attemptId: 'a1', configId: 'config_a', runTerminalState: 'failed' as const },
    { attemptId: 'a2', configId: 'config_b', costMicros: null },
    { attemptId: 'a3', configId: 'config_b', transcriptOmission: 'stream closed' },
  ];
  for (const options of attempts)
    writeFileSync(join(dir, 'runs', `${options.attemptId}.json`), JSON.stringify(syntheticAttempt(options)));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('evals init', () => {
  it('writes a starter that loads as is, and never overwrites', async () => {
    const first = await run(['init', 'book.yaml']);
    expect(first.status).toBe(0);
    expect(first.stdout).toContain('wrote book.yaml');
    const written = readFileSync(join(dir, 'book.yaml'), 'utf8');
    expect(written).toContain('# Evalbook environment');
    const again = await run(['init', 'book.yaml']);
    expect(again.status).toBe(2);
    expect(again.stderr).toContain('already exists');
    expect(readFileSync(join(dir, 'book.yaml'), 'utf8')).toBe(written);
    // loads as is: ingest takes it as --env (and refuses our synthetic attempts: not of its suite)
    const ingest = await run([
      'ingest',
      'runs',
      '--env',
      'book.yaml',
      '--store',
      'sqlite:init.sqlite',
      '--json',
    ]);
    expect(ingest.status).toBe(1);
    expect((JSON.parse(ingest.stdout) as { foreign: unknown[] }).foreign).toHaveLength(4);
    expect(existsSync(join(dir, 'init.sqlite'))).toBe(false);
  });
});

describe('evals report --format json', () => {
  it('refuses a store that is not there and creates nothing', async () => {
    const result = await run(['report', '--store', 'sqlite:missing/book.sqlite']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('no Evalbook at missing/book.sqlite');
    expect(result.stdout).toBe('');
    expect(existsSync(join(dir, 'missing'))).toBe(false);
  });

  it('lists every attempt with statuses and cost with provenance, to stdout and atomically to --out', async () => {
    expect((await run(['ingest', 'runs', '--store', 'sqlite:book.sqlite'])).status).toBe(0);
    const stdout = await run(['report', '--store', 'sqlite:book.sqlite', '--format', 'json']);
    expect(stdout.status).toBe(0);
    const report = JSON.parse(stdout.stdout) as Report;
    expect(report.schema).toBe('paperclip-evals/report/v1');
    expect(report.attemptCount).toBe(4);
    expect(report.attempts.map((attempt) => attempt.attemptId)).toEqual(['a0', 'a1', 'a2', 'a3']);
    const byId = Object.fromEntries(report.attempts.map((attempt) => [attempt.attemptId, attempt]));
    expect(byId.a1?.terminal.run).toBe('failed');
    expect(byId.a3?.transcript.complete).toBe(false);
    expect(byId.a0?.denials).toBe(1);
    expect(byId.a0?.checks[0]).toMatchObject({ status: 'pass' });
    expect(byId.a0?.cost).toMatchObject({
      coverage: 'provider_reported',
      providerReportedProvenance: 'usage.cost',
    });
    // unpriced is null, never 0, and left out of the total
    expect(byId.a2?.cost).toMatchObject({ coverage: 'unpriced', effectiveNanodollars: null });
    expect(report.summary.coverage).toMatchObject({ priced: 3, unpriced: 1 });
    expect(report.summary.coverage.pricedTotalNanodollars).toBe(
      report.attempts.reduce((sum, attempt) => sum + (attempt.cost.effectiveNanodollars ?? 0), 0),
    );
    expect(report.summary.coverage.text).toBe('3 of 4 attempts priced (3 provider-reported, 0 estimated)');
    expect(report.summary.configStats.map((config) => [config.configId, config.cost.attempts])).toEqual([
      ['config_a', 2],
      ['config_b', 2],
    ]);
    // statuses: a1's run failed (a runner failure: errored, not unsolved); a3's transcript is incomplete
    expect(report.attempts.map((attempt) => attempt.status)).toEqual([
      'solved',
      'errored',
      'solved',
      'incomplete',
    ]);

    const toFile = await run(['report', '--store', 'sqlite:book.sqlite', '--out', 'report.json']);
    expect(toFile.status).toBe(0);
    expect(toFile.stdout).toBe('');
    expect(toFile.stderr).toContain('wrote report.json: 4 attempts');
    expect(JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'))).toEqual(report);
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('checks budgets from the environment: unpriced attempts leave a budget unproven, never within', async () => {
    // The starter's budgets and pricing, with the suite these attempts are of (an environment that
    // does not list their case and configs would leave every one out as foreign).
    const suite = (configId: string) =>
      syntheticAttempt({ configId }).input as { caseSha256: string; configSha256: string };
    const configs = ['config_a', 'config_b']
      .map(
        (id) =>
          `  - id: ${id}\n    sha256: ${suite(id).configSha256}\n    model: example-model\n    driver: paperclip-deterministic\n`,
      )
      .join('');
    const starter = readFileSync(join(dir, 'book.yaml'), 'utf8');
    const env =
      `${starter.slice(0, starter.indexOf('cases:'))}cases:\n  - id: case_synthetic\n    sha256: ${suite('config_a').caseSha256}\nconfigs:\n${configs}${starter.slice(starter.indexOf('# USD per million'))}`.replace(
        'perConfigUsd: 20',
        'perConfigUsd: 0.001',
      );
    writeFileSync(join(dir, 'tight.yaml'), env);
    const result = await run(['report', '--store', 'sqlite:book.sqlite', '--env', 'tight.yaml']);
    expect(result.status).toBe(0);
    const budgets = (JSON.parse(result.stdout) as Report).budgets;
    expect(budgets.map((budget) => [budget.scope, budget.configId, budget.status])).toEqual([
      ['run', null, 'unproven'],
      ['config', 'config_a', 'exceeded'],
      ['config', 'config_b', 'exceeded'],
    ]);
  });
});

describe('evals report --format csv and --html-url', () => {
  it('writes one CSV row per attempt, its cost exactly as the JSON report has it, unpriced empty', async () => {
    const json = JSON.parse((await run(['report', '--store', 'sqlite:book.sqlite'])).stdout) as Report;
    const csv = await run([
      'report',
      '--store',
      'sqlite:book.sqlite',
      '--format',
      'csv',
      '--out',
      'attempts.csv',
    ]);
    expect(csv.status).toBe(0);
    const [header = [], ...rows] = parse(readFileSync(join(dir, 'attempts.csv'), 'utf8'));
    expect(rows).toHaveLength(json.attemptCount);
    const column = (name: string): (string | undefined)[] => rows.map((row) => row[header.indexOf(name)]);
    expect(column('attempt')).toEqual(json.attempts.map((attempt) => attempt.attemptId));
    expect(column('status')).toEqual(json.attempts.map((attempt) => attempt.status));
    expect(column('cost_coverage')).toEqual(json.attempts.map((attempt) => attempt.cost.coverage));
    // Exact: nine decimals of USD are the nanodollars; unknown is empty, never 0.
    expect(column('cost_usd')).toEqual(
      json.attempts.map((attempt) =>
        attempt.cost.effectiveNanodollars === null
          ? ''
          : (attempt.cost.effectiveNanodollars / 1e9).toFixed(9),
      ),
    );
    expect(column('cost_usd')).toContain('');
  });

  it('links the published HTML report from the Markdown, under its verdict line', async () => {
    const md = await run([
      'report',
      '--store',
      'sqlite:book.sqlite',
      '--format',
      'md',
      '--html-url',
      'https://ci.example/runs/42/report.html',
    ]);
    expect(md.status).toBe(0);
    const lines = md.stdout.split('\n');
    expect(lines[2]).toMatch(/^\*\*Verdict: no gate\*\* — \d+ attempts over /);
    expect(lines[4]).toBe('Full report: [HTML report](https://ci.example/runs/42/report.html)');
  });

  it.each([
    [['--format', 'md', '--html-url', 'javascript:alert(1)'], /--html-url: has the scheme javascript:/],
    [['--format', 'json', '--html-url', 'https://ci.example/r.html'], /it needs --format md/],
    [['--format', 'md', '--html-url', 'https://bob:hunter2@ci.example/r.html'], /carries a user or password/],
    [['--format', 'md', '--html-url', 'https://ci.example/r.html?token=hunter2'], /carries a secret/],
    [
      [
        '--format',
        'md',
        '--html-url',
        'https://b.s3.amazonaws.com/r.html?X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2Fhunter2&X-Amz-Signature=hunter2beef',
      ],
      /carries a secret/,
    ],
  ])('refuses %j before reading the store (exit 2), echoing no password', async (args, message) => {
    const result = await run(['report', '--store', 'sqlite:missing.sqlite', ...args]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr + result.stdout).not.toContain('hunter2');
    expect(result.stderr + result.stdout).not.toContain('AKIAIOSFODNN7EXAMPLE');
    expect(existsSync(join(dir, 'missing.sqlite'))).toBe(false);
  });
});

describe('evals report: Markdown, JUnit and the --fail-on gate; evals grid and compare', () => {
  it('renders Markdown for a PR comment and JUnit with failures and errors distinct', async () => {
    const md = await run([
      'report',
      '--store',
      'sqlite:book.sqlite',
      '--format',
      'md',
      '--a',
      'config_a',
      '--b',
      'config_b',
    ]);
    expect(md.status).toBe(0);
    expect(md.stdout).toContain('### config_b vs config_a (by config)');
    expect(md.stdout).toContain('| config_a | 50.0%');
    expect(md.stdout).toContain('3 of 4 attempts priced');
    const junit = await run(['report', '--store', 'sqlite:book.sqlite', '--format', 'junit']);
    expect(junit.status).toBe(0);
    expect(junit.stdout).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>/);
    expect(junit.stdout).toMatch(
      /<testsuite name="config_a" tests="1" failures="0" errors="1" skipped="0" time="\d+\.\d{3}">/,
    );
    expect(junit.stdout).toContain('type="errored"');
    expect(junit.stdout).toContain('type="incomplete"');
  });

  it('gates CI: below:RATE exits 1 with reasons on stderr; a held gate exits 0; regression needs --a/--b', async () => {
    const below = await run([
      'report',
      '--store',
      'sqlite:book.sqlite',
      '--format',
      'md',
      '--fail-on',
      'below:0.8',
    ]);
    expect(below.status).toBe(1);
    expect(below.stderr).toContain('config_a: solve rate 0.500 < 0.8');
    expect((await run(['report', '--store', 'sqlite:book.sqlite', '--fail-on', 'below:0.4'])).status).toBe(0);
    // regression judges a comparison: without --a/--b it is a usage error, not a failed gate
    const noComparison = await run(['report', '--store', 'sqlite:book.sqlite', '--fail-on', 'regression']);
    expect(noComparison.status).toBe(2);
    expect(noComparison.stderr).toContain('--fail-on regression judges a comparison, and none is named');
    const bad = await run(['report', '--store', 'sqlite:book.sqlite', '--fail-on', 'below:80']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('expected regression, case-regression:PTS');
  });

  it('prints the grid and a comparison, and their JSON', async () => {
    const grid = await run(['grid', '--store', 'sqlite:book.sqlite']);
    expect(grid.status).toBe(0);
    expect(grid.stdout).toMatch(/case_synthetic\s+1\/2 \[\d+%–\d+%\]\s+1\/2/);
    const gridJson = JSON.parse((await run(['grid', '--store', 'sqlite:book.sqlite', '--json'])).stdout) as {
      grid: { configId: string; solved: number }[];
    };
    expect(gridJson.grid.map((cell) => [cell.configId, cell.solved])).toEqual([
      ['config_a', 1],
      ['config_b', 1],
    ]);
    const compare = await run([
      'compare',
      '--store',
      'sqlite:book.sqlite',
      '--a',
      'config_a',
      '--b',
      'config_b',
      '--json',
    ]);
    expect(compare.status).toBe(0);
    expect(JSON.parse(compare.stdout)).toMatchObject({
      sharedCases: 1,
      aWins: 0,
      bWins: 0,
      ties: 1,
      mcnemarP: 1,
      deltaSolveRate: 0,
      deltaSolveRateCi95: null, // one shared case: resampling it says nothing
    });
    const usage = await run(['compare', '--store', 'sqlite:book.sqlite', '--a', 'config_a']);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('--a and --b go together');
  });
});
