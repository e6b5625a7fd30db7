// Case checks in the checks engine's vocabulary, end to end with the real `evals` binary: the
// environment's engine checks are evaluated at ingest over each attempt's trace, the stored score rows
// carry layer, status and reason (a model check without a provider is not_evaluated, never a pass;
// a soft check gives soft_fail and leaves the attempt solved), and reports show each check's drift
// across twelve runs — the newest run's regression is caught by `--fail-on drift`, a scoped earlier
// run is not. The first run of each command is the binary, the later ones its program in this
// process (firstRunSpawned).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';

import { firstRunSpawned } from './support/evals-in-process.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');
const RUNS = 12;

interface ReportCheck {
  checkId: string;
  layer: number | string | null;
  status: string;
  score: number | null;
  reason: string | null;
}
interface Report {
  attempts: {
    runId: string;
    caseId: string;
    status: string;
    statusReason: string | null;
    checks: ReportCheck[];
  }[];
  summary: {
    checkDrift: {
      caseId: string;
      checkId: string;
      status: string;
      latestRunId: string | null;
      latestScore: number | null;
      baselineRuns: number;
      bar: number | null;
    }[];
  };
  gate: { passed: boolean; gates: { failOn: string; passed: boolean; reasons: string[] }[] } | null;
}

let dir: string;
/** The first run of each command is the binary, the later ones its program in this process. */
const evals = firstRunSpawned(
  (args) => {
    const result = spawnSync(EVALS, args, { cwd: dir, encoding: 'utf8' });
    return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
  },
  () => dir,
);
const runId = (index: number): string => `run_${String(index).padStart(2, '0')}`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evals-case-checks-e2e-'));
  mkdirSync(join(dir, 'runs'));
  type Input = { input: { caseSha256: string; configSha256: string } };
  const sample = syntheticAttempt({}) as Input;
  const judgedSample = syntheticAttempt({ caseId: 'case_judged' }) as Input;
  writeFileSync(
    join(dir, 'evalbook.json'),
    JSON.stringify({
      schema: 'paperclip-evals/environment/v1',
      name: 'case checks',
      cases: [
        {
          id: 'case_synthetic',
          sha256: sample.input.caseSha256,
          checks: [
            { id: 'synthetic-check' },
            {
              id: 'few-steps',
              type: 'constraint',
              spec: { field: 'steps.length', operator: 'lte', value: 2 },
            },
            {
              id: 'celebrates',
              type: 'content',
              spec: {
                target: 'output.run_terminal_state',
                check: 'contains',
                value: 'celebrated',
                soft: true,
              },
            },
          ],
        },
        {
          id: 'case_judged',
          sha256: judgedSample.input.caseSha256,
          checks: [{ id: 'judge', type: 'llm_judge', spec: { target: 'output', rubric: 'did it finish?' } }],
        },
      ],
      configs: [{ id: 'config_synthetic', sha256: sample.input.configSha256, model: 'm', driver: 'd' }],
    }),
  );
  // Twelve runs of two attempts each; in the newest run the agent takes four tool calls, not one.
  for (let run = 0; run < RUNS; run++)
    for (const attemptId of ['a0', 'a1'])
      writeFileSync(
        join(dir, 'runs', `${runId(run)}-${attemptId}.json`),
        JSON.stringify(
          syntheticAttempt({
            runId: runId(run),
            attemptId,
            toolCalls: run === RUNS - 1 ? 4 : 1,
            deniedCalls: 0,
          }),
        ),
      );
  writeFileSync(
    join(dir, 'runs', 'judged.json'),
    JSON.stringify(
      syntheticAttempt({ runId: runId(0), caseId: 'case_judged', attemptId: 'j0', toolCalls: 1 }),
    ),
  );
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const STORE = ['--store', 'sqlite:book.sqlite', '--env', 'evalbook.json'];

