// The runnerd artifact resolver: an explicit path and an expected digest in, a verified
// `paperclip-runnerd` executable and its build metadata out, or one
// ContractError('paperclip_runnerd_artifact_invalid') whose issues say what is wrong
// (path_invalid | digest_invalid | file_too_large | digest_mismatch | metadata_unavailable |
// metadata_invalid).
//
// - Only the path given is used: absolute, or relative to `cwd` (default: the working directory).
//   PATH, the workspace and default install locations are never searched, and a bare name such as
//   `paperclip-runnerd` is a relative path like any other.
// - Symbolic links are NOT followed. The path's last component must itself be a regular file with
//   an execute bit; a symlink (dangling or not) is refused with path_invalid, and the message names
//   its target so the caller can pass that path instead. (Directories above it may be links, as
//   in any path.) lstat gives the early answer; the file is then opened with O_NOFOLLOW and checked
//   again with fstat on the descriptor, so a link, directory or FIFO swapped in after lstat is
//   refused too.
// - The digest's form (`sha256:` + 64 lowercase hex) is checked before the file is touched.
// - The bytes executed are the bytes hashed, and nothing unverified is copied. A file larger than
//   DEFAULT_MAX_EXECUTABLE_BYTES (512 MiB; option maxExecutableBytes) is refused with
//   file_too_large before it is read. The opened descriptor is read once, chunk by chunk
//   (constant memory, never past the cap), into sha256 and the digest compared in constant time:
//   a mismatch is refused before anything is written. Only then is the same descriptor copied
//   (again at most the cap) into a fresh private directory (mkdtemp under os.tmpdir(), mode 0700;
//   the copy is created exclusively, mode 0700), and the copy itself is digested: a file
//   rewritten between the two reads gives a copy that does not match, refused with
//   digest_mismatch. Only that copy is executed, so replacing or rewriting the file at
//   `executablePath` changes nothing. The directory is removed on every outcome, and is
//   registered with child-cleanup.ts so a SIGINT or SIGTERM removes it too.
// - The copy runs as `<copy> --build-metadata` with no shell, an EMPTY environment (nothing of
//   ours reaches it: no PATH, HOME, locale or secrets; build metadata must not depend on them),
//   stdin from /dev/null, the private directory as cwd, and its own process group (a new
//   session, registered with child-cleanup.ts: a SIGINT or SIGTERM to us kills it). On timeout, or once stdout passes the byte cap, the whole group gets SIGKILL; when
//   the process exits the group gets SIGKILL again, so nothing it started outlives it (a
//   descendant that made its own session with setsid is out of reach). POSIX only.
//   Only an ELF executable or a `#!` script is run: anything else the kernel would refuse
//   (ENOEXEC), and libuv would then hand it to /bin/sh, so it is refused as metadata_unavailable.
// - Stdout must be exactly one strict JSON object (readJsonText), valid against
//   schemas/runner/runnerd-build-metadata-v1.schema.json, with prp.minimumVersion <= maximumVersion.
//   Unknown fields are kept. A process that fails (non-zero exit, signal, timeout, oversize, not
//   one JSON object) is metadata_unavailable with the detail, and nothing else is inferred from it.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { chmod, lstat, mkdtemp, open, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, isAbsolute, join } from 'node:path';

import { guardPrivatePath, guardProcessGroup, killProcessGroup } from './child-cleanup.js';
import { digestsEqual, isSha256Digest } from './digest.js';
import { ContractError } from './errors.js';
import { readJsonText } from './json-text.js';
import { SCHEMA_IDS, schemaIssuesOf } from './schema-registry.js';

import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

import type { Sha256Digest } from './digest.js';
import type { Issue } from './errors.js';

export const RUNNERD_BUILD_METADATA_V1 = 'paperclip-runner/runnerd-build-metadata/v1';
export const DEFAULT_METADATA_TIMEOUT_MS = 5000;
export const DEFAULT_MAX_METADATA_BYTES = 65_536;
/**
 * The largest executable staged (512 MiB; a Node single-executable runnerd is about 120 MiB): a
 * larger one is refused with file_too_large before a byte of it is copied.
 */
export const DEFAULT_MAX_EXECUTABLE_BYTES = 512 * 1024 * 1024;
/** Name prefix of the private staging directories created under os.tmpdir(). */
export const RUNNERD_STAGING_DIR_PREFIX = 'paperclip-runnerd-';

