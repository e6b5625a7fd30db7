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
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile()) return refused('not_a_file', notRegularMessage(path, fileKindOf(opened)), path);
    // The components may have been swapped for links between the checks and the open: the file
    // that is open must be the one at `path`, reached through no link.
    if (!opensAt(fd, path, opened))
      return refused(
        'symlink',
        `${path} changed while it was being opened (a component became a link)`,
        path,
      );
    let digested;
    try {
      digested = await digestDescriptor(fd, opened.size);
    } catch (error) {
      return unreadable(error, path, path);
    }
    return { kind: 'file', path, digest: digested.digest, byteSize: digested.byteSize };
  } finally {
    closeSync(fd);
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
      readonly kind: 'verified' | 'mismatched';
      readonly path: string;
      readonly digest: Sha256Digest;
      readonly byteSize: number;
      /** What differs from the reference, sha256 first; empty when verified. */
      readonly mismatches: readonly ('sha256' | 'byteSize')[];
    };

/**
 * The file at `relativePath` under `root` against what a reference states: verified (digest and
 * size both match), mismatched (naming what differs), absent, or refused without reading it.
 */
export async function checkContainedReference(
  root: string,
  relativePath: string,
  expected: ExpectedFile,
): Promise<ReferenceCheck> {
  const found = await digestContainedFile(root, relativePath);
  if (found.kind !== 'file') return found;
  const mismatches = [
    ...(found.digest === expected.sha256 ? [] : (['sha256'] as const)),
    ...(found.byteSize === expected.byteSize ? [] : (['byteSize'] as const)),
  ];
  return { ...found, kind: mismatches.length === 0 ? 'verified' : 'mismatched', mismatches };
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

function refused(reason: ContainedFileRefusal, message: string, path: string): ContainedFile {
  return { kind: 'refused', reason, message, path };
}

/** A file system error on the way to (or reading) `path` as an unreadable refusal naming its errno. */
function unreadable(error: unknown, at: string, path: string): ContainedFile {
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
 * The sha256 and size of the open file, read from its start. A file of at most one chunk (a bundle,
 * most artifacts) is one synchronous read; a larger one is read in chunks through the thread pool,
 * so hashing a 100 MB transcript does not hold the event loop.
 */
async function digestDescriptor(
  fd: number,
  size: number,
): Promise<{ digest: Sha256Digest; byteSize: number }> {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(size < CHUNK_BYTES ? size + 1 : CHUNK_BYTES);
  let byteSize = 0;
  for (;;) {
    const bytesRead =
      size < CHUNK_BYTES && byteSize === 0
        ? readSync(fd, buffer, 0, buffer.byteLength, 0)
        : await readChunk(fd, buffer, byteSize);
    if (bytesRead === 0) break;
    hash.update(buffer.subarray(0, bytesRead));
    byteSize += bytesRead;
  }
  return { digest: `sha256:${hash.digest('hex')}`, byteSize };
}

function readChunk(fd: number, buffer: Buffer, position: number): Promise<number> {
  return new Promise((resolve, reject) => {
    read(fd, buffer, 0, buffer.byteLength, position, (error, bytesRead) => {
      if (error === null) resolve(bytesRead);
      else reject(error);
    });
  });
}
