// Reading a file named by an untrusted relative path under a root directory without ever leaving
// the root: the one implementation behind every artifact-reference check (ingest's
// --artifact-root, qualification's eval-session bundle). The path must be plain — segments
// separated by `/`, none empty, `.` or `..`, no NUL — and no component under the root may be a
// symbolic link (a link to a directory, to a file, to another link: each refused, wherever it
// points). The file is opened with O_NOFOLLOW and checked on the descriptor (a regular file), and
// after opening the descriptor itself must name the path (on Linux the kernel's /proc/self/fd/N:
// the file as the open resolved it, nothing left to race; elsewhere the path resolved again, still
// free of links and the very inode opened), so a directory swapped for a link between the checks
// and the open is refused too. The digest is
// taken over that descriptor: what is hashed is the file that was checked, and a file outside the
// root is never read, so its digest can never be reported. (A hard link inside the root to a file
// elsewhere is indistinguishable from the file itself, and is read as one.) The root itself is
// resolved with realpath: it is the operator's choice, links included. checkContainedReference is
// the one artifact-reference check on top of it (a bundle's reference — a path, a sha256 and a
// byte size — against the file under the root): each caller names the outcome in its own codes.
// The checks and a small file's read are synchronous system calls: ingest makes them for every
// reference of every bundle, and each costs a few µs where a trip through the thread pool costs
// ~100 µs; a file over 1 MiB is hashed in chunks through the thread pool.
import { createHash } from 'node:crypto';
import {
  closeSync,
  constants as fsConstants,
  fstatSync,
  lstatSync,
  openSync,
  read,
  readSync,
  readlinkSync,
  realpathSync,
  statSync,
} from 'node:fs';
import { readlink, realpath } from 'node:fs/promises';
import { join, relative, isAbsolute } from 'node:path';

import { fileKindOf, notRegularMessage } from './file-kind.js';

import type { Stats } from 'node:fs';

import type { Sha256Digest } from '@paperclip-evals/contract';

/**
 * Why a path under the root was not read: not a plain path under it, a symbolic link on the way,
 * not a regular file (a directory, FIFO, socket, device), or the file system refused it (EACCES,
 * ENAMETOOLONG, EIO, …: the errno is in the message).
 */
export const CONTAINED_FILE_REFUSALS = ['outside_root', 'symlink', 'not_a_file', 'unreadable'] as const;
export type ContainedFileRefusal = (typeof CONTAINED_FILE_REFUSALS)[number];

export type ContainedFile =
  /** Nothing at that path (or a component of it is not a directory). */
  | { readonly kind: 'absent'; readonly path: string }
  | {
      readonly kind: 'refused';
      readonly reason: ContainedFileRefusal;
      /** What was found, in words (never a digest or content of anything outside the root). */
      readonly message: string;
      readonly path: string;
    }
  | {
      readonly kind: 'file';
      readonly path: string;
      readonly digest: Sha256Digest;
      readonly byteSize: number;
    };

const CHUNK_BYTES = 1024 * 1024;

/**
 * Digests the file at `relativePath` under `root`, or says why it was not read. Rejects only when
 * the root itself cannot be resolved; a file the file system will not let us read (EACCES,
 * ENAMETOOLONG, EIO, …) is refused as unreadable, naming its errno.
 */
export async function digestContainedFile(root: string, relativePath: string): Promise<ContainedFile> {
  const opened = await openContained(root, relativePath);
  if (opened.kind !== 'open') return opened;
  const { fd, path, info } = opened;
  try {
    let digested;
    try {
      digested = await digestDescriptor(fd, info.size, Number.POSITIVE_INFINITY);
    } catch (error) {
      return unreadable(error, path, path);
    }
    if (digested.digest === null) throw new Error('unreachable: no limit'); // a file has no more than Infinity bytes
    return { kind: 'file', path, digest: digested.digest, byteSize: digested.byteSize };
  } finally {
    closeSync(fd);
  }
}

/**
 * The file at `relativePath` under `root`, open and checked (a regular file, reached through no
 * link, the very one at the path), or why it is not: the one way in for both readers below.
 */
