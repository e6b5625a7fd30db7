// The runnerd artifact resolver: an explicit path and an expected digest in, a verified
// `paperclip-runnerd` executable and its build metadata out, or one
// ContractError('paperclip_runnerd_artifact_invalid') whose issues say what is wrong
// (path_invalid | digest_invalid | file_too_large | digest_mismatch | metadata_unavailable |
// metadata_invalid).
//
// - The executable is verified and copied by stageVerifiedExecutable (staged-executable.ts: only
//   the path given, never a symlink, at most 512 MiB, the digest compared before anything is
//   copied, the copy digested again); only that private copy is run, and it is removed on every
//   outcome (and on SIGINT or SIGTERM, see child-cleanup.ts).
// - The copy runs as `<copy> --build-metadata` through runBounded (bounded-run.ts): no shell, an
//   EMPTY environment (nothing of ours reaches it: no PATH, HOME, locale or secrets; build
//   metadata must not depend on them), stdin from /dev/null, the private directory as cwd, its own
//   process group, a timeout and a stdout cap, and the one kill rule (the whole group SIGKILLed
//   on timeout, on oversize and once the leader exits). Only an ELF executable or a `#!` script is
//   run: anything else the kernel would refuse (ENOEXEC), and libuv would then hand it to
//   /bin/sh, so it is refused as metadata_unavailable.
// - Stdout must be exactly one strict JSON object valid as runnerd build metadata (contract's
//   runnerdMetadataFromStdout: else metadata_invalid, as upstream names output it cannot parse). A
//   process that fails (non-zero exit, signal, timeout, oversize) is metadata_unavailable with the
//   detail, and nothing else is inferred.
import { runnerdArtifactInvalid, runnerdMetadataFromStdout } from '@paperclip-evals/contract';

import { runBounded } from './bounded-run.js';
import { assertPositiveInteger, stageVerifiedExecutable } from './staged-executable.js';

import type { ContractError, RunnerdBuildMetadata, Sha256Digest } from '@paperclip-evals/contract';

import type { BoundedRunResult } from './bounded-run.js';

export const DEFAULT_METADATA_TIMEOUT_MS = 5000;
export const DEFAULT_MAX_METADATA_BYTES = 65_536;
/** Name prefix of the private staging directories created under os.tmpdir(). */
export const RUNNERD_STAGING_DIR_PREFIX = 'paperclip-runnerd-';

/** Stderr quoted in a metadata_unavailable message (its last bytes). */
const MAX_STDERR_BYTES = 2048;

export interface ResolveRunnerdArtifactOptions {
  /** Absolute, or relative to `cwd`; never looked up on PATH. A symlink is refused. */
  readonly executablePath: string;
  /** `sha256:` + 64 lowercase hex digits. */
  readonly expectedSha256: string;
  /** Time for `--build-metadata` to exit, in ms (default 5000). */
  readonly metadataTimeoutMs?: number;
  /** Most stdout bytes accepted from `--build-metadata` (default 65536). */
  readonly maxMetadataBytes?: number;
  /** Base of a relative `executablePath` (default: process.cwd()). */
  readonly cwd?: string;
  /** The largest executable accepted, in bytes (default DEFAULT_MAX_EXECUTABLE_BYTES, 512 MiB). */
  readonly maxExecutableBytes?: number;
}

export interface RunnerdArtifact {
  /** Absolute path of the file that was hashed (symlinks are never followed, so no link). */
  readonly executablePath: string;
  readonly sha256: Sha256Digest;
  readonly byteSize: number;
  readonly buildMetadata: RunnerdBuildMetadata;
}

/**
 * Verifies the executable at `executablePath` against `expectedSha256` and reads its build
 * metadata, executing exactly the bytes that were hashed. Throws ContractError
 * ('paperclip_runnerd_artifact_invalid') for every contract failure; a RangeError for a
 * non-positive limit; and the fs error when the private staging copy cannot be written.
 */
