// The rule for tests that need something from outside the repository (upstream data, Chromium):
// when it is missing they are skipped with one notice naming it, and under CI they fail instead.
// Runs real vitest on a fixture whose requirement is never there.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const FIXTURE_DIR = fileURLToPath(new URL('./support/needs-fixture/', import.meta.url));
const VITEST = fileURLToPath(new URL('../../../node_modules/vitest/vitest.mjs', import.meta.url));

interface JsonResult {
  numFailedTests: number;
  numPassedTests: number;
  numPendingTests: number;
  testResults: { assertionResults: { title: string; status: string }[] }[];
}

function runFixture(ci: string): { status: number | null; result: JsonResult; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'evals-needs-'));
  try {
    const json = join(dir, 'result.json');
    const run = spawnSync(
      process.execPath,
      [
        VITEST,
        'run',
        '--root',
        FIXTURE_DIR,
        '--reporter',
        'default',
        '--reporter',
        'json',
        `--outputFile.json=${json}`,
      ],
      { cwd: FIXTURE_DIR, encoding: 'utf8', env: { ...process.env, CI: ci } },
    );
    const result = JSON.parse(readFileSync(json, 'utf8')) as JsonResult;
    return { status: run.status, result, output: stripVTControlCharacters(run.stdout + run.stderr) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('a test file whose outside requirement is missing', () => {
  it('is skipped with one notice naming what is missing and what is skipped, when CI is not set', () => {
    const { status, result, output } = runFixture('');
    expect(status).toBe(0);
    expect([result.numFailedTests, result.numPassedTests, result.numPendingTests]).toEqual([0, 0, 1]);
    const notices = output
      .split('\n')
      .filter((line) => line.includes('needs.fixture.ts: skipped the fixture comparisons'));
    expect(notices).toEqual([
      'needs.fixture.ts: skipped the fixture comparisons: fixture data not found at /nowhere',
    ]);
  });

  it('fails, naming what is missing, when CI is set', () => {
    const { status, result } = runFixture('1');
    expect(status).toBe(1);
    expect(result.numFailedTests).toBe(1);
    const failed = result.testResults
      .flatMap((file) => file.assertionResults)
      .filter((test) => test.status === 'failed');
    expect(failed.map((test) => test.title)).toEqual([
      'needs the fixture comparisons to run (CI is set, so missing is a failure)',
    ]);
  });
});
