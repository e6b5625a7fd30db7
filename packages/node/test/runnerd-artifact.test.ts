// The runnerd artifact resolver against real executables (sh scripts written by the test setup):
// every documented failure gives paperclip_runnerd_artifact_invalid with its issue code, the bytes
// executed are the bytes hashed, a hanging build is killed with its whole process group, and no
// private staging directory is left behind.
import { existsSync, readdirSync, readFileSync, renameSync, watch, writeFileSync } from 'node:fs';
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

import { ContractError } from '@paperclip-evals/contract';

import {
  DEFAULT_MAX_METADATA_BYTES,
  RUNNERD_STAGING_DIR_PREFIX,
  resolveRunnerdArtifact,
} from '../src/runnerd-artifact.ts';
import {
  GOOD_METADATA,
  HASHED_VERSION,
  SWAPPED_VERSION,
  createSwapPair,
  createTestExecutables,
  printingScript,
  writeExecutable,
} from '@paperclip-evals/test-kit/test-executables';
import { useStagingTmpdir } from '@paperclip-evals/test-kit/staging';
import { guardedCounts } from '../src/child-cleanup.ts';

import type { RunnerdArtifactIssue, RunnerdArtifactIssueCode } from '@paperclip-evals/contract';

import type { TestExecutable, TestExecutables } from '@paperclip-evals/test-kit/test-executables';

/** The resolver stages under os.tmpdir(); TMPDIR points it into the suite's directory, checked after each test. */
const staging = useStagingTmpdir('runnerd-artifact-test-', guardedCounts);
let exes: TestExecutables;

beforeAll(async () => {
  await mkdir(join(staging.root, 'bin'));
  exes = await createTestExecutables(join(staging.root, 'bin'));
});

/** The ContractError a resolution rejects with (fails the test if it resolves or throws anything else). */
async function rejectionOf(promise: Promise<unknown>): Promise<ContractError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ContractError);
  const contractError = error as ContractError;
  expect(contractError.code).toBe('paperclip_runnerd_artifact_invalid');
  return contractError;
}

/** Resolves `exe` with its own (correct) digest and returns the single issue it fails with. */
async function onlyIssueOf(
  exe: TestExecutable,
  code: RunnerdArtifactIssueCode,
  options: { metadataTimeoutMs?: number } = {},
): Promise<RunnerdArtifactIssue> {
  const error = await rejectionOf(
    resolveRunnerdArtifact({ executablePath: exe.path, expectedSha256: exe.sha256, ...options }),
  );
  expect(error.issues.map((issue) => issue.code)).toEqual([code]);
  const issue = error.issues[0] as RunnerdArtifactIssue;
  expect(issue.component).toBe('runnerd');
  expect(issue).toHaveProperty('expected');
  expect(issue).toHaveProperty('received');
  return issue;
}

async function pathIssueOf(path: string): Promise<RunnerdArtifactIssue> {
  return onlyIssueOf({ path, sha256: exes.good.sha256, byteSize: 0 }, 'path_invalid');
}

/** Processes (not zombies) whose process group is `pgid`, from /proc/<pid>/stat. */
function processesInGroup(pgid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses, so split after the last ')'.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') found.push(Number(entry));
  }
  return found;
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

describe('when the executable is good', () => {
  it('returns its absolute path, digest, byte size and build metadata', async () => {
    const artifact = await resolveRunnerdArtifact({
      executablePath: exes.good.path,
      expectedSha256: exes.good.sha256,
    });
    expect(artifact).toEqual({
      executablePath: exes.good.path,
      sha256: exes.good.sha256,
      byteSize: exes.good.byteSize,
      buildMetadata: GOOD_METADATA,
    });
  });

  it('reads no build profile into the artifact: a printed one is an additive field, of any value', async () => {
    for (const buildProfile of ['debug', 'fast']) {
      const exe = await writeExecutable(
        join(staging.root, `profile-${buildProfile}`),
        printingScript(JSON.stringify({ ...GOOD_METADATA, buildProfile })),
      );
      const artifact = await resolveRunnerdArtifact({ executablePath: exe.path, expectedSha256: exe.sha256 });
      expect(artifact.buildMetadata).toEqual({ ...GOOD_METADATA, buildProfile });
      expect('buildProfile' in artifact).toBe(false);
    }
  });

  it('keeps unknown metadata fields, top-level and nested', async () => {
    const artifact = await resolveRunnerdArtifact({
      executablePath: exes.printsExtraFields.path,
      expectedSha256: exes.printsExtraFields.sha256,
    });
    expect(artifact.buildMetadata).toEqual(exes.extraFields);
    expect(artifact.buildMetadata.x_vendor).toEqual({ commit: '8d1f2e0', dirty: false });
    expect(artifact.buildMetadata.prp.x_wireFormat).toBe('ndjson');
  });

  it('runs it with only --build-metadata, an empty environment and stdin at end of file', async () => {
    process.env.PAPERCLIP_RESOLVER_TEST_SECRET = 'must-not-leak';
    try {
      const artifact = await resolveRunnerdArtifact({
        executablePath: exes.probesEnvironment.path,
        expectedSha256: exes.probesEnvironment.sha256,
      });
      // $HOME | $PAPERCLIP_RESOLVER_TEST_SECRET | $* | stdin
      expect(artifact.buildMetadata.x_probe).toBe('||--build-metadata|eof');
    } finally {
      delete process.env.PAPERCLIP_RESOLVER_TEST_SECRET;
    }
  });
});