async function openContained(
  root: string,
  relativePath: string,
): Promise<
  | Extract<ContainedFile, { readonly kind: 'absent' | 'refused' }>
  | { readonly kind: 'open'; readonly fd: number; readonly path: string; readonly info: Stats }
> {
  const base = realpathSync.native(root);
  const segments = relativePath.split('/');
  const display = join(base, relativePath);
  if (
    relativePath.includes('\0') ||
    segments.some((segment) => segment === '' || segment === '.' || segment === '..')
  ) {
    return refused(
      'outside_root',
      `${JSON.stringify(relativePath)} is not a plain path under the root (no empty, "." or ".." segments)`,
      display,
    );
  }
  const path = join(base, ...segments);

  // Every component, from the root down: the first link found is named in the refusal.
  for (let depth = 1; depth <= segments.length; depth++) {
    const prefix = join(base, ...segments.slice(0, depth));
    let info;
    try {
      info = lstatSync(prefix);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'absent', path };
      return unreadable(error, prefix, path);
    }
    if (info.isSymbolicLink()) return refused('symlink', await linkDescription(base, prefix), path);
    if (depth < segments.length && !info.isDirectory()) return { kind: 'absent', path };
  }

  let fd: number;
  try {
    // O_NONBLOCK: a FIFO must not block the open (it is refused below as not a regular file).
    fd = openSync(path, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return refused('symlink', await linkDescription(base, path), path);
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'absent', path };
    return unreadable(error, path, path);
  }
  let kept = false;
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return refused('not_a_file', notRegularMessage(path, fileKindOf(info)), path);
    // The components may have been swapped for links between the checks and the open: the file
    // that is open must be the one at `path`, reached through no link.
    if (!opensAt(fd, path, info))
      return refused(
        'symlink',
        `${path} changed while it was being opened (a component became a link)`,
        path,
      );
    kept = true;
    return { kind: 'open', fd, path, info };
  } finally {
    if (!kept) closeSync(fd);
  }
}

/** What a bundle states of a referenced file. */
export interface ExpectedFile {
  readonly sha256: string;
  readonly byteSize: number;
}

/** How a reference compares with the file under the root. */
export type ReferenceCheck =
  | Extract<ContainedFile, { readonly kind: 'absent' | 'refused' }>
  | {
      readonly kind: 'verified';
      readonly path: string;
      readonly digest: Sha256Digest;
      readonly byteSize: number;
      /** Empty. */
      readonly mismatches: readonly ('sha256' | 'byteSize')[];
    }
  | {
      readonly kind: 'mismatched';
      readonly path: string;
      /**
       * The file's digest, or null when it was not read: it is larger than the reference states
       * (by its size on the open descriptor, or it grew past that while it was read — reading
       * stopped a byte past the stated size).
       */
      readonly digest: Sha256Digest | null;
      /** Its size: on the descriptor when not read, else the bytes read (stated size + 1 when it grew past it). */
      readonly byteSize: number;
      /** What differs from the reference, sha256 first (never sha256 when the digest is null). */
      readonly mismatches: readonly ('sha256' | 'byteSize')[];
    };

/**
 * The file at `relativePath` under `root` against what a reference states: verified (digest and
 * size both match), mismatched (naming what differs), absent, or refused without reading it. The
 * size comes first: a file larger than the reference states is mismatched on byteSize by its size
 * on the open descriptor, never read or hashed (an artifact of many GB costs one fstat), and a
 * file is never read past a byte more than the stated size, however it grows meanwhile.
 */