const COPY_CHUNK_BYTES = 1024 * 1024;
const MAX_STDERR_BYTES = 2048;
/** How long to wait for the killed process to be reaped before reporting anyway. */
const KILL_GRACE_MS = 500;

export type RunnerdArtifactIssueCode =
  | 'path_invalid'
  | 'digest_invalid'
  | 'file_too_large'
  | 'digest_mismatch'
  | 'metadata_unavailable'
  | 'metadata_invalid';

export interface RunnerdArtifactIssue extends Issue {
  readonly code: RunnerdArtifactIssueCode;
  readonly component: 'runnerd';
}

/** What a runnerd build prints for `--build-metadata`; unknown fields are kept. */
export interface RunnerdBuildMetadata {
  readonly schema: typeof RUNNERD_BUILD_METADATA_V1;
  readonly binaryName: 'paperclip-runnerd';
  readonly packageName: '@paperclipai/paperclip-runner';
  readonly packageVersion: string;
  readonly binaryContractVersion: number;
  readonly nativeExecutionVersion: number;
  readonly harnessDriverVersion: number;
  readonly prp: {
    readonly name: string;
    readonly minimumVersion: number;
    readonly maximumVersion: number;
    readonly [field: string]: unknown;
  };
  readonly prpTransportModes?: readonly string[];
  readonly buildProfile?: 'release' | 'debug';
  readonly [field: string]: unknown;
}

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
  /** The metadata's `buildProfile`, when it carries one. */
  readonly buildProfile?: 'release' | 'debug';
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
    const outcome = staged.runnable
      ? await runBuildMetadata(staged.stagedPath, staged.stagingDir, metadataTimeoutMs, maxMetadataBytes)
      : NOT_EXECUTABLE_FORMAT;
    const buildMetadata = buildMetadataFromOutcome(
      outcome,
      staged.executablePath,
      metadataTimeoutMs,
      maxMetadataBytes,
    );
    return {
      executablePath: staged.executablePath,
      sha256: staged.sha256,
      byteSize: staged.byteSize,
      buildMetadata,
      ...(buildMetadata.buildProfile === undefined ? {} : { buildProfile: buildMetadata.buildProfile }),
    };
  } finally {
    await staged.dispose();
  }
}

export interface StageVerifiedExecutableOptions {
  /** Absolute, or relative to `cwd`; never looked up on PATH. A symlink is refused. */
  readonly executablePath: string;
  /** `sha256:` + 64 lowercase hex digits. */
  readonly expectedSha256: string;
  /** Base of a relative `executablePath` (default: process.cwd()). */
  readonly cwd?: string;
  /** Name prefix of the private staging directory. */
  readonly stagingDirPrefix: string;
  /** Where the private staging directory is made (default: os.tmpdir()). */
  readonly parentDir?: string;
  /** The largest executable accepted, in bytes (default DEFAULT_MAX_EXECUTABLE_BYTES, 512 MiB). */
  readonly maxExecutableBytes?: number;
}

/** A verified executable's private copy: run `stagedPath` only, then dispose() of it. */
export interface StagedExecutable {
  /** Absolute path of the file that was hashed (symlinks are never followed, so no link). */
  readonly executablePath: string;
  readonly sha256: Sha256Digest;
  readonly byteSize: number;
  /** The copy (mode 0700) in `stagingDir` (mode 0700): the bytes that were hashed. */
  readonly stagedPath: string;
  readonly stagingDir: string;
  /**
   * An ELF executable for this machine or a `#!` script: what execve runs. Anything else would be
   * refused with ENOEXEC and handed to /bin/sh by execvp, so the caller must not run it.
   */
  readonly runnable: boolean;
  /** Removes the staging directory (and the copy). */
  dispose(): Promise<void>;
}

/**
 * The verification step of the resolver, shared with every other "explicit path + sha256"
 * executable (the policy producer, qualification's eval-session run): the form of the path and
 * digest, then the file opened without following a final symlink, checked to be a regular file
 * with an execute bit and at most `maxExecutableBytes`, read once into sha256 and the digest
 * compared in constant time — all before anything is written — then copied into a private
 * directory and the copy digested again. Throws ContractError('paperclip_runnerd_artifact_invalid')
 * with every form issue, or one path_invalid, file_too_large or digest_mismatch issue; the staging
 * directory is removed on every failure (and on SIGINT/SIGTERM, see child-cleanup.ts).
 */