describe('when the path is not a regular executable file', () => {
  it('refuses a file without an execute bit (path_invalid)', async () => {
    const issue = await pathIssueOf(exes.nonExecutable.path);
    expect(issue.message).toContain('is not executable (mode 0644)');
  });

  it('refuses a directory (path_invalid)', async () => {
    const issue = await pathIssueOf(exes.directory);
    expect(issue.message).toContain('is a directory');
  });

  it('refuses a dangling symlink (path_invalid), naming its target', async () => {
    const issue = await pathIssueOf(exes.danglingSymlink);
    expect(issue.message).toContain('is a symbolic link');
    expect(issue.message).toContain('no-such-target');
  });

  it('does not follow a symlink even to a good executable: the caller passes the target path', async () => {
    const issue = await pathIssueOf(exes.symlinkToGood);
    expect(issue.message).toContain('symbolic links are not followed');
    expect(issue.received).toBe(`a symbolic link to ${exes.good.path}`);
  });

  it('refuses a path that does not exist (path_invalid)', async () => {
    const issue = await pathIssueOf(join(exes.dir, 'no-such-file'));
    expect(issue.message).toContain('does not exist');
  });

  it('refuses an empty path before touching anything', async () => {
    await pathIssueOf('');
  });
});

describe('when the path is relative', () => {
  it('resolves a bare name against cwd', async () => {
    const artifact = await resolveRunnerdArtifact({
      executablePath: 'paperclip-runnerd',
      expectedSha256: exes.good.sha256,
      cwd: exes.bareNameDir,
    });
    expect(artifact.executablePath).toBe(join(exes.bareNameDir, 'paperclip-runnerd'));
    expect(artifact.buildMetadata).toEqual(GOOD_METADATA);
  });

  it('resolves a relative path against cwd', async () => {
    const artifact = await resolveRunnerdArtifact({
      executablePath: 'bin/good',
      expectedSha256: exes.good.sha256,
      cwd: staging.root,
    });
    expect(artifact.executablePath).toBe(exes.good.path);
  });

  it('never searches PATH for a bare name (path_invalid)', async () => {
    const savedPath = process.env.PATH;
    process.env.PATH = `${exes.bareNameDir}:${savedPath ?? ''}`;
    try {
      for (const cwd of [exes.directory, undefined]) {
        const error = await rejectionOf(
          resolveRunnerdArtifact({
            executablePath: 'paperclip-runnerd',
            expectedSha256: exes.good.sha256,
            ...(cwd === undefined ? {} : { cwd }),
          }),
        );
        expect(error.issues.map((issue) => issue.code)).toEqual(['path_invalid']);
        expect(error.issues[0]?.message).toContain('not a PATH lookup');
      }
    } finally {
      process.env.PATH = savedPath;
    }
  });
});

