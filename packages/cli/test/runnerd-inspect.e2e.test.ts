// `evals runnerd inspect` over every kind of bad executable: the real CLI answers each with exit 4
// and the documented issue code, and a sleeping binary is cut off within the timeout.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createTestExecutables } from '@paperclip-evals/test-kit/test-executables';

import type { TestExecutables } from '@paperclip-evals/test-kit/test-executables';

const EVALS = join(fileURLToPath(new URL('../../../', import.meta.url)), 'node_modules/.bin/evals');
const ZERO_DIGEST = `sha256:${'0'.repeat(64)}`;

let executables: TestExecutables;

beforeAll(async () => {
  executables = await createTestExecutables(await mkdtemp(join(tmpdir(), 'evals-inspect-e2e-')));
});
afterAll(async () => {
  await rm(executables.dir, { recursive: true, force: true });
});

function inspect(
  path: string,
  sha256: string,
  extra: string[] = [],
): { status: number | null; stderr: string; ms: number } {
  const started = Date.now();
  const result = spawnSync(EVALS, ['runnerd', 'inspect', '--path', path, '--sha256', sha256, ...extra], {
    encoding: 'utf8',
  });
  return { status: result.status, stderr: result.stderr, ms: Date.now() - started };
}

describe('evals runnerd inspect refuses', () => {
  const cases: [string, (e: TestExecutables) => [string, string], string][] = [
    ['a wrong digest', (e) => [e.wrongDigest.path, ZERO_DIGEST], 'digest_mismatch'],
    ['a malformed digest', (e) => [e.good.path, 'sha256:abc'], 'digest_invalid'],
    ['a binary that exits 1', (e) => [e.exitsOne.path, e.exitsOne.sha256], 'metadata_unavailable'],
    ['a binary killed by SIGKILL', (e) => [e.killsItself.path, e.killsItself.sha256], 'metadata_unavailable'],
    [
      '10 MB of output',
      (e) => [e.printsTenMegabytes.path, e.printsTenMegabytes.sha256],
      'metadata_unavailable',
    ],
    ['invalid JSON', (e) => [e.printsInvalidJson.path, e.printsInvalidJson.sha256], 'metadata_invalid'],
    ['two JSON objects', (e) => [e.printsTwoObjects.path, e.printsTwoObjects.sha256], 'metadata_invalid'],
    [
      'metadata against the schema',
      (e) => [e.printsInvalidMetadata.path, e.printsInvalidMetadata.sha256],
      'metadata_invalid',
    ],
    ['a non-executable file', (e) => [e.nonExecutable.path, e.nonExecutable.sha256], 'path_invalid'],
    ['a directory', (e) => [e.directory, ZERO_DIGEST], 'path_invalid'],
    ['a dangling symlink', (e) => [e.danglingSymlink, ZERO_DIGEST], 'path_invalid'],
    ['a symlink to a good binary', (e) => [e.symlinkToGood, e.good.sha256], 'path_invalid'],
  ];

  it.each(cases)('%s with exit 4 and its issue code', (_name, pick, code) => {
    const [path, sha256] = pick(executables);
    const run = inspect(path, sha256);
    expect(run.status).toBe(4);
    expect(run.stderr).toContain(`paperclip_runnerd_artifact_invalid`);
    expect(run.stderr).toContain(`  ${code}`);
  });

  it('a sleeping binary is cut off by the timeout, not waited for, with exit 4', () => {
    const run = inspect(executables.sleeper.path, executables.sleeper.sha256, ['--timeout-ms', '500']);
    expect(run.status).toBe(4);
    expect(run.stderr).toContain('metadata_unavailable');
    // The sleeper sleeps 1,000 s: ending in well under a minute shows the 500 ms timeout cut it off.
    // Not a speed bound — a loaded two-core machine took 6.4 s for the CLI's start-up and the kill.
    expect(run.ms).toBeLessThan(30_000);
  });

  it('and accepts a good binary with exit 0', () => {
    expect(inspect(executables.good.path, executables.good.sha256).status).toBe(0);
  });
});
