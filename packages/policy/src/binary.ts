// Resolving the policy binary like runnerd: the explicit path given (never a PATH search; a final
// symlink is refused) and its expected sha256. The file is read once, through an O_NOFOLLOW
// descriptor, into sha256 and into a private copy (mkdtemp, mode 0700); only that copy runs, so
// the bytes executed are the bytes hashed. contract's resolveRunnerdArtifact does the same for
// runnerd but also runs `--build-metadata`, which an evaluate producer does not have, and does not
// export its staging step; this is the policy package's own, smaller version.
import { createHash } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { chmod, mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, isAbsolute, join } from 'node:path';

import { digestsEqual, isSha256Digest } from '@paperclip-evals/contract';

import { PolicyError } from './errors.js';

import type { FileHandle } from 'node:fs/promises';

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

const COPY_CHUNK_BYTES = 1024 * 1024;

/** Verifies and stages the binary; throws PolicyError('paperclip_policy_binary_invalid'). */
export async function resolvePolicyBinary(options: ResolvePolicyBinaryOptions): Promise<PolicyBinary> {
  const { executablePath, expectedSha256 } = options;
  if (!isSha256Digest(expectedSha256))
    throw binaryInvalid(
      'digest_invalid',
      `${JSON.stringify(expectedSha256)} is not sha256: followed by 64 lowercase hex digits`,
    );
  if (executablePath === '' || executablePath.includes('\0'))
    throw binaryInvalid('path_invalid', 'the policy binary path is empty or holds NUL');
  const absolutePath = isAbsolute(executablePath)
    ? executablePath
    : join(options.cwd ?? process.cwd(), executablePath);

  let source: FileHandle;
  try {
    source = await open(absolutePath, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    const why =
      code === 'ELOOP'
        ? 'is a symbolic link (not followed; pass the file itself)'
        : `cannot be opened (${code}; only the explicit path is used, never PATH)`;
    throw binaryInvalid('path_invalid', `${absolutePath} ${why}`);
  }
  const stagingDir = await mkdtemp(join(tmpdir(), 'evals-policy-binary-'));
  try {
    const info = await source.stat();
    if (!info.isFile() || (info.mode & 0o111) === 0)
      throw binaryInvalid('path_invalid', `${absolutePath} is not a regular file with an execute bit`);
    await chmod(stagingDir, 0o700);
    const stagedPath = join(stagingDir, basename(absolutePath));
    const sha256 = await copyAndHash(source, stagedPath);
    if (!digestsEqual(sha256, expectedSha256))
      throw binaryInvalid(
        'digest_mismatch',
        `${absolutePath} has digest ${sha256}, not the expected ${expectedSha256}`,
      );
    return {
      executablePath: absolutePath,
      sha256,
      stagedPath,
      dispose: () => rm(stagingDir, { recursive: true, force: true }),
    };
  } catch (error) {
    await rm(stagingDir, { recursive: true, force: true });
    throw error;
  } finally {
    await source.close();
  }
}

async function copyAndHash(source: FileHandle, stagedPath: string): Promise<string> {
  const hash = createHash('sha256');
  const target = await open(stagedPath, 'wx', 0o700);
  try {
    const buffer = Buffer.allocUnsafe(COPY_CHUNK_BYTES);
    for (let position = 0; ;) {
      const { bytesRead } = await source.read(buffer, 0, COPY_CHUNK_BYTES, position);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      hash.update(chunk);
      await target.write(chunk, 0, bytesRead, position);
      position += bytesRead;
    }
  } finally {
    await target.close(); // closed before it runs: Linux refuses to exec a file open for writing
  }
  return `sha256:${hash.digest('hex')}`;
}

function binaryInvalid(
  code: 'path_invalid' | 'digest_invalid' | 'digest_mismatch',
  message: string,
): PolicyError {
  return new PolicyError('paperclip_policy_binary_invalid', `policy binary rejected: ${message}`, [
    { code, message, component: 'policy-binary' },
  ]);
}