describe('when the digest is wrong', () => {
  it('refuses a malformed digest before touching the path (digest_invalid, not path_invalid)', async () => {
    const error = await rejectionOf(
      resolveRunnerdArtifact({
        executablePath: join(staging.root, 'does-not-exist'),
        expectedSha256: 'sha256:abc',
      }),
    );
    expect(error.issues.map((issue) => issue.code)).toEqual(['digest_invalid']);
    expect(error.issues[0]?.received).toBe('sha256:abc');
  });

  it('refuses uppercase hex (digest_invalid) and says why', async () => {
    const error = await rejectionOf(
      resolveRunnerdArtifact({
        executablePath: exes.good.path,
        expectedSha256: exes.good.sha256.toUpperCase().replace('SHA256:', 'sha256:'),
      }),
    );
    expect(error.issues.map((issue) => issue.code)).toEqual(['digest_invalid']);
    expect(error.issues[0]?.message).toContain('lowercase');
  });

  it('reports every form problem at once (empty path and bad digest)', async () => {
    const error = await rejectionOf(resolveRunnerdArtifact({ executablePath: '', expectedSha256: 'md5:00' }));
    expect(error.issues.map((issue) => issue.code)).toEqual(['path_invalid', 'digest_invalid']);
  });

  it('refuses a digest mismatch (digest_mismatch) and never executes the file', async () => {
    const issue = await onlyIssueOf({ ...exes.wrongDigest, sha256: exes.good.sha256 }, 'digest_mismatch');
    expect(issue.expected).toBe(exes.good.sha256);
    expect(issue.received).toBe(exes.wrongDigest.sha256);
    expect(existsSync(exes.wrongDigestRanMarker)).toBe(false);
  });
});

describe('when the file is swapped between hash and exec', () => {
  it('executes the bytes it hashed, not what the path holds by then', async () => {
    const dir = join(staging.root, 'swap');
    await mkdir(dir);
    const pair = await createSwapPair(dir);
    // As soon as the resolver creates its staging directory (the file is open and being copied),
    // replace the file at the path given by a build that would report a different version.
    let swapped = false;
    const watcher = watch(staging.stagingParent, (_event, name) => {
      if (swapped || name === null || !name.startsWith(RUNNERD_STAGING_DIR_PREFIX)) return;
      swapped = true;
      writeFileSync(pair.swapMarker, '');
      renameSync(pair.replacement.path, pair.original.path);
    });
    try {
      const artifact = await resolveRunnerdArtifact({
        executablePath: pair.original.path,
        expectedSha256: pair.original.sha256,
      });
      expect(swapped).toBe(true);
      // The copy that ran saw the swap marker, so the swap really happened before exec…
      expect(artifact.buildMetadata.x_probe).toBe('swapped-before-exec');
      // …and yet what ran is the hashed build, not the replacement now at the path.
      expect(artifact.buildMetadata.packageVersion).toBe(HASHED_VERSION);
      expect(artifact.sha256).toBe(pair.original.sha256);
      expect(artifact.byteSize).toBe(pair.original.byteSize);
      expect(readFileSync(pair.original.path, 'utf8')).toContain(SWAPPED_VERSION);
    } finally {
      watcher.close();
    }
  });
});

describe('when --build-metadata fails', () => {
  it('reports a non-zero exit with its stderr (metadata_unavailable)', async () => {
    const issue = await onlyIssueOf(exes.exitsOne, 'metadata_unavailable');
    expect(issue.message).toContain('exited with code 1');
    expect(issue.message).toContain('runnerd: no build metadata compiled in');
    expect(issue.received).toBe('exit code 1');
  });

  it('reports death by signal (metadata_unavailable)', async () => {
    const issue = await onlyIssueOf(exes.killsItself, 'metadata_unavailable');
    expect(issue.message).toContain('killed by SIGKILL');
    expect(issue.received).toBe('signal SIGKILL');
  });

  it('kills a build that never exits, with its whole process group, within timeout + 1 s', async () => {
    const metadataTimeoutMs = 500;
    const started = Date.now();
    const issue = await onlyIssueOf(exes.sleeper, 'metadata_unavailable', { metadataTimeoutMs });
    const elapsedMs = Date.now() - started;
    expect(elapsedMs).toBeLessThan(metadataTimeoutMs + 1000);
    expect(issue.message).toContain('did not exit within 500 ms (process group killed)');

    const [leader, background] = readFileSync(exes.sleeperPidsFile, 'utf8').trim().split(' ').map(Number);
    expect(leader).toBeGreaterThan(1);
    expect(background).toBeGreaterThan(1);
    // With detached spawn the script leads its own group: pgid = its pid. The background sleep
    // shared it; nothing of the group may survive (SIGKILL is delivered at once; allow reaping).
    const gone = await waitUntil(() => processesInGroup(leader!).length === 0, 500);
    expect(processesInGroup(leader!)).toEqual([]);
    expect(gone).toBe(true);
  });

  it('stops reading past the stdout cap and kills the group (metadata_unavailable)', async () => {
    const issue = await onlyIssueOf(exes.printsTenMegabytes, 'metadata_unavailable');
    expect(issue.message).toContain(`stdout passed ${DEFAULT_MAX_METADATA_BYTES} bytes`);
  });

  it('reports output that is not JSON (metadata_invalid, as upstream: the process ran)', async () => {
    const issue = await onlyIssueOf(exes.printsInvalidJson, 'metadata_invalid');
    expect(issue.message).toContain('printed not JSON');
  });

  it('reports several JSON texts (metadata_invalid, as upstream: the process ran)', async () => {
    const issue = await onlyIssueOf(exes.printsTwoObjects, 'metadata_invalid');
    expect(issue.message).toContain('several JSON texts');
  });

  it('reports a JSON text that is not an object (metadata_invalid, as upstream: the process ran)', async () => {
    const issue = await onlyIssueOf(exes.printsArray, 'metadata_invalid');
    expect(issue.message).toContain('not an object');
  });
});

