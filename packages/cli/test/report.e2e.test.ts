// `evals init` and `evals report --format json` end to end with the real `evals` binary: the starter
// environment loads as is and is never overwritten; the report lists every ingested attempt with its
// statuses and cost with provenance, matches the store, never creates a store that is not there, and
// writes --out atomically.
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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { syntheticAttempt } from '../../../scripts/attempts/synthetic.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');

interface Report {
  schema: string;
  attemptCount: number;
  attempts: {
    attemptId: string;
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
  coverage: { text: string; priced: number; unpriced: number; pricedTotalNanodollars: number };
  coverageByConfig: { configId: string; attempts: number }[];
  budgets: { scope: string; status: string; configId: string | null }[];
}

let dir: string;
const run = (args: string[]) => {
  const result = spawnSync(EVALS, args, { cwd: dir, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
};

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
  it('writes a starter that loads as is, and never overwrites', () => {
    const first = run(['init', 'book.yaml']);
    expect(first.status).toBe(0);
    expect(first.stdout).toContain('wrote book.yaml');
    const written = readFileSync(join(dir, 'book.yaml'), 'utf8');
    expect(written).toContain('# Evalbook environment');
    const again = run(['init', 'book.yaml']);
    expect(again.status).toBe(2);
    expect(again.stderr).toContain('already exists');
    expect(readFileSync(join(dir, 'book.yaml'), 'utf8')).toBe(written);
    // loads as is: ingest accepts it as --env (and flags our synthetic attempts as mismatches)
    const ingest = run(['ingest', 'runs', '--env', 'book.yaml', '--store', 'sqlite:init.sqlite', '--json']);
    expect(ingest.status).toBe(0);
    expect(
      (JSON.parse(ingest.stdout) as { environmentMismatches: unknown[] }).environmentMismatches,
    ).toHaveLength(4);
  });
});

describe('evals report --format json', () => {
  it('refuses a store that is not there and creates nothing', () => {
    const result = run(['report', '--store', 'sqlite:missing/book.sqlite']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('no Evalbook at missing/book.sqlite');
    expect(result.stdout).toBe('');
    expect(existsSync(join(dir, 'missing'))).toBe(false);
  });

  it('lists every attempt with statuses and cost with provenance, to stdout and atomically to --out', () => {
    expect(run(['ingest', 'runs', '--store', 'sqlite:book.sqlite']).status).toBe(0);
    const stdout = run(['report', '--store', 'sqlite:book.sqlite', '--format', 'json']);
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
    expect(report.coverage).toMatchObject({ priced: 3, unpriced: 1 });
    expect(report.coverage.pricedTotalNanodollars).toBe(
      report.attempts.reduce((sum, attempt) => sum + (attempt.cost.effectiveNanodollars ?? 0), 0),
    );
    expect(report.coverage.text).toBe('3 of 4 attempts priced (3 provider-reported, 0 estimated)');
    expect(report.coverageByConfig.map((group) => [group.configId, group.attempts])).toEqual([
      ['config_a', 2],
      ['config_b', 2],
    ]);

    const toFile = run(['report', '--store', 'sqlite:book.sqlite', '--out', 'report.json']);
    expect(toFile.status).toBe(0);
    expect(toFile.stdout).toBe('');
    expect(toFile.stderr).toContain('wrote report.json: 4 attempts');
    expect(JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'))).toEqual(report);
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('checks budgets from the environment: unpriced attempts leave a budget unproven, never within', () => {
    const env = readFileSync(join(dir, 'book.yaml'), 'utf8').replace(
      'perConfigUsd: 20',
      'perConfigUsd: 0.001',
    );
    writeFileSync(join(dir, 'tight.yaml'), env);
    const result = run(['report', '--store', 'sqlite:book.sqlite', '--env', 'tight.yaml']);
    expect(result.status).toBe(0);
    const budgets = (JSON.parse(result.stdout) as Report).budgets;
    expect(budgets.map((budget) => [budget.scope, budget.configId, budget.status])).toEqual([
      ['run', null, 'unproven'],
      ['config', 'config_a', 'exceeded'],
      ['config', 'config_b', 'exceeded'],
    ]);
  });
});
