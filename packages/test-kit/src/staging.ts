// Test support for suites that stage executables: os.tmpdir() points at a fresh staging directory
// for the suite (TMPDIR, restored afterwards), and after every test that directory must be empty —
// every staged copy is removed, on success and on failure — and nothing may stay registered with
// child-cleanup (a leaked registration would keep SIGINT/SIGTERM handlers installed). The suite
// passes the `guardedCounts` of the child-cleanup module its code under test registers with: node's
// own tests that of `src/`, every other package's that of `@paperclip-evals/node` (the built module
// their code imports) — another instance's registry would always read zero.
import { readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';

export interface StagingDirs {
  /** The suite's own temp directory (for the executables it writes). */
  readonly root: string;
  /** Where staged copies go (TMPDIR while the suite runs). */
  readonly stagingParent: string;
}

/** What child-cleanup still guards (its `guardedCounts()`). */
export interface GuardedCounts {
  readonly processGroups: number;
  readonly privatePaths: number;
}

/** Registers the hooks; the returned object's fields are set once beforeAll has run. */
export function useStagingTmpdir(prefix: string, guardedCounts: () => GuardedCounts): StagingDirs {
  const dirs = { root: '', stagingParent: '' };
  const savedTmpdir = process.env.TMPDIR;
  beforeAll(async () => {
    dirs.root = await mkdtemp(join(tmpdir(), prefix));
    dirs.stagingParent = join(dirs.root, 'staging');
    await mkdir(dirs.stagingParent);
    process.env.TMPDIR = dirs.stagingParent; // os.tmpdir() reads it: leftovers can be checked
  });
  afterAll(async () => {
    if (savedTmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmpdir;
    await rm(dirs.root, { recursive: true, force: true });
  });
  afterEach(() => {
    expect(readdirSync(dirs.stagingParent)).toEqual([]);
    expect(guardedCounts()).toEqual({ processGroups: 0, privatePaths: 0 });
  });
  return dirs;
}
