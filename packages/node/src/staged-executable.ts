// Staging a verified executable: an explicit path and an expected sha256 in, a private copy of
// exactly the bytes that were hashed out — the one implementation behind every "explicit path +
// sha256" executable Evals runs (runnerd, the policy producer, qualification's eval-session run).
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
//   digest_mismatch. Only that copy may be executed, so replacing or rewriting the file at
//   `executablePath` changes nothing. The directory is removed by dispose() and on every failure,
//   and is registered with child-cleanup.ts so a SIGINT or SIGTERM removes it too.
// - `runnable` says whether the copy is an ELF executable for this machine or a `#!` script:
//   anything else the kernel would refuse (ENOEXEC), and libuv would then hand it to /bin/sh, so a
//   caller must not run it.
// Every refusal is ContractError('paperclip_runnerd_artifact_invalid') (contract's runnerd-metadata).
import { createHash } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { chmod, lstat, mkdtemp, open, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, isAbsolute, join } from 'node:path';

import {
  describeJsonType,
  digestsEqual,
  isSha256Digest,
  runnerdArtifactInvalid,
} from '@paperclip-evals/contract';

import { guardPrivatePath } from './child-cleanup.js';
import { FILE_KIND_PHRASE, fileKindOf, notRegularMessage } from './file-kind.js';

import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

import type { ContractError, RunnerdArtifactIssue, Sha256Digest } from '@paperclip-evals/contract';

/**
 * The largest executable staged (512 MiB; a Node single-executable runnerd is about 120 MiB): a
 * larger one is refused with file_too_large before a byte of it is copied.
 */
export const DEFAULT_MAX_EXECUTABLE_BYTES = 512 * 1024 * 1024;

const COPY_CHUNK_BYTES = 1024 * 1024;

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
  if (formIssues.length > 0) throw runnerdArtifactInvalid(executablePath, formIssues);

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
  return runnerdArtifactInvalid(absolutePath, [
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
  return runnerdArtifactInvalid(absolutePath, [
    {
      code: 'file_too_large',
      component: 'runnerd',
      message: `${absolutePath} is larger than ${maxBytes} bytes, the most an executable may have (nothing was copied or run)`,
      expected: `at most ${maxBytes} bytes`,
      received,
    },
  ]);
}

// --- form checks -----------------------------------------------------------------------------

export function assertPositiveInteger(name: string, value: number): void {
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
    return pathInvalid(notRegularMessage(absolutePath, fileKindOf(info)), FILE_KIND_PHRASE[fileKindOf(info)]);
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
  return runnerdArtifactInvalid(absolutePath, [issue], cause);
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