export async function resolveRunnerdArtifact(
  options: ResolveRunnerdArtifactOptions,
): Promise<RunnerdArtifact> {
  const metadataTimeoutMs = options.metadataTimeoutMs ?? DEFAULT_METADATA_TIMEOUT_MS;
  const maxMetadataBytes = options.maxMetadataBytes ?? DEFAULT_MAX_METADATA_BYTES;
  assertPositiveInteger('metadataTimeoutMs', metadataTimeoutMs);
  assertPositiveInteger('maxMetadataBytes', maxMetadataBytes);
  const staged = await stageVerifiedExecutable({
    executablePath: options.executablePath,
    expectedSha256: options.expectedSha256,
    stagingDirPrefix: RUNNERD_STAGING_DIR_PREFIX,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.maxExecutableBytes === undefined ? {} : { maxExecutableBytes: options.maxExecutableBytes }),
  });
  try {
    const unavailable = metadataUnavailable(staged.executablePath, metadataTimeoutMs, maxMetadataBytes);
    if (!staged.runnable)
      throw unavailable(
        'could not be started (ENOEXEC: neither an ELF executable nor a #! script; not handed to a shell)',
        'spawn error ENOEXEC',
      );
    const result = await runBounded({
      command: staged.stagedPath,
      args: ['--build-metadata'],
      cwd: staged.stagingDir,
      env: {},
      timeoutMs: metadataTimeoutMs,
      maxStdoutBytes: maxMetadataBytes,
      maxStderrBytes: MAX_STDERR_BYTES,
    });
    const failure = runProblem(result, metadataTimeoutMs, maxMetadataBytes);
    if (failure !== undefined) throw unavailable(failure.detail, failure.received, result.stderrTail);
    const buildMetadata = runnerdMetadataFromStdout(staged.executablePath, result.stdout, maxMetadataBytes);
    return {
      executablePath: staged.executablePath,
      sha256: staged.sha256,
      byteSize: staged.byteSize,
      buildMetadata,
    };
  } finally {
    await staged.dispose();
  }
}

/** The metadata_unavailable error of one run, with the end of its stderr quoted. */
function metadataUnavailable(
  absolutePath: string,
  timeoutMs: number,
  maxStdoutBytes: number,
): (detail: string, received: string, stderr?: string) => ContractError {
  const expected = `exit code 0 within ${timeoutMs} ms and exactly one JSON object (at most ${maxStdoutBytes} bytes) on stdout`;
  return (detail, received, stderr = '') => {
    const snippet = stderr.trim() === '' ? '' : `; stderr: ${stderr.trim()}`;
    return runnerdArtifactInvalid(absolutePath, [
      {
        code: 'metadata_unavailable',
        component: 'runnerd',
        message: `${absolutePath} --build-metadata ${detail}${snippet}`,
        expected,
        received,
      },
    ]);
  };
}

/** How `--build-metadata` failed to run to a clean exit, in words; undefined when it exited 0. */
function runProblem(
  result: BoundedRunResult,
  timeoutMs: number,
  maxStdoutBytes: number,
): { readonly detail: string; readonly received: string } | undefined {
  if (result.spawnError !== null) {
    const code = result.spawnError.code ?? result.spawnError.message;
    return { detail: `could not be started (${code})`, received: `spawn error ${code}` };
  }
  if (result.timedOut)
    return {
      detail: `did not exit within ${timeoutMs} ms (process group killed)`,
      received: `no exit after ${timeoutMs} ms`,
    };
  if (result.stdoutOverflow)
    return {
      detail: `stdout passed ${maxStdoutBytes} bytes (process group killed)`,
      received: `more than ${maxStdoutBytes} bytes of stdout`,
    };
  if (result.signal !== null)
    return { detail: `was killed by ${result.signal}`, received: `signal ${result.signal}` };
  if (result.exitCode !== 0)
    return {
      detail: `exited with code ${String(result.exitCode)}`,
      received: `exit code ${String(result.exitCode)}`,
    };
  return undefined;
}
