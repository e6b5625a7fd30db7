// An issue about a flag's value says where as the flag the user typed (`--attempt`, `--run`,
// `--campaign`, `--as`), never a pointer into a request no user sees (`/attemptId`). In-process,
// over a temp store whose attempt ids repeat across two runs.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeBundles } from '@paperclip-evals/test-kit/bundle-files';

import { evals } from './support/evals-in-process.ts';

let dir = '';
let store = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'evals-issue-locations-'));
  store = `sqlite:${join(dir, 'book.sqlite')}`;
  for (const run of ['run_a', 'run_b']) {
    await mkdir(join(dir, run));
    await writeBundles(join(dir, run), 2, { runId: run });
  }
  expect((await evals('ingest', join(dir, 'run_a'), join(dir, 'run_b'), '--store', store)).code).toBe(0);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('each issue names the flag whose value it is about', () => {
  it.each([
    ['an attempt the store lacks', ['report', '--attempt', 'nope'], 'attempt_unknown', '--attempt'],
    ['an attempt id in two runs', ['report', '--attempt', 'attempt_00000'], 'attempt_ambiguous', '--run'],
    [
      'a campaign the store lacks',
      ['publish', '--out', 'site', '--campaign', 'nope'],
      'campaign_unknown',
      '--campaign',
    ],
    [
      '--as without --campaign',
      ['publish', '--out', 'site', '--as', 'x'],
      'site_rerender_id_invalid',
      '--as',
    ],
    [
      '--as not a re-render id',
      ['publish', '--out', 'site', '--campaign', 'run_a', '--as', 'run_b-report-1'],
      'site_rerender_id_invalid',
      '--as',
    ],
  ])('%s: %s at %s', async (_name, args, code, flag) => {
    const run = await evals(...args, '--store', store);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(`  ${code} at ${flag}: `);
    expect(run.stderr).not.toMatch(/ at \/[a-z]/i);
  });
});

describe('--help says the exit code of a scope the store does not hold, and it is that code', () => {
  it.each([
    ['grid', ['grid', '--run', 'nope'], 'a --run the store does not hold'],
    [
      'compare',
      ['compare', '--a-run', 'run_a', '--b-run', 'nope'],
      'a config or run the store does not hold',
    ],
    [
      'compare',
      ['compare', '--a', 'config_synthetic', '--b', 'nope'],
      'a config or run the store does not hold',
    ],
  ])('%s: %j', async (command, args, said) => {
    const help = (await evals(command, '--help')).stdout.replace(/\s+/g, ' ');
    expect(help).toMatch(new RegExp(`Exit codes: .*· 2 [^·]*${said}`));
    expect((await evals(...args, '--store', store)).code).toBe(2);
  });
});