export async function stageVerifiedExecutable(
  options: StageVerifiedExecutableOptions,
): Promise<StagedExecutable> {
  const { executablePath, expectedSha256 } = options;

  // Every check of form first, before anything touches the file system.
  const formIssues = [...pathFormIssues(executablePath), ...digestFormIssues(expectedSha256)];
  if (formIssues.length > 0) throw artifactInvalid(executablePath, formIssues);

  // No lexical normalisation (path.resolve would turn `link/../x` into `x`): the OS resolves the
  // path exactly as given, relative to cwd.
  const absolutePath = isAbsolute(executablePath)
    ? executablePath
    : `${options.cwd ?? process.cwd()}/${executablePath}`;
  const maxBytes = options.maxExecutableBytes ?? DEFAULT_MAX_EXECUTABLE_BYTES;
  assertPositiveInteger('maxExecutableBytes', maxBytes);
  const { handle: source, size } = await openExecutable(absolutePath, executablePath);
  let stagingDir: string | undefined;
  let release: (() => void) | undefined;
  try {
    let stagedPath: string;
    let verified: ReadResult;
    try {
      // 1. The size the file states, then its bytes: refused before anything is written.
      if (size > maxBytes) throw tooLarge(absolutePath, maxBytes, `${size} bytes`);
      verified = await readOpenFile(source, absolutePath, maxBytes, undefined);
      if (!digestsEqual(verified.digest, expectedSha256))
        throw digestMismatch(absolutePath, expectedSha256, verified.digest, 'has digest');
      // 2. Only a file that verified is copied (at most maxBytes, whatever it has become since).
      stagingDir = await mkdtemp(join(options.parentDir ?? tmpdir(), options.stagingDirPrefix));
      release = guardPrivatePath(stagingDir);
      await chmod(stagingDir, 0o700);
      stagedPath = join(stagingDir, basename(absolutePath));
      await readOpenFile(source, absolutePath, maxBytes, stagedPath);
    } finally {
      await source.close();
    }
    // 3. The copy is what runs, so the copy is what is digested: a file rewritten between the
    //    two reads gives a copy that does not match and is never run.
    const copied = await digestStaged(stagedPath, maxBytes, absolutePath);
    if (!digestsEqual(copied.digest, expectedSha256))
      throw digestMismatch(
        absolutePath,
        expectedSha256,
        copied.digest,
        'changed while it was read: its copy has digest',
      );
    const dir = stagingDir;
    const releaseDir = release;
    return {
      executablePath: absolutePath,
      sha256: copied.digest,
      byteSize: copied.byteSize,
      stagedPath,
      stagingDir: dir,
      runnable: isExecutableFormat(copied.head),
      dispose: async () => {
        await rm(dir, { recursive: true, force: true });
        releaseDir();
      },
    };
  } catch (error) {
    if (stagingDir !== undefined) await rm(stagingDir, { recursive: true, force: true });
    release?.();
    throw error;
  }
}

function digestMismatch(
  absolutePath: string,
  expectedSha256: string,
  digest: Sha256Digest,
  what: string,
): ContractError {
  return artifactInvalid(absolutePath, [
    {
      code: 'digest_mismatch',
      component: 'runnerd',
      message: `${absolutePath} ${what} ${digest}, not the expected ${expectedSha256} (nothing was run)`,
      expected: expectedSha256,
      received: digest,
    },
  ]);
}

function tooLarge(absolutePath: string, maxBytes: number, received: string): ContractError {
  return artifactInvalid(absolutePath, [
    {
      code: 'file_too_large',
      component: 'runnerd',
      message: `${absolutePath} is larger than ${maxBytes} bytes, the most an executable may have (nothing was copied or run)`,
      expected: `at most ${maxBytes} bytes`,
      received,
    },
  ]);
}