describe('case checks in the checks vocabulary', () => {
  it('are evaluated at ingest; score rows carry layer, status and reason', async () => {
    const ingest = await evals(['ingest', ...STORE, 'runs']);
    expect(ingest.stderr).toBe('');
    expect(ingest.status).toBe(0);

    const report = await evals(['report', '--format', 'json', ...STORE]);
    expect(report.status).toBe(0);
    const { attempts } = JSON.parse(report.stdout) as Report;
    expect(attempts).toHaveLength(2 * RUNS + 1);

    const steady = attempts.find(
      (attempt) => attempt.runId === runId(0) && attempt.caseId === 'case_synthetic',
    );
    expect(steady?.status).toBe('solved');
    expect(
      steady?.checks.map(({ checkId, layer, status, score }) => ({ checkId, layer, status, score })),
    ).toEqual([
      { checkId: 'few-steps', layer: 2, status: 'pass', score: 1 },
      { checkId: 'celebrates', layer: 4, status: 'soft_fail', score: 0 },
      { checkId: 'synthetic-check', layer: null, status: 'pass', score: 1 },
    ]);
    expect(steady?.checks[1]?.reason).toMatch(/celebrated/);

    const newest = attempts.find((attempt) => attempt.runId === runId(RUNS - 1));
    expect(newest).toMatchObject({ status: 'unsolved', statusReason: 'check few-steps failed' });
    expect(newest?.checks[0]).toMatchObject({ checkId: 'few-steps', status: 'fail', score: 0 });
    expect(newest?.checks[0]?.reason).toMatch(/4/);

    const judged = attempts.find((attempt) => attempt.caseId === 'case_judged');
    expect(judged?.status).toBe('incomplete');
    expect(judged?.checks[0]).toMatchObject({
      checkId: 'judge',
      layer: 6,
      status: 'not_evaluated',
      score: null,
    });
    expect(judged?.checks[0]?.reason).toMatch(/^provider_not_configured: /);
  });

  it('shows each check’s drift across runs and gates on it', async () => {
    const json = await evals(['report', '--format', 'json', ...STORE]);
    const drift = (JSON.parse(json.stdout) as Report).summary.checkDrift;
    expect(drift.map((row) => [row.caseId, row.checkId, row.status])).toEqual([
      ['case_synthetic', 'few-steps', 'drift_detected'],
      ['case_synthetic', 'celebrates', 'below_threshold'],
      ['case_judged', 'judge', 'insufficient_history'],
      ['case_judged', 'synthetic-check', 'insufficient_history'],
      ['case_synthetic', 'synthetic-check', 'ok'],
    ]);
    expect(drift.find((row) => row.checkId === 'few-steps')).toMatchObject({
      caseId: 'case_synthetic',
      status: 'drift_detected',
      latestRunId: runId(RUNS - 1),
      latestScore: 0,
      baselineRuns: RUNS - 1,
      bar: 0.96,
    });
    // The soft check never passed: under 0.8, but no lower than its history — low, not drifting.
    expect(drift.find((row) => row.checkId === 'celebrates')).toMatchObject({
      status: 'below_threshold',
      bar: 0.8,
      historyBar: -0.04,
    });
    expect(drift.find((row) => row.checkId === 'judge')).toMatchObject({
      status: 'insufficient_history',
      latestScore: null,
    });

    const gated = await evals(['report', '--format', 'md', ...STORE, '--fail-on', 'drift']);
    expect(gated.status).toBe(1);
    expect(gated.stderr).toMatch(/gate drift failed/);
    expect(gated.stderr).toMatch(
      /check few-steps of case_synthetic on config_synthetic: 0\.000 in run_11 < bar 0\.960/,
    );
    expect(gated.stdout).toMatch(/### Check drift/);
    expect(gated.stdout).toContain('Soft checks fell short (shown, not failing): celebrates in 24 attempts.');
    expect(gated.stdout).toMatch(
      /\| few-steps \| case_synthetic \| config_synthetic \| 2 \| 0\.000 \(run_11\)/,
    );

    const html = (await evals(['report', '--format', 'html', ...STORE])).stdout;
    const driftRows = [
      ...html.matchAll(
        /<tr data-case="([^"]+)" data-check="([^"]+)" data-config="[^"]+" data-status="([^"]+)"/g,
      ),
    ];
    expect(driftRows.map((match) => match.slice(1))).toEqual([
      ['case_synthetic', 'few-steps', 'drift_detected'],
      ['case_synthetic', 'celebrates', 'below_threshold'],
      ['case_synthetic', 'synthetic-check', 'ok'],
    ]);
    expect(html).toMatch(/data-insufficient-history="2"/);

    const junit = (await evals(['report', '--format', 'junit', ...STORE])).stdout;
    expect(junit).toContain(
      '<testsuite name="check drift" tests="5" failures="1" errors="0" skipped="2" time="0.000">',
    );
    expect(junit).toMatch(
      /<testcase name="case_synthetic · few-steps" classname="drift\.config_synthetic" time="0\.000">\s*<failure message="0\.000 in run_11 &lt; bar 0\.960/,
    );

    // Judged on its own, run_10 is the newest: nothing drifted (the soft check is as low as ever).
    const earlier = await evals([
      'report',
      '--format',
      'json',
      ...STORE,
      '--run',
      runId(RUNS - 2),
      '--fail-on',
      'drift',
    ]);
    const scoped = JSON.parse(earlier.stdout) as Report;
    expect(scoped.summary.checkDrift.find((row) => row.checkId === 'few-steps')).toMatchObject({
      status: 'ok',
      latestRunId: runId(RUNS - 2),
      baselineRuns: RUNS - 2,
    });
    expect(earlier.status).toBe(0);
    expect(scoped.gate).toEqual({
      passed: true,
      view: { kind: 'run', run: 'run_10', runs: ['run_10'], text: 'run run_10' },
      gates: [{ failOn: 'drift', passed: true, reasons: [], judged: 'the checks of run run_10' }],
    });
  });

  it('scopes a report to --run (totals, attempts listed) and refuses a run or config it does not have', async () => {
    const scoped = await evals(['report', '--format', 'json', ...STORE, '--run', runId(5)]);
    expect(scoped.status).toBe(0);
    const report = JSON.parse(scoped.stdout) as Report & { summary: { attempts: number; runs: string[] } };
    expect(report.summary.attempts).toBe(2);
    expect(report.attempts.map((attempt) => attempt.runId)).toEqual([runId(5), runId(5)]);
    expect(report.summary.runs).toHaveLength(RUNS); // the trend and drift still see every run

    for (const args of [
      ['report', '--format', 'md', '--run', 'nightly-99'],
      ['grid', '--run', 'nightly-99'],
      ['compare', '--a', 'config_synthetic', '--b', 'config_missing'],
    ]) {
      const refused = await evals([...args, ...STORE]);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toMatch(
        /no (run|config) named "(nightly-99|config_missing)" in this evalbook; its (runs|configs): /,
      );
    }
  });

  it('reads stored attempts as the environment now stands: a check added since ingest is not_evaluated', async () => {
    const environment = JSON.parse(readFileSync(join(dir, 'evalbook.json'), 'utf8')) as {
      cases: { id: string; checks: unknown[] }[];
    };
    environment.cases[0]?.checks.push({ id: 'added-later', type: 'trace', spec: { check: 'no_duplicates' } });
    writeFileSync(join(dir, 'later.json'), JSON.stringify(environment));
    const later = ['--store', 'sqlite:book.sqlite', '--env', 'later.json'];
    const report = JSON.parse(
      (await evals(['report', '--format', 'json', ...later, '--run', runId(0)])).stdout,
    ) as Report;
    const attempt = report.attempts.find((entry) => entry.caseId === 'case_synthetic');
    expect(attempt?.status).toBe('incomplete');
    expect(attempt?.statusReason).toBe(
      'check added-later not evaluated: the environment lists this check; it was not evaluated when the attempt was ingested',
    );
    expect(attempt?.checks.at(-1)).toMatchObject({
      checkId: 'added-later',
      status: 'not_evaluated',
      score: null,
    });
    const grid = JSON.parse((await evals(['grid', '--json', ...later, '--run', runId(0)])).stdout) as {
      grid: { caseId: string; solved: number }[];
    };
    expect(grid.grid.find((cell) => cell.caseId === 'case_synthetic')?.solved).toBe(0);
    // Without the environment, or with the one the attempts were ingested under, nothing changes.
    const before = JSON.parse(
      (await evals(['report', '--format', 'json', ...STORE, '--run', runId(0)])).stdout,
    ) as Report;
    expect(before.attempts.find((entry) => entry.caseId === 'case_synthetic')?.status).toBe('solved');
  });

  it('refuses an environment whose check spec the engine refuses, before touching the store', async () => {
    writeFileSync(
      join(dir, 'bad.json'),
      JSON.stringify({
        schema: 'paperclip-evals/environment/v1',
        name: 'bad',
        cases: [
          {
            id: 'case_synthetic',
            sha256: 'sha256:' + '0'.repeat(64),
            checks: [{ id: 'x', type: 'trace', spec: { check: 'no_such_check' } }],
          },
        ],
        configs: [],
      }),
    );
    const refused = await evals(['ingest', '--store', 'sqlite:other.sqlite', '--env', 'bad.json', 'runs']);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/environment_check_spec/);
    expect(refused.stderr).toMatch(/\/cases\/0\/checks\/0\/spec/);
  });
});
