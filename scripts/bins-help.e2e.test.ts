// Every bin a package of the workspace declares (packages/*/package.json `bin`) answers --help and
// --version with text on stdout and exit 0, whatever else it takes: the review found
// `evals-engine --help` exiting 2 as a usage error. The table is read from the package files, so a
// bin added later is held to the same rule.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { REPO_ROOT } from '@paperclip-evals/test-kit/repo';

const BINS = readdirSync(join(REPO_ROOT, 'packages')).flatMap((name) => {
  const dir = join(REPO_ROOT, 'packages', name);
  let manifest: { bin?: Record<string, string> | string; name?: string };
  try {
    manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as typeof manifest;
  } catch {
    return [];
  }
  const bin =
    typeof manifest.bin === 'string' ? { [String(manifest.name)]: manifest.bin } : (manifest.bin ?? {});
  return Object.entries(bin).map(([command, path]) => ({ command, path: join(dir, path) }));
});

describe('the workspace bins', () => {
  it('are found (evals, evals-engine, paperclip-runner-eval-session at least)', () => {
    expect(BINS.map((bin) => bin.command)).toEqual(
      expect.arrayContaining(['evals', 'evals-engine', 'paperclip-runner-eval-session']),
    );
  });

  describe.each(BINS)('$command', ({ path }) => {
    it.each(['--help', '--version'])('%s prints text on stdout and exits 0', (flag) => {
      const run = spawnSync(process.execPath, [path, flag], { encoding: 'utf8', input: '', timeout: 30_000 });
      expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
      expect(run.stdout.trim().length).toBeGreaterThan(0);
      if (flag === '--help') expect(run.stdout).toMatch(/usage/i);
      else expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    });
  });
});