/** Every issue of a parsed `--build-metadata` object; [] means it is valid. */
export function runnerdBuildMetadataIssues(value: unknown): RunnerdArtifactIssue[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return [
      metadataInvalid(
        '',
        'the build metadata is not a JSON object',
        'a JSON object',
        describeJsonType(value),
      ),
    ];
  }
  const declared = (value as Record<string, unknown>).schema;
  if (declared !== RUNNERD_BUILD_METADATA_V1) {
    // An unknown schema is an issue, not a guess: nothing else is checked against rules it may not follow.
    return [
      metadataInvalid(
        '/schema',
        `the build metadata does not declare ${RUNNERD_BUILD_METADATA_V1}`,
        RUNNERD_BUILD_METADATA_V1,
        declared === undefined ? 'missing' : declared,
      ),
    ];
  }
  const schemaIssues = schemaIssuesOf(SCHEMA_IDS.runnerdBuildMetadataV1, value, () => 'metadata_invalid').map(
    (issue): RunnerdArtifactIssue => ({ ...issue, code: 'metadata_invalid', component: 'runnerd' }),
  );
  return [...schemaIssues, ...prpRangeIssues(value as Record<string, unknown>)];
}

export function isRunnerdBuildMetadata(value: unknown): value is RunnerdBuildMetadata {
  return runnerdBuildMetadataIssues(value).length === 0;
}

export function assertRunnerdBuildMetadata(value: unknown): asserts value is RunnerdBuildMetadata {
  const issues = runnerdBuildMetadataIssues(value);
  if (issues.length > 0) throw artifactInvalid(undefined, issues);
}

/** The build metadata, unchanged (unknown fields kept), or a ContractError with every metadata_invalid issue. */
export function parseRunnerdBuildMetadata(value: unknown): RunnerdBuildMetadata {
  assertRunnerdBuildMetadata(value);
  return value;
}

// --- form checks -----------------------------------------------------------------------------

function assertPositiveInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
  }
}

function pathFormIssues(executablePath: unknown): RunnerdArtifactIssue[] {
  if (typeof executablePath === 'string' && executablePath !== '' && !executablePath.includes('\0'))
    return [];
  return [
    pathInvalid(
      'executablePath must be a non-empty path without NUL characters',
      typeof executablePath === 'string' ? JSON.stringify(executablePath) : describeJsonType(executablePath),
    ),
  ];
}

function digestFormIssues(expectedSha256: unknown): RunnerdArtifactIssue[] {
  if (isSha256Digest(expectedSha256)) return [];
  const hint =
    typeof expectedSha256 === 'string' && isSha256Digest(expectedSha256.toLowerCase())
      ? ' (hex digits must be lowercase)'
      : '';
  return [
    {
      code: 'digest_invalid',
      component: 'runnerd',
      message: `the expected digest is not a sha256 digest${hint}`,
      expected: 'sha256: followed by 64 lowercase hex digits',
      received: typeof expectedSha256 === 'string' ? expectedSha256 : describeJsonType(expectedSha256),
    },
  ];
}

// --- opening the file --------------------------------------------------------------------------

const PATH_EXPECTED =
  'a regular file with an execute bit, at the explicit path given (symlinks are not followed)';

