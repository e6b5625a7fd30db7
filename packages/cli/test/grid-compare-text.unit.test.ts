// What `evals grid` and `evals compare` print reads right (a new user's review): after every run is
// retracted the grid says there is nothing to show, not "no attempts" above a lone "case" header;
// `compare --a-run/--b-run` with no case regressed or improved starts with its summary, not a blank
// line; counts take their noun's number ("1 case only …", "2 shared cases"). In-process.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeBundles } from '@paperclip-evals/test-kit/bundle-files';

import { evals } from './support/evals-in-process.ts';

const VALID = fileURLToPath(new URL('../../../fixtures/attempts/valid', import.meta.url));

let dir = '';
let store = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evals-grid-compare-text-'));
  store = `sqlite:${join(dir, 'book.sqlite')}`;
  await mkdir(join(dir, 'run-two'));
  await writeBundles(join(dir, 'run-two'), 3, { runId: 'run_two' });
  expect((await evals('ingest', VALID, join(dir, 'run-two'), '--store', store)).code).toBe(0);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('compare', () => {
  it('--a-run/--b-run: the output starts with its summary when nothing moved; every count takes its number', async () => {
    const run = await evals('compare', '--a-run', 'run_synthetic', '--b-run', 'run_two', '--store', store);
    expect(run.code, run.stderr).toBe(0);
    if (!/^(regressed|improved)/m.test(run.stdout)) expect(run.stdout.startsWith('\n')).toBe(false);
    expect(run.stdout).toMatch(/^runs run_synthetic and run_two, every config$/m);
    // Runs compared: the pairs are cases on configs, each count with its own plural.
    expect(run.stdout).not.toMatch(/\b1 (pairs|shared case × config pairs)\b/);
    expect(run.stdout).not.toMatch(/\b([02-9]|\d\d+) (pair|shared case × config pair) /);
    expect(run.stdout).toMatch(/\b\d+ shared case × config pairs? — /);
    expect(run.stdout).toMatch(/\(\d+ pairs? only run_synthetic solves/);
    // in points, as the Markdown and HTML reports say it (JSON keeps the fraction)
    expect(run.stdout).toMatch(/^Δ solve rate (n\/a|[−+±]\d+\.\d pts)/m);
  });
});

describe('grid', () => {
  it('every run retracted: one line saying there is nothing to show, no header without rows', async () => {
    for (const runId of ['run_synthetic', 'run_two'])
      expect(
        (await evals('retract', '--run', runId, '--reason', 'test', '--by', 'me', '--store', store)).code,
      ).toBe(0);
    const run = await evals('grid', '--store', store);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(/^case\s*$/m);
    const [why, line] = run.stdout.split('\n');
    expect(why).toMatch(
      /^all \d+ attempts in scope are left out, retracted \(`evals runs` lists every run and its retractions\)\.$/,
    );
    expect(line).toBe(
      'no attempts: no case or config to show (2 retracted run(s) left out; `evals runs` lists every run).',
    );
  });
});