export async function checkContainedReference(
  root: string,
  relativePath: string,
  expected: ExpectedFile,
): Promise<ReferenceCheck> {
  const opened = await openContained(root, relativePath);
  if (opened.kind !== 'open') return opened;
  const { fd, path, info } = opened;
  try {
    const oversized = (byteSize: number): ReferenceCheck => ({
      kind: 'mismatched',
      path,
      digest: null,
      byteSize,
      mismatches: ['byteSize'],
    });
    if (!(info.size <= expected.byteSize)) return oversized(info.size);
    let digested;
    try {
      digested = await digestDescriptor(fd, info.size, expected.byteSize);
    } catch (error) {
      return unreadable(error, path, path);
    }
    if (digested.digest === null) return oversized(digested.byteSize);
    const mismatches = [
      ...(digested.digest === expected.sha256 ? [] : (['sha256'] as const)),
      ...(digested.byteSize === expected.byteSize ? [] : (['byteSize'] as const)),
    ];
    return mismatches.length === 0
      ? { kind: 'verified', path, digest: digested.digest, byteSize: digested.byteSize, mismatches: [] }
      : { kind: 'mismatched', path, digest: digested.digest, byteSize: digested.byteSize, mismatches };
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether the open file is the one at `path` now, reached through no link. On Linux the kernel
 * names the file a descriptor holds (/proc/self/fd/N, links resolved as the open resolved them): it
 * must be `path` itself, with nothing in between to race. Without /proc, the path is resolved again
 * and must still be `path` and name the same inode (a swap back and forth between the two calls can
 * slip through there).
 */
function opensAt(fd: number, path: string, opened: Stats): boolean {
  let held: string | undefined;
  try {
    held = readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    held = undefined;
  }
  if (held !== undefined) return held === path;
  try {
    const now = realpathSync.native(path);
    const named = statSync(now);
    return now === path && named.ino === opened.ino && named.dev === opened.dev;
  } catch {
    return false;
  }
}

type Refused = Extract<ContainedFile, { readonly kind: 'refused' }>;

function refused(reason: ContainedFileRefusal, message: string, path: string): Refused {
  return { kind: 'refused', reason, message, path };
}

/** A file system error on the way to (or reading) `path` as an unreadable refusal naming its errno. */
function unreadable(error: unknown, at: string, path: string): Refused {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === undefined) throw error;
  return refused('unreadable', `${at} cannot be read (${code}): the file system refused it`, path);
}

/** "<link> is a symbolic link (to <target>, which leads outside the root)": where it points, no more. */
async function linkDescription(base: string, link: string): Promise<string> {
  const target = await readlink(link).catch(() => undefined);
  const resolved = await realpath(link).catch(() => undefined);
  const inside = resolved !== undefined && isInside(base, resolved);
  const where =
    resolved === undefined
      ? 'which resolves to nothing'
      : inside
        ? 'inside the root'
        : 'which leads outside the root';
  return `${link} is a symbolic link${target === undefined ? '' : ` to ${JSON.stringify(target)}`} (${where}); links under the root are never followed`;
}

function isInside(base: string, path: string): boolean {
  const rest = relative(base, path);
  return rest !== '..' && !rest.startsWith('../') && !isAbsolute(rest);
}

/**
 * The sha256 and size of the open file, read from its start, never past `limit` + 1 bytes: a file
 * that has more (it grew after its size was compared) is not hashed to its end — its digest is
 * null and its byteSize the `limit` + 1 bytes read. A file of at most one chunk (a bundle, most
 * artifacts) is one synchronous read; a larger one is read in chunks through the thread pool, so
 * hashing a 100 MB transcript does not hold the event loop.
 */
async function digestDescriptor(
  fd: number,
  size: number,
  limit: number,
): Promise<{ digest: Sha256Digest | null; byteSize: number }> {
  const hash = createHash('sha256');
  const wanted = Math.min(size, limit);
  const buffer = Buffer.allocUnsafe(wanted < CHUNK_BYTES ? wanted + 1 : CHUNK_BYTES);
  let byteSize = 0;
  for (;;) {
    const length = Math.min(buffer.byteLength, limit + 1 - byteSize);
    const bytesRead =
      wanted < CHUNK_BYTES && byteSize === 0
        ? readSync(fd, buffer, 0, length, 0)
        : await readChunk(fd, buffer, length, byteSize);
    if (bytesRead === 0) break;
    byteSize += bytesRead;
    if (byteSize > limit) return { digest: null, byteSize };
    hash.update(buffer.subarray(0, bytesRead));
  }
  return { digest: `sha256:${hash.digest('hex')}`, byteSize };
}

function readChunk(fd: number, buffer: Buffer, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => {
    read(fd, buffer, 0, length, position, (error, bytesRead) => {
      if (error === null) resolve(bytesRead);
      else reject(error);
    });
  });
}