/** Opens the file for reading without following a final symlink; throws path_invalid. */
async function openExecutable(
  absolutePath: string,
  givenPath: string,
): Promise<{ handle: FileHandle; size: number }> {
  let info: Stats;
  try {
    info = await lstat(absolutePath);
  } catch (error) {
    throw pathError(absolutePath, fsFailure(absolutePath, givenPath, error), error);
  }
  if (info.isSymbolicLink()) throw pathError(absolutePath, await symlinkIssue(absolutePath));
  const kindIssue = fileKindIssue(absolutePath, info);
  if (kindIssue !== undefined) throw pathError(absolutePath, kindIssue);

  let handle: FileHandle;
  try {
    // O_NONBLOCK: a FIFO swapped in after lstat must not block the open (fstat refuses it below).
    handle = await open(absolutePath, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  } catch (error) {
    const issue =
      (error as NodeJS.ErrnoException).code === 'ELOOP'
        ? await symlinkIssue(absolutePath)
        : fsFailure(absolutePath, givenPath, error);
    throw pathError(absolutePath, issue, error);
  }
  try {
    const opened = await handle.stat();
    const openedIssue = fileKindIssue(absolutePath, opened);
    if (openedIssue !== undefined) throw pathError(absolutePath, openedIssue);
    return { handle, size: opened.size };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

function fileKindIssue(absolutePath: string, info: Stats): RunnerdArtifactIssue | undefined {
  if (info.isDirectory())
    return pathInvalid(`${absolutePath} is a directory, not an executable file`, 'a directory');
  if (!info.isFile()) {
    return pathInvalid(`${absolutePath} is not a regular file`, `a ${specialFileKind(info)}`);
  }
  if ((info.mode & 0o111) === 0) {
    const mode = (info.mode & 0o7777).toString(8).padStart(4, '0');
    return pathInvalid(
      `${absolutePath} is not executable (mode ${mode})`,
      `a regular file with mode ${mode}`,
    );
  }
  return undefined;
}

function specialFileKind(info: Stats): string {
  if (info.isFIFO()) return 'FIFO';
  if (info.isSocket()) return 'socket';
  if (info.isCharacterDevice()) return 'character device';
  if (info.isBlockDevice()) return 'block device';
  return 'special file';
}

async function symlinkIssue(absolutePath: string): Promise<RunnerdArtifactIssue> {
  const target = await readlink(absolutePath).catch(() => undefined);
  const pointsAt = target === undefined ? '' : ` to ${JSON.stringify(target)}`;
  return pathInvalid(
    `${absolutePath} is a symbolic link${pointsAt}; symbolic links are not followed: pass the path of the executable itself`,
    target === undefined ? 'a symbolic link' : `a symbolic link to ${target}`,
  );
}

function fsFailure(absolutePath: string, givenPath: string, error: unknown): RunnerdArtifactIssue {
  const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    const bare = !givenPath.includes('/')
      ? ` (${JSON.stringify(givenPath)} is a path relative to the working directory, not a PATH lookup)`
      : '';
    return pathInvalid(
      `${absolutePath} does not exist${bare}; only the explicit path given is used`,
      `no file (${code})`,
    );
  }
  return pathInvalid(`${absolutePath} cannot be opened (${code})`, code);
}

function pathInvalid(message: string, received: unknown): RunnerdArtifactIssue {
  return { code: 'path_invalid', component: 'runnerd', message, expected: PATH_EXPECTED, received };
}

function pathError(absolutePath: string, issue: RunnerdArtifactIssue, cause?: unknown): ContractError {
  return artifactInvalid(absolutePath, [issue], cause);
}

// --- hashing and staging ---------------------------------------------------------------------

interface ReadResult {
  readonly digest: Sha256Digest;
  readonly byteSize: number;
  /** The file's first bytes, for the format check. */
  readonly head: Buffer;
}

/** Enough of the file's start to read an ELF header's identification, type and machine. */
const EXECUTABLE_MAGIC_BYTES = 20;

/** ELF e_machine of the architectures Node runs on here. */
const ELF_MACHINE: Partial<Record<string, number>> = { x64: 62, arm64: 183, ia32: 3, arm: 40 };

/**
 * An ELF executable for this machine or a `#!` script: what execve runs. Anything else the kernel
 * refuses with ENOEXEC, and execvp would then hand it to /bin/sh; it is refused here instead. For
 * ELF the header must name a valid class, byte order and version, an executable or shared-object
 * type and this machine's architecture, so a text file that merely starts with "\x7fELF" is not
 * run. (A crafted ELF whose program headers the kernel still rejects would reach /bin/sh; its
 * digest was vouched for by the caller.)
 */
function isExecutableFormat(head: Buffer): boolean {
  if (head[0] === 0x23 && head[1] === 0x21) return true; // #!
  if (head.byteLength < EXECUTABLE_MAGIC_BYTES) return false;
  if (!(head[0] === 0x7f && head[1] === 0x45 && head[2] === 0x4c && head[3] === 0x46)) return false;
  const elfClass = head[4];
  const byteOrder = head[5];
  if ((elfClass !== 1 && elfClass !== 2) || (byteOrder !== 1 && byteOrder !== 2) || head[6] !== 1)
    return false;
  const type = byteOrder === 1 ? head.readUInt16LE(16) : head.readUInt16BE(16);
  const machine = byteOrder === 1 ? head.readUInt16LE(18) : head.readUInt16BE(18);
  return (type === 2 || type === 3) && machine === ELF_MACHINE[process.arch];
}

/**
 * Reads the open file once from its start into sha256 and, when `copyTo` is given, into a new file
 * there (mode 0700, created exclusively). Past `maxBytes` it stops with file_too_large (a file that
 * grows while it is read never writes more than that). Two buffers: the next chunk is read while
 * the previous one is written, so memory stays at two chunks whatever the file's size.
 */
async function readOpenFile(
  source: FileHandle,
  absolutePath: string,
  maxBytes: number,
  copyTo: string | undefined,
): Promise<ReadResult> {
  const hash = createHash('sha256');
  const buffers = [Buffer.allocUnsafe(COPY_CHUNK_BYTES), Buffer.allocUnsafe(COPY_CHUNK_BYTES)] as const;
  const target = copyTo === undefined ? undefined : await open(copyTo, 'wx', 0o700);
  let byteSize = 0;
  let head = Buffer.alloc(0);
  let pendingWrite: Promise<void> = Promise.resolve();
  try {
    for (let turn = 0; ; turn ^= 1) {
      const buffer = turn === 0 ? buffers[0] : buffers[1];
      let bytesRead: number;
      try {
        // One byte past the cap is asked for at most, to tell "exactly the cap" from "more".
        const want = Math.min(COPY_CHUNK_BYTES, maxBytes + 1 - byteSize);
        ({ bytesRead } = await source.read(buffer, 0, want, byteSize));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
        throw pathError(absolutePath, pathInvalid(`${absolutePath} cannot be read (${code})`, code), error);
      }
      if (bytesRead === 0) break;
      if (byteSize + bytesRead > maxBytes)
        throw tooLarge(absolutePath, maxBytes, `more than ${maxBytes} bytes (it grew while it was read)`);
      const chunk = buffer.subarray(0, bytesRead);
      if (head.byteLength < EXECUTABLE_MAGIC_BYTES) {
        head = Buffer.concat([head, chunk.subarray(0, EXECUTABLE_MAGIC_BYTES - head.byteLength)]);
      }
      hash.update(chunk);
      await pendingWrite; // the other buffer's write: it must finish before that buffer is read into
      if (target !== undefined) {
        pendingWrite = writeFully(target, chunk, byteSize);
        pendingWrite.catch(() => undefined); // handled where it is awaited; never an unhandled rejection
      }
      byteSize += bytesRead;
    }
    await pendingWrite;
  } finally {
    await pendingWrite.catch(() => undefined);
    // Closed before anything executes the copy: Linux refuses to exec a file open for writing.
    await target?.close();
  }
  return { digest: `sha256:${hash.digest('hex')}`, byteSize, head };
}

/** The digest of the staged copy itself, read back from the private directory. */
async function digestStaged(stagedPath: string, maxBytes: number, absolutePath: string): Promise<ReadResult> {
  const copy = await open(stagedPath, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
  try {
    return await readOpenFile(copy, absolutePath, maxBytes, undefined);
  } finally {
    await copy.close();
  }
}

async function writeFully(target: FileHandle, chunk: Buffer, position: number): Promise<void> {
  let written = 0;
  while (written < chunk.byteLength) {
    const { bytesWritten } = await target.write(
      chunk,
      written,
      chunk.byteLength - written,
      position + written,
    );
    written += bytesWritten;
  }
}

// --- running --build-metadata ----------------------------------------------------------------

type ProcessOutcome =
  | {
      readonly kind: 'exited';
      readonly code: number | null;
      readonly signal: NodeJS.Signals | null;
      readonly stdout: Buffer;
      readonly stderr: string;
    }
  | { readonly kind: 'timeout' | 'oversize'; readonly stderr: string }
  | { readonly kind: 'spawn_failed'; readonly error: NodeJS.ErrnoException; readonly detail?: string };

const NOT_EXECUTABLE_FORMAT: ProcessOutcome = {
  kind: 'spawn_failed',
  error: Object.assign(new Error('exec format error'), { code: 'ENOEXEC' }),
  detail: 'neither an ELF executable nor a #! script; not handed to a shell',
};

function runBuildMetadata(
  file: string,
  cwd: string,
  timeoutMs: number,
  maxStdoutBytes: number,
): Promise<ProcessOutcome> {
  return new Promise<ProcessOutcome>((resolveOutcome) => {
    const child = spawn(file, ['--build-metadata'], {
      shell: false,
      env: {},
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // setsid(): the child leads a new process group, killed as a whole
      cwd,
    });
    const releaseGroup = guardProcessGroup(child.pid); // a SIGINT or SIGTERM to us kills it too
    const stdoutChunks: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = Buffer.alloc(0);
    let stopped: 'timeout' | 'oversize' | undefined;
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;
    const deadline = setTimeout(() => {
      stop('timeout');
    }, timeoutMs);

    const finish = (outcome: ProcessOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearTimeout(graceTimer);
      releaseGroup(); // SIGKILLs the group: nothing it started outlives it
      resolveOutcome(outcome);
    };
    const stderrText = (): string => stderr.toString('utf8');
    const stop = (reason: 'timeout' | 'oversize'): void => {
      if (stopped !== undefined || settled) return;
      stopped = reason;
      killProcessGroup(child.pid);
      child.stdout.destroy();
      child.stderr.destroy();
      // SIGKILL is reaped at once, except for a process stuck in the kernel: do not wait on it forever.
      graceTimer = setTimeout(() => {
        finish({ kind: reason, stderr: stderrText() });
      }, KILL_GRACE_MS);
    };

    child.stdout.on('data', (chunk: Buffer) => {
      if (stopped !== undefined) return;
      stdoutBytes += chunk.byteLength;
      if (stdoutBytes > maxStdoutBytes) stop('oversize');
      else stdoutChunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.byteLength < MAX_STDERR_BYTES) {
        stderr = Buffer.concat([stderr, chunk.subarray(0, MAX_STDERR_BYTES - stderr.byteLength)]);
      }
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      finish({ kind: 'spawn_failed', error });
    });
    // The leader is gone: whatever it left in its group is killed now, so a straggler holding
    // stdout open cannot keep us waiting (data already in the pipe is still read).
    child.on('exit', () => {
      killProcessGroup(child.pid);
    });
    child.on('close', (code: number | null, signal: NodeJS.Signals | null) => {
      if (stopped !== undefined) finish({ kind: stopped, stderr: stderrText() });
      else
        finish({ kind: 'exited', code, signal, stdout: Buffer.concat(stdoutChunks), stderr: stderrText() });
    });
  });
}

// --- reading the output ----------------------------------------------------------------------

function buildMetadataFromOutcome(
  outcome: ProcessOutcome,
  absolutePath: string,
  timeoutMs: number,
  maxStdoutBytes: number,
): RunnerdBuildMetadata {
  const expected = `exit code 0 within ${timeoutMs} ms and exactly one JSON object (at most ${maxStdoutBytes} bytes) on stdout`;
  const unavailable = (detail: string, received: unknown, stderr = ''): ContractError => {
    const snippet = stderr.trim() === '' ? '' : `; stderr: ${stderr.trim()}`;
    return artifactInvalid(absolutePath, [
      {
        code: 'metadata_unavailable',
        component: 'runnerd',
        message: `${absolutePath} --build-metadata ${detail}${snippet}`,
        expected,
        received,
      },
    ]);
  };

  switch (outcome.kind) {
    case 'spawn_failed': {
      const code = outcome.error.code ?? outcome.error.message;
      const detail = outcome.detail === undefined ? '' : `: ${outcome.detail}`;
      throw unavailable(`could not be started (${code}${detail})`, `spawn error ${code}`);
    }
    case 'timeout':
      throw unavailable(
        `did not exit within ${timeoutMs} ms (process group killed)`,
        `no exit after ${timeoutMs} ms`,
        outcome.stderr,
      );
    case 'oversize':
      throw unavailable(
        `stdout passed ${maxStdoutBytes} bytes (process group killed)`,
        `more than ${maxStdoutBytes} bytes of stdout`,
        outcome.stderr,
      );
    case 'exited':
      break;
  }
  if (outcome.signal !== null) {
    throw unavailable(`was killed by ${outcome.signal}`, `signal ${outcome.signal}`, outcome.stderr);
  }
  if (outcome.code !== 0) {
    throw unavailable(
      `exited with code ${String(outcome.code)}`,
      `exit code ${String(outcome.code)}`,
      outcome.stderr,
    );
  }

  const text = readJsonText(outcome.stdout, { maxBytes: maxStdoutBytes });
  if (!text.ok) {
    const issues = text.issues.map((issue): RunnerdArtifactIssue => {
      const detail = outputProblem(issue, outcome.stdout);
      return {
        code: 'metadata_unavailable',
        component: 'runnerd',
        message: `${absolutePath} --build-metadata printed ${detail}`,
        ...(issue.path === undefined || issue.path === '' ? {} : { path: issue.path }),
        expected: 'exactly one JSON object (strict JSON: UTF-8, no duplicate keys)',
        received: issue.received,
      };
    });
    throw artifactInvalid(absolutePath, issues);
  }
  const issues = runnerdBuildMetadataIssues(text.value);
  if (issues.length > 0) throw artifactInvalid(absolutePath, issues);
  return text.value as RunnerdBuildMetadata;
}

/** What is wrong with the output, in words, for one issue of readJsonText. */
function outputProblem(issue: Issue, stdout: Buffer): string {
  switch (issue.code) {
    case 'json_empty':
      return 'nothing on stdout';
    case 'json_not_object':
      return `a JSON text that is not an object (${String(issue.received)})`;
    case 'json_syntax': {
      const trailing = trailingAfterFirstValue(stdout.toString('utf8'));
      if (trailing === 'json') return 'several JSON texts (exactly one object is expected)';
      if (trailing === 'other') return 'trailing content after the JSON object';
      return `not JSON: ${issue.message}`;
    }
    case 'json_truncated':
      return `not JSON: ${issue.message}`;
    default:
      return `not strict JSON: ${issue.message}`;
  }
}

const JSON_VALUE_START = /^[{["\-0-9tfn]/;

/**
 * When `text` starts with a complete JSON object or array followed by more non-whitespace:
 * 'json' if what follows starts like another JSON value, 'other' if not. Undefined otherwise.
 */
function trailingAfterFirstValue(text: string): 'json' | 'other' | undefined {
  const end = endOfFirstContainer(text);
  if (end === undefined) return undefined;
  try {
    JSON.parse(text.slice(0, end));
  } catch {
    return undefined;
  }
  const rest = text.slice(end).replace(/^[ \t\r\n]+/, '');
  if (rest === '') return undefined;
  return JSON_VALUE_START.test(rest) ? 'json' : 'other';
}

/** Index just past the object or array that opens `text` (brackets counted outside strings). */
function endOfFirstContainer(text: string): number | undefined {
  let index = text.search(/[^ \t\r\n]/);
  if (index === -1 || (text[index] !== '{' && text[index] !== '[')) return undefined;
  let depth = 0;
  for (; index < text.length; index++) {
    const char = text[index];
    if (char === '"') {
      for (index++; index < text.length && text[index] !== '"'; index++) if (text[index] === '\\') index++;
    } else if (char === '{' || char === '[') depth++;
    else if (char === '}' || char === ']') {
      depth--;
      if (depth === 0) return index + 1;
    }
  }
  return undefined;
}

// --- metadata checks -------------------------------------------------------------------------

function prpRangeIssues(value: Record<string, unknown>): RunnerdArtifactIssue[] {
  const prp = value.prp;
  if (typeof prp !== 'object' || prp === null) return [];
  const { minimumVersion, maximumVersion } = prp as Record<string, unknown>;
  if (!Number.isInteger(minimumVersion) || !Number.isInteger(maximumVersion)) return [];
  if ((minimumVersion as number) <= (maximumVersion as number)) return [];
  return [
    metadataInvalid(
      '/prp/minimumVersion',
      `/prp/minimumVersion ${String(minimumVersion)} is above /prp/maximumVersion ${String(maximumVersion)}`,
      `at most prp.maximumVersion (${String(maximumVersion)})`,
      minimumVersion,
    ),
  ];
}

function metadataInvalid(
  path: string,
  message: string,
  expected: unknown,
  received: unknown,
): RunnerdArtifactIssue {
  return { code: 'metadata_invalid', component: 'runnerd', message, path, expected, received };
}

function describeJsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

function artifactInvalid(
  executablePath: string | undefined,
  issues: readonly RunnerdArtifactIssue[],
  cause?: unknown,
): ContractError {
  const first = issues[0];
  const what =
    executablePath === undefined
      ? 'invalid runnerd build metadata'
      : `invalid runnerd artifact ${executablePath}`;
  const where = first?.path === undefined || first.path === '' ? '' : ` at ${first.path}`;
  const summary = first === undefined ? '' : `: ${first.code}${where}`;
  const more = issues.length > 1 ? ` (+${issues.length - 1} more)` : '';
  return new ContractError(
    'paperclip_runnerd_artifact_invalid',
    `${what}${summary}${more}`,
    issues,
    cause === undefined ? undefined : { cause },
  );
}
