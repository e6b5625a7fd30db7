// The policy binary is resolved like runnerd (contract's stageVerifiedExecutable): its failures are
// PolicyError paperclip_policy_binary_invalid with the resolver's issue codes, a file execve would
// not run is refused rather than handed to a shell, and no staging directory is left behind.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { guardedCounts } from '@paperclip-evals/node';

import { POLICY_BINARY_STAGING_DIR_PREFIX, resolvePolicyBinary } from '../src/binary.ts';
import { PolicyError } from '../src/errors.ts';
import { writeExecutable } from '@paperclip-evals/test-kit/producers';
import { useStagingTmpdir } from '@paperclip-evals/test-kit/staging';

const staging = useStagingTmpdir('policy-binary-test-', guardedCounts);

async function rejectionOf(promise: Promise<unknown>): Promise<PolicyError> {
  const error: unknown = await promise.then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  expect(error).toBeInstanceOf(PolicyError);
  return error as PolicyError;
}

describe('resolvePolicyBinary', () => {
  it('stages the verified bytes under its own prefix', async () => {
    const exe = await writeExecutable(staging.root, 'producer.sh', '#!/bin/sh\nexit 0\n');
    const binary = await resolvePolicyBinary({ executablePath: exe.path, expectedSha256: exe.sha256 });
    expect(binary.sha256).toBe(exe.sha256);
    expect(binary.stagedPath.startsWith(join(staging.stagingParent, POLICY_BINARY_STAGING_DIR_PREFIX))).toBe(
      true,
    );
    expect(readFileSync(binary.stagedPath, 'utf8')).toBe('#!/bin/sh\nexit 0\n');
    await binary.dispose();
  });

  it('turns the resolver issues into paperclip_policy_binary_invalid for the policy binary', async () => {
    const exe = await writeExecutable(staging.root, 'mismatch.sh', '#!/bin/sh\n');
    const error = await rejectionOf(
      resolvePolicyBinary({ executablePath: exe.path, expectedSha256: `sha256:${'0'.repeat(64)}` }),
    );
    expect(error.code).toBe('paperclip_policy_binary_invalid');
    expect(error.issues).toMatchObject([{ code: 'digest_mismatch', component: 'policy-binary' }]);
  });

  it('reports a bad path and a bad digest together', async () => {
    const error = await rejectionOf(resolvePolicyBinary({ executablePath: '', expectedSha256: 'sha256:x' }));
    expect(error.issues.map((issue) => issue.code)).toEqual(['path_invalid', 'digest_invalid']);
  });

  it('refuses a file that is neither ELF nor #! instead of letting execvp hand it to /bin/sh', async () => {
    const exe = await writeExecutable(staging.root, 'plain', 'echo would run under sh\n');
    const error = await rejectionOf(
      resolvePolicyBinary({ executablePath: exe.path, expectedSha256: exe.sha256 }),
    );
    expect(error.issues).toMatchObject([{ code: 'path_invalid', component: 'policy-binary' }]);
    expect(error.message).toMatch(/not handed to a shell/);
  });
});
