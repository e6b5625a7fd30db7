// `evals run --plan` through the built CLI: the plan as a table or as JSON its schema accepts, the
// same plan every time, a shard's slice; a suite or flags that make no plan are usage errors (exit
// 2) listing every issue, with --json one {schema, exitCode, error} object. Nothing runs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { EVALS_BIN } from '@paperclip-evals/test-kit/repo';
import { schemaErrors } from '@paperclip-evals/contract';

import { suiteEnvironment } from './support/stand-in.ts';

const dir = mkdtempSync(join(tmpdir(), 'campaign-plan-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
const environment = join(dir, 'evalbook.json');
writeFileSync(
  environment,
  JSON.stringify(
    suiteEnvironment(
      [
        { id: 'case_a', behaviour: 'succeed' },
        { id: 'case_b', behaviour: 'succeed' },
      ],
      { lanes: [{ id: 'lane_on' }, { id: 'lane_off', enabled: false }], attempts: 3, maxCostUsd: 2 },
    ),
  ),
);
const evals = (args: readonly string[]) =>
  spawnSync(process.execPath, [EVALS_BIN, 'run', '--plan', '--env', environment, ...args], {
    cwd: dir,
    encoding: 'utf8',
  });

describe('evals run --plan', () => {
  it('prints the plan as JSON its schema accepts, the same every time, and runs nothing', () => {
    const first = evals(['--campaign', 'nightly-1', '--json']);
    expect(first.status, first.stderr).toBe(0);
    const plan = JSON.parse(first.stdout) as {
      attempts: { laneId: string; attemptId: string }[];
      lanesLeftOut: string[];
    };
    expect(schemaErrors('https://paperclip-evals.dev/schemas/campaign-plan/v1.json', plan)).toEqual([]);
    expect(plan.attempts).toHaveLength(2 * 3);
    expect(new Set(plan.attempts.map((attempt) => attempt.laneId))).toEqual(new Set(['lane_on']));
    expect(plan.lanesLeftOut).toEqual(['lane_off']);
    expect(evals(['--campaign', 'nightly-1', '--json']).stdout).toBe(first.stdout);
    const shard = JSON.parse(
      evals(['--campaign', 'nightly-1', '--json', '--shard', '2/4']).stdout,
    ) as typeof plan;
    expect(shard.attempts.map((attempt) => attempt.attemptId)).toEqual(
      plan.attempts.filter((_, position) => position % 4 === 1).map((attempt) => attempt.attemptId),
    );
  });

  it('runs a disabled lane when named, and prints a table', () => {
    const table = evals(['--campaign', 'nightly-1', '--lanes', 'lane_off']);
    expect(table.status, table.stderr).toBe(0);
    expect(table.stdout).toContain('lane lane_off: paperclip_deterministic model-x');
    expect(table.stdout).toContain('[disabled, named]');
    expect(table.stdout).toContain('nothing was run (--plan)');
    // Money a person reads at displayUsd's precision (the --json plan keeps nanodollars).
    expect(table.stdout).toContain('turn 200 ms, ≤ 4 turns, ≤ $0.50\n');
    expect(table.stdout).toContain('· ceiling $2.00\n');
  });

  it.each([
    [['--campaign', 'x', '--shard', '5/4'], 'shard_invalid'],
    [['--campaign', 'x', '--lanes', 'nope,lane_on', '--cases', 'missing'], 'lane_unknown'],
    [['--campaign', '-x'], 'campaign_id_invalid'],
    [['--campaign', 'x', '--max-cost-usd', 'lots'], 'takes an amount in USD'],
  ])('refuses %j (exit 2): %s', (args, said) => {
    const result = evals(args);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(said);
  });

  it('lists every issue at once, and with --json prints one failure object', () => {
    const result = evals(['--campaign', 'x', '--lanes', 'nope', '--cases', 'missing', '--json']);
    expect(result.status).toBe(2);
    const failure = JSON.parse(result.stdout) as {
      exitCode: number;
      error: { code: string; issues: { code: string }[] };
    };
    expect(failure.exitCode).toBe(2);
    expect(failure.error.code).toBe('paperclip_campaign_suite_invalid');
    expect(failure.error.issues.map((issue) => issue.code)).toEqual(['lane_unknown', 'case_unknown']);
  });
});
