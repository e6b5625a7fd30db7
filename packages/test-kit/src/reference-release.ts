// Test support: the reference runner's release, as its packed clean-consumer gate
// (packages/reference-runner/scripts/check-clean-consumers.mjs) writes it with an output folder —
// the packed tarball, a release paperclip-runnerd single executable, the consumer's
// clean-consumer-conformance/v1 record and SHA256SUMS — built once per test run and handed to each
// test file as a fresh copy. The gate takes about 15 s of CPU (the package's build, esbuild and
// postject for runnerd, `pnpm pack`, an offline install, the consumer's checks); several e2e files
// need its release. The run is named by the vitest global setup (PAPERCLIP_EVALS_TEST_RUN,
// scripts/vitest/build-setup.ts, which removes its folder when the run ends); within it, a build is
// keyed by the sha256 of the gate's inputs (the package's sources and scripts, the schemas and
// fixtures it ships, the lockfile, Node's version, the commit the record names), so a change of any
// of them mid-run builds again. What the gate printed and its exit code are kept with the folder:
// a file that checks the gate itself checks the same run. Files building at the same time wait for
// the first (a lock folder). Without a named run (vitest started without this repository's config),
// each call runs the gate itself.
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';

import { REPO_ROOT } from './repo.ts';

/** The environment variable naming the test run (set by the vitest global setup). */
export const TEST_RUN_VARIABLE = 'PAPERCLIP_EVALS_TEST_RUN';

/** Where what the test kit makes once per test run is kept: node_modules/.cache/paperclip-evals-test-run/<run>. */
export const testRunCacheDir = (run: string): string =>
  join(REPO_ROOT, 'node_modules', '.cache', 'paperclip-evals-test-run', run);

/** What the gate's run printed, with its exit code (0: passed). */
export interface GateRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const PACKAGE_DIR = join(REPO_ROOT, 'packages', 'reference-runner');
const GATE = join(PACKAGE_DIR, 'scripts', 'check-clean-consumers.mjs');
/** The gate's inputs, besides Node and the commit: every file under these (test/, dist/, node_modules/ aside). */
const INPUTS = [
  'packages/reference-runner/src',
  'packages/reference-runner/scripts',
  'packages/reference-runner/package.json',
  'packages/reference-runner/tsconfig.json',
  'schemas/runner',
  'schemas/prp',
  'fixtures/evals',
  'tsconfig.base.json',
  'pnpm-lock.yaml',
];
const WAIT_MS = 300_000;

/** Runs the gate with `outputDir` as its output folder. */
function runGate(outputDir: string): Promise<GateRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [GATE],
      {
        cwd: PACKAGE_DIR,
        env: { ...process.env, PAPERCLIP_CLEAN_CONSUMER_OUTPUT_DIR: outputDir },
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : Number(error.code ?? -1), stdout, stderr });
      },
    );
  });
}

/** Every file at or under `path` (a repository path), leaving out node_modules/, dist/ and test/. */
function filesUnder(path: string): string[] {
  const at = join(REPO_ROOT, path);
  if (!existsSync(at)) return [];
  if (!statSync(at).isDirectory()) return [at];
  return readdirSync(at, { withFileTypes: true }).flatMap((entry) =>
    ['node_modules', 'dist', 'test'].includes(entry.name) ? [] : filesUnder(join(path, entry.name)),
  );
}

/** The sha256 of the gate's inputs: each file's path and bytes, Node's version and platform, the commit. */
export function referenceReleaseKey(): string {
  const hash = createHash('sha256');
  hash.update(`${process.version} ${process.platform} ${process.arch}\n`);
  hash.update(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }));
  for (const file of INPUTS.flatMap(filesUnder).sort()) {
    hash.update(`${relative(REPO_ROOT, file)}\0`);
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The pid written in the lock folder; undefined while it is being written, or when the lock is gone. */
function lockHolder(lock: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(lock, 'pid'), 'utf8'));
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The run's build: made by this process (holding the lock), or by another one, waited for. */
async function cachedBuild(runDir: string): Promise<string> {
  const built = join(runDir, referenceReleaseKey());
  const lock = `${built}.lock`;
  mkdirSync(runDir, { recursive: true });
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    if (existsSync(join(built, 'gate.json'))) return built;
    try {
      mkdirSync(lock);
    } catch {
      const holder = lockHolder(lock);
      if (holder !== undefined && !isAlive(holder)) rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > deadline)
        throw new Error(`the reference release was not built within ${WAIT_MS / 1000} s (lock ${lock})`);
      else await sleep(250);
      continue;
    }
    try {
      writeFileSync(join(lock, 'pid'), String(process.pid));
      const building = `${built}.building`;
      rmSync(building, { recursive: true, force: true });
      mkdirSync(building);
      const run = await runGate(join(building, 'release'));
      writeFileSync(join(building, 'gate.json'), JSON.stringify(run));
      renameSync(building, built);
      return built;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

/**
 * The reference release in `dir` (which must not exist yet; a fresh copy, the caller's to change and
 * remove) and the gate run that wrote it. When that run failed, `dir` holds what it left, if anything.
 */
export async function referenceRelease(dir: string): Promise<GateRun> {
  const run = process.env[TEST_RUN_VARIABLE];
  if (run === undefined || run === '') return runGate(dir);
  const built = await cachedBuild(testRunCacheDir(run));
  const release = join(built, 'release');
  if (existsSync(release)) cpSync(release, dir, { recursive: true });
  return JSON.parse(readFileSync(join(built, 'gate.json'), 'utf8')) as GateRun;
}
