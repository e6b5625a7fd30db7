// stageVerifiedExecutable, the resolver's verification step that other "explicit path + sha256"
// executables (the policy producer) share: the staged copy holds exactly the bytes hashed, a file
// execve would not run is flagged, and every failure removes its staging directory.
import { readFileSync, statSync } from 'node:fs';
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { ContractError } from '@paperclip-evals/contract';

import { stageVerifiedExecutable } from '../src/staged-executable.ts';
import { sha256Of, writeExecutable } from '@paperclip-evals/test-kit/test-executables';
import { useStagingTmpdir } from '@paperclip-evals/test-kit/staging';
import { guardedCounts } from '../src/child-cleanup.ts';

const PREFIX = 'stage-test-';

const staging = useStagingTmpdir('stage-verified-executable-test-', guardedCounts);

async function issueCodesOf(promise: Promise<unknown>): Promise<string[]> {
  const error: unknown = await promise.then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  expect(error).toBeInstanceOf(ContractError);
  expect((error as ContractError).code).toBe('paperclip_runnerd_artifact_invalid');
  return (error as ContractError).issues.map((issue) => issue.code);
}

describe('stageVerifiedExecutable', () => {
  it('stages a private copy of exactly the bytes hashed, under the prefix given, until dispose()', async () => {
    const exe = await writeExecutable(join(staging.root, 'tool.sh'), '#!/bin/sh\necho hi\n');
    const staged = await stageVerifiedExecutable({
      executablePath: exe.path,
      expectedSha256: exe.sha256,
      stagingDirPrefix: PREFIX,
    });
    expect(staged).toMatchObject({ executablePath: exe.path, sha256: exe.sha256, byteSize: exe.byteSize });
    expect(staged.runnable).toBe(true);
    expect(staged.stagedPath.startsWith(join(staging.stagingParent, PREFIX))).toBe(true);
    expect(sha256Of(readFileSync(staged.stagedPath))).toBe(exe.sha256);
    expect(statSync(staged.stagingDir).mode & 0o777).toBe(0o700);
    await staged.dispose();
  });

  it('resolves a relative path against cwd, never PATH', async () => {
    const exe = await writeExecutable(join(staging.root, 'relative.sh'), '#!/bin/sh\n');
    const staged = await stageVerifiedExecutable({
      executablePath: 'relative.sh',
      expectedSha256: exe.sha256,
      cwd: staging.root,
      stagingDirPrefix: PREFIX,
    });
    expect(staged.executablePath).toBe(`${staging.root}/relative.sh`);
    await staged.dispose();
  });

  it('flags a file that is neither ELF nor #! as not runnable (execvp would hand it to /bin/sh)', async () => {
    const exe = await writeExecutable(join(staging.root, 'plain.txt'), 'echo not a script\n');
    const staged = await stageVerifiedExecutable({
      executablePath: exe.path,
      expectedSha256: exe.sha256,
      stagingDirPrefix: PREFIX,
    });
    expect(staged.runnable).toBe(false);
    await staged.dispose();
  });

  it('reports every form issue at once before touching the file system', async () => {
    expect(
      await issueCodesOf(
        stageVerifiedExecutable({
          executablePath: '',
          expectedSha256: 'sha256:AB',
          stagingDirPrefix: PREFIX,
        }),
      ),
    ).toEqual(['path_invalid', 'digest_invalid']);
  });

  it('refuses a digest mismatch and removes the staged copy', async () => {
    const exe = await writeExecutable(join(staging.root, 'other.sh'), '#!/bin/sh\nexit 0\n');
    expect(
      await issueCodesOf(
        stageVerifiedExecutable({
          executablePath: exe.path,
          expectedSha256: sha256Of('something else'),
          stagingDirPrefix: PREFIX,
        }),
      ),
    ).toEqual(['digest_mismatch']);
  });

  it('refuses a final symlink and a file without an execute bit', async () => {
    const exe = await writeExecutable(join(staging.root, 'target.sh'), '#!/bin/sh\n');
    await symlink(exe.path, join(staging.root, 'link.sh'));
    const noExec = await writeExecutable(join(staging.root, 'noexec.sh'), '#!/bin/sh\n', 0o644);
    for (const [path, sha256] of [
      [join(staging.root, 'link.sh'), exe.sha256],
      [noExec.path, noExec.sha256],
    ] as const)
      expect(
        await issueCodesOf(
          stageVerifiedExecutable({ executablePath: path, expectedSha256: sha256, stagingDirPrefix: PREFIX }),
        ),
      ).toEqual(['path_invalid']);
  });
});
