// `evals report --attempt ID [--run RUN] [--case C] [--config K]` end to end with the real `evals`
// binary: writes one attempt's replay page (to --out or stdout) and says on stderr what it holds; an
// unknown id, an id stored in two runs without --run (or under several cases/configs without
// --case/--config, each pair listed), a --format other than html and the report's comparison or gate
// flags are usage errors (exit 2), each naming what to do, and nothing is written. A retracted
// attempt's page says who retracted it, when and why. Each command's first run here is the real
// binary; the later ones run its main() in-process (support/evals-in-process.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { firstRunSpawned } from './support/evals-in-process.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');

let dir: string;
const run = firstRunSpawned(
  (args) => {
    const result = spawnSync(EVALS, args, { cwd: dir, encoding: 'utf8' });
    return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
  },
  () => dir,
);
const STORE = ['--store', 'sqlite:book.sqlite'];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'evals-attempt-page-'));
  mkdirSync(join(dir, 'runs'));
  // attempt_once in one run; attempt_twice in two
  const bundles = [
    syntheticAttempt({ runId: 'run_a', attemptId: 'attempt_once', deniedCalls: 1 }),
    syntheticAttempt({ runId: 'run_a', attemptId: 'attempt_twice' }),
    syntheticAttempt({ runId: 'run_b', attemptId: 'attempt_twice' }),
    // attempt_pairs four times in one run: 2 cases × 2 configs (a runner numbering attempts per pair)
    ...['case_a', 'case_b'].flatMap((caseId) =>
      ['config_a', 'config_b'].map((configId) =>
        syntheticAttempt({ runId: 'run_a', attemptId: 'attempt_pairs', caseId, configId }),
      ),
    ),
  ];
  bundles.forEach((bundle, index) => {
    writeFileSync(join(dir, 'runs', `${index}.json`), JSON.stringify(bundle));
  });
  const ingest = await run(['ingest', 'runs', ...STORE]);
  if (ingest.status !== 0) throw new Error(ingest.stderr);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('evals report --attempt', () => {
  it('writes the attempt’s replay page and says what it holds', async () => {
    const result = await run(['report', ...STORE, '--attempt', 'attempt_once', '--out', 'once.html']);
    expect(result.stderr).toContain(
      'wrote once.html: the replay of attempt attempt_once (run run_a, case case_synthetic, config config_synthetic): solved; recording complete; 2 tool calls, 1 denied, failed or in conflict',
    );
    expect(result.status).toBe(0);
    const html = readFileSync(join(dir, 'once.html'), 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<article class="replay" data-attempt="attempt_once"');
    expect(html).toContain('denied: required_claim_missing at grant');
  });

  it('writes to stdout without --out, and takes --format html', async () => {
    const result = await run(['report', ...STORE, '--attempt', 'attempt_once', '--format', 'html']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('data-attempt="attempt_once"');
  });

  it('needs --run for an id stored in two runs, and then writes that run’s attempt', async () => {
    const ambiguous = await run(['report', ...STORE, '--attempt', 'attempt_twice', '--out', 'twice.html']);
    expect(ambiguous.status).toBe(2);
    expect(ambiguous.stderr).toContain('attempt "attempt_twice" is stored 2 times');
    expect(ambiguous.stderr).toContain('name its run with --run');
    expect(existsSync(join(dir, 'twice.html'))).toBe(false);
    const named = await run([
      'report',
      ...STORE,
      '--attempt',
      'attempt_twice',
      '--run',
      'run_b',
      '--out',
      'twice.html',
    ]);
    expect(named.status).toBe(0);
    expect(named.stderr).toContain('(run run_b,');
  });

  it('an id under several case/config pairs of one run: --run alone lists the pairs and names --case and --config, which pick one', async () => {
    const ambiguous = await run([
      'report',
      ...STORE,
      '--attempt',
      'attempt_pairs',
      '--run',
      'run_a',
      '--out',
      'p.html',
    ]);
    expect(ambiguous.status).toBe(2);
    expect(ambiguous.stderr).toContain('is stored 4 times in run "run_a"');
    expect(ambiguous.stderr).toContain('run_a/case_b/config_a');
    expect(ambiguous.stderr).toContain('name its case with --case and its config with --config');
    expect(ambiguous.stderr).not.toContain('name its run');
    const byCase = await run([
      'report',
      ...STORE,
      '--attempt',
      'attempt_pairs',
      '--case',
      'case_b',
      '--out',
      'p.html',
    ]);
    expect(byCase.status).toBe(2);
    expect(byCase.stderr).toContain('is stored 2 times with --case "case_b"');
    expect(byCase.stderr).toContain('name its config with --config');
    expect(existsSync(join(dir, 'p.html'))).toBe(false);
    const named = await run([
      'report',
      ...STORE,
      '--attempt',
      'attempt_pairs',
      '--run',
      'run_a',
      '--case',
      'case_b',
      '--config',
      'config_a',
      '--out',
      'p.html',
    ]);
    expect(named.stderr).toContain('(run run_a, case case_b, config config_a)');
    expect(named.status).toBe(0);
    const none = await run(['report', ...STORE, '--attempt', 'attempt_pairs', '--config', 'config_z']);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain('no attempt "attempt_pairs" with --config "config_z"');
  });

  it('--case or --config without --attempt: a usage error naming --attempt', async () => {
    const result = await run(['report', ...STORE, '--case', 'case_a']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("option '--case <caseId>' needs --attempt");
  });

  it('says on the page when the attempt is retracted: who, when, why', async () => {
    const retract = await run([
      'retract',
      ...STORE,
      '--run',
      'run_a',
      '--attempt',
      'attempt_once',
      '--reason',
      'wrong suite',
      '--by',
      'qa',
    ]);
    expect(retract.status).toBe(0);
    const result = await run(['report', ...STORE, '--attempt', 'attempt_once']);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(
      /<strong>Retracted<\/strong> by qa at [0-9T:.-]+Z: wrong suite\. Reports, grids, comparisons and gates leave it out\./,
    );
  });

  it.each([
    [['--attempt', 'nope'], 'no attempt "nope" in the evalbook'],
    [['--attempt', 'attempt_once', '--run', 'run_b'], 'no attempt "attempt_once" in run "run_b"'],
    [['--attempt', 'attempt_once', '--format', 'md'], '--format md cannot go with it'],
    [['--attempt', 'attempt_once', '--format', 'json'], '--format json cannot go with it'],
    [['--attempt', 'attempt_once', '--a', 'x', '--b', 'y'], "cannot be used with option '--a <config>'"],
    [['--attempt', 'attempt_once', '--fail-on', 'drift'], "cannot be used with option '--fail-on"],
  ])('refuses %j (exit 2), writing nothing', async (args, message) => {
    const result = await run(['report', ...STORE, ...args, '--out', 'refused.html']);
    expect(result.stderr).toContain(message);
    expect(result.status).toBe(2);
    expect(existsSync(join(dir, 'refused.html'))).toBe(false);
  });
});
