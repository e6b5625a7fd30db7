// Test support: a fast pnpm for the many consumer installs of the test suite. Launching pnpm
// through `npx -y pnpm@12.4.2` costs over a second each time; the pinned pnpm binary itself starts
// in milliseconds. It is found on PATH (under `npx -y pnpm@12.4.2 test`, npx puts it there) or by
// asking npx once; the default launcher (npx) stays covered by the CLI end-to-end test.
import { spawnSync } from 'node:child_process';
import { accessSync, constants as fsConstants } from 'node:fs';
import { delimiter, join } from 'node:path';

import { PINNED_PNPM, pnpmCommand } from '@paperclip-evals/qualification';

const PINNED_VERSION = PINNED_PNPM.slice('pnpm@'.length);
let cached: string[] | undefined;

const isPinned = (path: string): boolean => {
  try {
    accessSync(path, fsConstants.X_OK);
  } catch {
    return false;
  }
  return spawnSync(path, ['--version'], { encoding: 'utf8' }).stdout.trim() === PINNED_VERSION;
};

/** The pinned pnpm as a command line: its binary when it can be found, else the default launcher. */
export function testPnpm(): string[] {
  if (cached !== undefined) return cached;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'pnpm');
    if (dir !== '' && isPinned(candidate)) return (cached = [candidate]);
  }
  const asked = spawnSync('npx', ['-y', PINNED_PNPM, 'exec', 'sh', '-c', 'command -v pnpm'], {
    cwd: '/',
    encoding: 'utf8',
  });
  const found = asked.stdout.trim();
  cached = asked.status === 0 && isPinned(found) ? [found] : pnpmCommand();
  return cached;
}
