// Test support: small `#!/bin/sh` executables standing in for runnerd builds that misbehave.
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const scratchDirs: string[] = [];

/** A fresh directory under the OS temp dir, removed by removeScratchDirs(). */
export const scratchDir = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratchDirs.push(dir);
  return dir;
};

/** Removes every directory scratchDir() made in this test file (runnerd builds are ~100 MB). */
export function removeScratchDirs(): void {
  for (const dir of scratchDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Writes an executable shell script printing `stdout` and exiting with `exitCode`. */
export function shellExecutable(dir: string, name: string, stdout: string, exitCode = 0): string {
  const path = join(dir, name);
  const quoted = stdout.replaceAll("'", `'"'"'`);
  writeFileSync(path, `#!/bin/sh\nprintf '%s' '${quoted}'\nexit ${exitCode}\n`);
  chmodSync(path, 0o755);
  return path;
}

export const fileSha256 = (path: string): string =>
  `sha256:${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