describe('when the file is executable but not an executable format', () => {
  it('refuses to start it and never hands it to a shell (metadata_unavailable, ENOEXEC)', async () => {
    const issue = await onlyIssueOf(exes.notExecutableFormat, 'metadata_unavailable');
    expect(issue.message).toContain('could not be started (ENOEXEC');
    expect(existsSync(exes.notExecutableFormatRanMarker)).toBe(false);
  });
});

describe('when a text file only pretends to be ELF', () => {
  it('refuses it instead of letting execvp hand it to /bin/sh', async () => {
    const marker = join(staging.root, 'fake-elf-ran');
    const fake = await writeExecutable(join(staging.root, 'fake-elf'), `\x7fELF\n/usr/bin/touch ${marker}\n`);
    const issue = await onlyIssueOf(fake, 'metadata_unavailable');
    expect(issue.message).toContain('ENOEXEC');
    expect(existsSync(marker)).toBe(false);
  });
});

describe('when the path goes through a symlinked directory and ..', () => {
  it('verifies the file the OS resolves, not a lexically tidied path', async () => {
    // real/inner/ is reached through `through` → real/inner; `through/../x` is real/x for the OS,
    // while a lexical resolve would make it ./x in the current folder.
    const base = join(staging.root, 'lexical');
    await mkdir(join(base, 'real', 'inner'), { recursive: true });
    await symlink(join(base, 'real', 'inner'), join(base, 'through'));
    const osTarget = await writeExecutable(join(base, 'real', 'good'), readFileSync(exes.good.path));
    writeFileSync(join(base, 'good'), 'not the one the OS reaches', { mode: 0o755 });
    const artifact = await resolveRunnerdArtifact({
      executablePath: 'through/../good',
      expectedSha256: osTarget.sha256,
      cwd: base,
    });
    expect(artifact.sha256).toBe(osTarget.sha256);
  });

  it('refuses a trailing slash after a file name', async () => {
    const issue = await pathIssueOf(`${exes.good.path}/`);
    expect(issue.code).toBe('path_invalid');
  });
});

describe('when the metadata does not match the schema', () => {
  it('reports every schema error and the PRP range with its JSON path (metadata_invalid)', async () => {
    const error = await rejectionOf(
      resolveRunnerdArtifact({
        executablePath: exes.printsInvalidMetadata.path,
        expectedSha256: exes.printsInvalidMetadata.sha256,
      }),
    );
    expect(error.issues.every((issue) => issue.code === 'metadata_invalid')).toBe(true);
    expect(error.issues.every((issue) => issue.component === 'runnerd')).toBe(true);
    expect(error.issues.map((issue) => issue.path).sort()).toEqual([
      '/binaryContractVersion',
      '/packageVersion',
      '/prp/minimumVersion',
    ]);
  });
});

describe('resolver options', () => {
  it('throws a RangeError (not a contract error) for a non-positive limit', async () => {
    await expect(
      resolveRunnerdArtifact({
        executablePath: exes.good.path,
        expectedSha256: exes.good.sha256,
        metadataTimeoutMs: 0,
      }),
    ).rejects.toThrow(RangeError);
  });

  it('leaves no staging directory behind, on success or failure', async () => {
    await resolveRunnerdArtifact({ executablePath: exes.good.path, expectedSha256: exes.good.sha256 });
    await rejectionOf(
      resolveRunnerdArtifact({ executablePath: exes.exitsOne.path, expectedSha256: exes.exitsOne.sha256 }),
    );
    await rejectionOf(
      resolveRunnerdArtifact({ executablePath: exes.good.path, expectedSha256: exes.exitsOne.sha256 }),
    );
    expect(readdirSync(staging.stagingParent)).toEqual([]);
  });
});
