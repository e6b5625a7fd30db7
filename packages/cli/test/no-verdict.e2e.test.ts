// An attempt nobody checked (a new-user review): a bundle whose `observations.checks` is empty is a
// valid bundle (validate and ingest take it, without --env), but it is not solved — the report
// says incomplete with its reason, the grid counts it unsolved, JUnit does not pass it, and a
// `--fail-on below:0.5` gate fails (it held, exit 0, when "otherwise solved" took it for a pass).
// The first run of each command is the binary, the later ones its program in this process.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';

import { firstRunSpawned } from './support/evals-in-process.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'node_modules/.bin/evals');
const STORE = ['--store', 'sqlite:book.sqlite'];

let dir: string;
const run = firstRunSpawned(
  (args) => {
    const result = spawnSync(EVALS, args, { cwd: dir, encoding: 'utf8' });
    return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
  },
  () => dir,
);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evals-no-verdict-'));
  const bundle = syntheticAttempt({ attemptId: 'attempt_unchecked' }) as Record<string, unknown>;
  bundle.observations = { checks: [] };
  writeFileSync(join(dir, 'unchecked.json'), JSON.stringify(bundle));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('an attempt with no check at all', () => {
  it('is a valid bundle: validate and ingest (no --env) take it', async () => {
    expect((await run(['validate', 'unchecked.json'])).status).toBe(0);
    const ingest = await run(['ingest', 'unchecked.json', ...STORE]);
    expect(ingest.status, ingest.stderr).toBe(0);
  });

  it('is incomplete in the report, with why, and 0 solved in the grid', async () => {
    const report = JSON.parse((await run(['report', ...STORE, '--format', 'json'])).stdout) as {
      attempts: { status: string; statusReason: string | null }[];
      summary: { statusCounts: Record<string, number> };
    };
    expect(report.attempts.map(({ status }) => status)).toEqual(['incomplete']);
    expect(report.attempts[0]?.statusReason).toMatch(/^no verdict: no check was reported or evaluated/);
    expect(report.summary.statusCounts).toMatchObject({ solved: 0, incomplete: 1 });
    expect((await run(['grid', ...STORE])).stdout).toContain('0/1');
    expect((await run(['report', ...STORE, '--format', 'junit'])).stdout).not.toMatch(
      /failures="0" errors="0"/,
    );
  });

  it('fails a --fail-on below:0.5 gate (exit 1)', async () => {
    const gate = await run(['report', ...STORE, '--format', 'md', '--fail-on', 'below:0.5']);
    expect(gate.status).toBe(1);
    expect(gate.stdout).toContain('1 incomplete');
  });
});
