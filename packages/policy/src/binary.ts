// Resolving the policy binary like runnerd: the explicit path given (never a PATH search; a final
// symlink is refused) and its expected sha256, verified and staged by node's
// stageVerifiedExecutable (the resolver's own step: read once into sha256 and into a private copy,
// so the bytes executed are the bytes hashed). Only that copy runs. Its failures become
// PolicyError('paperclip_policy_binary_invalid') with the same issues, for the policy binary.
import { isContractError } from '@paperclip-evals/contract';
import { stageVerifiedExecutable } from '@paperclip-evals/node';

import { PolicyError } from './errors.js';

import type { Issue } from '@paperclip-evals/contract';

export interface ResolvePolicyBinaryOptions {
  /** Absolute, or relative to `cwd`; never looked up on PATH. */
  readonly executablePath: string;
  /** `sha256:` + 64 lowercase hex digits. */
  readonly expectedSha256: string;
  readonly cwd?: string;
}

export interface PolicyBinary {
  /** The path given, made absolute. */
  readonly executablePath: string;
  readonly sha256: string;
  /** The verified private copy: the file to run. */
  readonly stagedPath: string;
  /** Removes the private copy. */
  dispose(): Promise<void>;
}

/** Name prefix of the private staging directories created under os.tmpdir(). */
export const POLICY_BINARY_STAGING_DIR_PREFIX = 'evals-policy-binary-';

/** Verifies and stages the binary; throws PolicyError('paperclip_policy_binary_invalid'). */
export async function resolvePolicyBinary(options: ResolvePolicyBinaryOptions): Promise<PolicyBinary> {
  let staged;
  try {
    staged = await stageVerifiedExecutable({
      executablePath: options.executablePath,
      expectedSha256: options.expectedSha256,
      stagingDirPrefix: POLICY_BINARY_STAGING_DIR_PREFIX,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    });
  } catch (error) {
    if (!isContractError(error)) throw error;
    throw binaryInvalid(error.issues, error);
  }
  if (!staged.runnable) {
    await staged.dispose();
    // execvp would hand such a file to /bin/sh: it is refused instead of run.
    throw binaryInvalid([
      {
        code: 'path_invalid',
        message: `${staged.executablePath} is neither an ELF executable for this machine nor a #! script; not handed to a shell`,
        expected: 'an ELF executable or a #! script',
        received: 'another file format',
      },
    ]);
  }
  return {
    executablePath: staged.executablePath,
    sha256: staged.sha256,
    stagedPath: staged.stagedPath,
    dispose: () => staged.dispose(),
  };
}

function binaryInvalid(issues: readonly Issue[], cause?: unknown): PolicyError {
  const first = issues[0];
  return new PolicyError(
    'paperclip_policy_binary_invalid',
    `policy binary rejected: ${first === undefined ? 'not verified' : first.message}`,
    issues.map((issue) => ({ ...issue, component: 'policy-binary' })),
    cause === undefined ? undefined : { cause },
  );
}
