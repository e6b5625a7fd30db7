// The one way Evals writes a file a user named (report --out, qualify --out, init, a new SQLite
// store): what the path names decides how, and nothing that is there is ever replaced by something
// of another type.
//   - a missing path (in a folder that exists): a temporary file beside it, filled, flushed, then
//     hard-linked into place (never over something that appeared meanwhile) — a reader sees nothing
//     or the whole file;
//   - a regular file: the same, renamed over it (its permission bits kept); through a symlink, the
//     file the link names is replaced and the link stays;
//   - a SQLite database (its first 16 bytes are `SQLite format 3\0`, or a -wal, -shm or -journal
//     file beside it): refused, left as it is (output_is_a_database) — an Evalbook ledger is never
//     replaced by a report or a record, whatever the command; only a store opener (inPlace: false)
//     takes one, to open it;
//   - a character device or a FIFO (/dev/null, a terminal, `mkfifo` pipes): written in place (opened
//     for writing, no truncation, no rename); a FIFO waits for its reader, as `cat > fifo` does;
//   - `-` (the usual spelling), /dev/stdout, /dev/stderr, /dev/fd/1|2, /proc/self/fd/1|2: this
//     process's own stdout or stderr;
//   - for a stream (device, FIFO, stdio) the output is first spooled into a private temporary file
//     and copied out only once it is complete: a command that fails midway writes nothing there, so
//     a pipe's reader never sees half a report;
//   - an empty path: refused as empty (it would otherwise resolve to the working directory);
//   - a directory, a socket, a block device, a dangling symlink: refused, left as it is;
//   - a missing folder: refused, naming the user's path and the folder (never a temporary name).
//   - a full disk (ENOSPC), a used-up quota (EDQUOT), a read-only file system (EROFS) or a file too
//     large for it (EFBIG) at any step — create, write, flush, close, rename — says which path, the
//     file system holding it and what to do ("free space on the file system holding …"), and leaves
//     nothing half-written: the temporary file is removed and the target is as it was (fullDiskError,
//     also the site's folder writer's wording).
// Every refusal is a ContractError `paperclip_output_unwritable` with one issue (the CLI: exit 2).
import { randomBytes } from 'node:crypto';
import { closeSync, constants as fsConstants, createReadStream, openSync, readSync } from 'node:fs';
import { chmod, link, lstat, mkdtemp, open, realpath, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';

import { ContractError } from '@paperclip-evals/contract';

import { fileSystemWhat, isFileSystemError } from './bundle-inputs.js';
import { SQLITE_COMPANION_SUFFIXES } from './output-apart.js';

import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

import type { Issue } from '@paperclip-evals/contract';

/** Why a path cannot be written; each is one issue of a `paperclip_output_unwritable` error. */
export type OutputIssueCode =
  | 'output_path_empty'
  | 'output_is_directory'
  | 'output_is_socket'
  | 'output_is_block_device'
  | 'output_is_not_a_file'
  | 'output_is_stream'
  | 'output_exists'
  | 'output_is_a_database'
  | 'output_dangling_symlink'
  | 'output_folder_missing'
  | 'output_folder_not_a_folder'
  | 'output_changed'
  | 'output_write_failed';

/** What a path names, as far as writing it goes. */
export type OutputTarget =
  /** Nothing yet, in a folder that exists: created atomically. */
  | { readonly kind: 'new'; readonly path: string }
  /** A regular file (`path` is the file itself when the user's path is a symlink): replaced atomically. */
  | { readonly kind: 'file'; readonly path: string; readonly mode: number }
  /** A character device or FIFO: written in place. */
  | { readonly kind: 'stream'; readonly path: string; readonly type: 'character device' | 'FIFO' }
  /** This process's own stdout or stderr. */
  | { readonly kind: 'stdio'; readonly fd: 1 | 2 };

export interface OutputTargetOptions {
  /**
   * Whether a character device, FIFO or stdio name may be written in place (default true). false:
   * the caller opens the target as a database (a SQLite store), which needs a regular file — a
   * stream is refused — and an existing database there is what it opens, not refused; every other
   * caller replaces what is there, so for it an existing SQLite database is refused.
   */
  readonly inPlace?: boolean;
  /** Whether the caller creates missing folders itself (default false: a missing folder is refused). */
  readonly createsFolders?: boolean;
  /** Whether an existing regular file may be replaced (default true; `evals init` never overwrites). */
  readonly overwrite?: boolean;
}

const EXPECTED =
  'a regular file that is not a SQLite database, a new file in an existing folder, - or /dev/stdout, a character device (/dev/null) or a FIFO';
/** What a target that is never overwritten (`evals init`) may be. */
const EXPECTED_NEW =
  'a new file in an existing folder, - or /dev/stdout, a character device (/dev/null) or a FIFO (an existing file is never replaced)';
/** What a target that must be a regular file (a database) may be. */
const EXPECTED_FILE = 'a regular file, or a new file in an existing folder';

/** What a target may be, for a caller: a store opener (inPlace false), `evals init` (overwrite false), any other. */
function expectedFor(options: OutputTargetOptions): string {
  if (options.inPlace === false) return EXPECTED_FILE;
  return options.overwrite === false ? EXPECTED_NEW : EXPECTED;
}

/** The first 16 bytes of every SQLite database file: its header string, NUL-terminated. */
export const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * What shows that the regular file at `path` (as the user named it; `file`: the file itself, its
 * symlinks followed) is a SQLite database, which replacing would destroy: its header, or a file
 * SQLite keeps beside a database (-wal, -shm, -journal, beside either name) — or undefined when
 * nothing does. Throws the coded error when its first bytes cannot be read (fail closed: a file
 * Evals cannot look at is not replaced).
 */
async function databaseEvidence(
  path: string,
  file: string,
): Promise<{ readonly message: string; readonly received: string } | undefined> {
  const head = Buffer.alloc(SQLITE_HEADER.length);
  let read: number;
  // 16 bytes, read synchronously: a read that opens nothing for writing (a full or read-only disk
  // fails none of it). O_NONBLOCK: a FIFO swapped in since the stat never blocks the open.
  try {
    const fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
    try {
      read = readSync(fd, head, 0, head.length, 0);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (!isFileSystemError(error)) throw error;
    throw writeFailed(
      path,
      error,
      `; Evals reads the first ${SQLITE_HEADER.length} bytes of a file before it replaces it (a SQLite database is never replaced), so the file must be readable — or remove it first`,
    );
  }
  const advice = (remove: string): string =>
    `replacing it would destroy it, so nothing was written: name another file (to replace it, remove ${remove} first)`;
  if (read === head.length && head.equals(SQLITE_HEADER))
    return {
      message: `it is a SQLite database (its first bytes are the SQLite header "SQLite format 3"), perhaps an Evalbook ledger; ${advice('it')}`,
      received: 'a SQLite database (the 16-byte SQLite header)',
    };
  for (const name of new Set([resolve(path), file]))
    for (const suffix of SQLITE_COMPANION_SUFFIXES) {
      const companion = `${name}${suffix}`;
      if ((await lstat(companion).catch(() => undefined)) === undefined) continue;
      return {
        message: `${companion} is beside it, a file SQLite keeps beside a database, so it is (or was being) a SQLite database; ${advice(`it and ${companion}`)}`,
        received: `a file with ${basename(companion)} beside it`,
      };
    }
  return undefined;
}

/** Refuses (output_is_a_database) the regular file at `path` when it is a SQLite database; writes nothing. */
async function refuseDatabase(path: string, file: string, expected: string): Promise<void> {
  const evidence = await databaseEvidence(path, file);
  if (evidence !== undefined)
    throw refusal(path, 'output_is_a_database', evidence.message, evidence.received, expected);
}

/** What a user writes for stdout, as every Unix tool reads it. */
export const STDOUT_PATH = '-';

/** Paths that name this process's stdout or stderr whatever they point to (Linux and macOS spellings). */
const STDIO_PATHS: ReadonlyMap<string, 1 | 2> = new Map([
  ['/dev/stdout', 1],
  ['/dev/stderr', 2],
  ['/dev/fd/1', 1],
  ['/dev/fd/2', 2],
  ['/proc/self/fd/1', 1],
  ['/proc/self/fd/2', 2],
]);

function refusal(
  path: string,
  code: OutputIssueCode,
  message: string,
  received: string,
  expected: string = EXPECTED,
): ContractError {
  const issue: Issue = { code, component: path, message, expected, received };
  const shown = path === '' ? '""' : path;
  return new ContractError('paperclip_output_unwritable', `cannot write ${shown}: ${message}`, [issue]);
}

/**
 * The errno codes of a file system that takes no more: full (ENOSPC), over the user's quota
 * (EDQUOT), read-only (EROFS), or the file larger than it or the process's file-size limit allows
 * (EFBIG). A write that fails with one is refused with what to do, and leaves nothing half-written.
 */
export const FULL_DISK_CODES = ['ENOSPC', 'EDQUOT', 'EROFS', 'EFBIG'] as const;
export type FullDiskCode = (typeof FULL_DISK_CODES)[number];

const isFullDisk = (code: string | undefined): code is FullDiskCode =>
  (FULL_DISK_CODES as readonly (string | undefined)[]).includes(code);

/**
 * What to do about a file system that takes no more, where `holding` is a path on it (the folder
 * written in); undefined: a device or stream (stdout, /dev/full), named by `path`.
 */
function fullDiskAdvice(code: FullDiskCode, path: string, holding: string | undefined): string {
  if (holding === undefined) return deviceFullAdvice(code, path);
  const where = `the file system holding ${holding}`;
  switch (code) {
    case 'ENOSPC':
      return `${where} is full: free space on ${where} (or name a path on another file system) and run again`;
    case 'EDQUOT':
      return `your disk quota on ${where} is used up: free space on ${where} within your quota (or name a path on another file system) and run again`;
    case 'EROFS':
      return `${where} is read-only: name a path on a writable file system (or remount it read-write) and run again`;
    case 'EFBIG':
      return `the file is larger than ${where} or the process's file-size limit (ulimit -f) allows: free space on ${where}, name a path on a file system that takes larger files, or raise the limit, and run again`;
  }
}

/** The same for a device or stream (stdout, /dev/full): it is what is full, not a folder's file system. */
function deviceFullAdvice(code: FullDiskCode, path: string): string {
  switch (code) {
    case 'ENOSPC':
      return `${path} is full (it takes no more bytes): write to a file on a file system with free space instead (or free space where ${path} writes) and run again`;
    case 'EDQUOT':
      return `your disk quota where ${path} writes is used up: free space within your quota (or write to a file on another file system) and run again`;
    case 'EROFS':
      return `${path} writes to a read-only file system: write to a file on a writable one and run again`;
    case 'EFBIG':
      return `the output is larger than ${path} or the process's file-size limit (ulimit -f) allows: write to a file on a file system that takes larger files, or raise the limit, and run again`;
  }
}

/**
 * What to add when making a file or folder in `folder` (which exists) failed: ENOENT there is not a
 * missing folder but a file system that makes no new entries (/proc, /sys); other errors say
 * themselves (permission denied, read-only).
 */
function createRefusedHint(folder: string, error: NodeJS.ErrnoException): string {
  return error.code === 'ENOENT'
    ? `: ${folder} is there, but its file system refused to create anything in it (a virtual one such as /proc or /sys does); name a path on a writable file system`
    : '';
}

/**
 * A write into `holding` (a folder; undefined: a device or stream) that failed because the file
 * system takes no more (FULL_DISK_CODES) as the coded error that says which path and what to do —
 * `left` says what was left behind (nothing half-written) — or undefined for any other error.
 * The one wording of a full disk: the atomic writer's and the site's folder writer's.
 */
export function fullDiskError(
  path: string,
  error: unknown,
  holding: string | undefined,
  left: string,
): ContractError | undefined {
  if (!isFileSystemError(error) || !isFullDisk(error.code)) return undefined;
  return writeFailed(path, error, `: ${fullDiskAdvice(error.code, path, holding)}; ${left}`);
}

/** What the atomic writer leaves when a write fails. */
const LEFT_AS_IT_WAS = (path: string): string =>
  `nothing was written to ${path} (the temporary file was removed, ${path} is as it was)`;

/** A failed system call on the user's behalf, named by the user's path (never a temporary file's). */
function writeFailed(path: string, error: NodeJS.ErrnoException, hint = ''): ContractError {
  const what = fileSystemWhat(error);
  const received = error.code ?? error.syscall;
  const issue: Issue = {
    code: 'output_write_failed',
    component: path,
    message: `${what} (${received})${hint}`,
    expected: 'a path Evals can write',
    received,
  };
  return new ContractError('paperclip_output_unwritable', `cannot write ${path}: ${issue.message}`, [issue], {
    cause: error,
  });
}

/**
 * A failed write to this process's stdout or stderr (a full disk, an I/O error), as writing `--out`
 * there fails: `paperclip_output_unwritable`, issue output_write_failed, at `stdout` / `stderr`.
 */
export function stdioWriteFailed(stream: 'stdout' | 'stderr', error: NodeJS.ErrnoException): ContractError {
  return writeFailed(stream, error, ` while writing ${stream}; free space or redirect it elsewhere`);
}

/**
 * Runs one file-system step of writing `path`; its failure becomes the coded error naming `path`.
 * `holding`: the folder written in (the target's, or the spool's); a full disk there says so and
 * what to do (fullDiskError), whatever step met it.
 */
async function step<T>(path: string, run: () => Promise<T>, hint?: string, holding?: string): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!isFileSystemError(error)) throw error;
    throw fullDiskError(path, error, holding, LEFT_AS_IT_WAS(path)) ?? writeFailed(path, error, hint);
  }
}

/** What a node that exists is, when it is not something Evals writes. */
function refusedNode(path: string, stats: Stats, expected: string): ContractError | undefined {
  if (stats.isDirectory())
    return refusal(
      path,
      'output_is_directory',
      'it is a directory; name a file inside it instead',
      'a directory',
      expected,
    );
  if (stats.isSocket())
    return refusal(
      path,
      'output_is_socket',
      'it is a socket, which Evals does not connect to; write to stdout and pipe that into the socket instead',
      'a socket',
      expected,
    );
  if (stats.isBlockDevice())
    return refusal(
      path,
      'output_is_block_device',
      'it is a block device (a disk or partition), which writing would overwrite; name a file instead',
      'a block device',
      expected,
    );
  if (!stats.isFile() && !stats.isCharacterDevice() && !stats.isFIFO())
    return refusal(
      path,
      'output_is_not_a_file',
      'it is not a file, a device or a FIFO',
      'another kind of node',
      expected,
    );
  return undefined;
}

/**
 * Says how `path` would be written, or throws the refusal (writing nothing). Commands call it before
 * long work so that a bad `--out` fails at once.
 */
export async function outputTarget(path: string, options: OutputTargetOptions = {}): Promise<OutputTarget> {
  const inPlace = options.inPlace ?? true;
  const expected = expectedFor(options);
  if (path === '')
    throw refusal(
      path,
      'output_path_empty',
      `the path is empty; name a file${inPlace ? ', or - for stdout' : ''}`,
      'an empty path',
      expected,
    );
  if (path === STDOUT_PATH) {
    if (inPlace) return { kind: 'stdio', fd: 1 };
    throw refusal(
      path,
      'output_is_stream',
      '- means stdout, and this needs a regular file (name a file instead)',
      'stdout (-)',
      expected,
    );
  }
  const absolute = resolve(path);
  const stdio = STDIO_PATHS.get(absolute);
  if (stdio !== undefined && inPlace) return { kind: 'stdio', fd: stdio };
  let stats: Stats;
  try {
    stats = await stat(absolute);
  } catch (error) {
    if (isFileSystemError(error) && (error.code === 'ENOENT' || error.code === 'ENOTDIR'))
      return newTarget(path, absolute, options.createsFolders ?? false, expected);
    throw isFileSystemError(error) ? writeFailed(path, error) : error;
  }
  const refused = refusedNode(path, stats, expected);
  if (refused !== undefined) throw refused;
  if (stats.isCharacterDevice() || stats.isFIFO()) {
    const type = stats.isFIFO() ? 'FIFO' : 'character device';
    if (!inPlace)
      throw refusal(
        path,
        'output_is_stream',
        `it is a ${type}, and this needs a regular file (name a file instead)`,
        `a ${type}`,
        expected,
      );
    return { kind: 'stream', path: absolute, type };
  }
  const file = await step(path, () => realpath(absolute));
  // A database first, whoever writes: `evals init` at a ledger says what is there, as every command does.
  if (inPlace) await refuseDatabase(path, file, expected);
  if (options.overwrite === false)
    throw refusal(
      path,
      'output_exists',
      'it already exists and is not overwritten; name another file (or remove this one first)',
      'a file that exists',
      expected,
    );
  return { kind: 'file', path: file, mode: stats.mode & 0o7777 };
}

const isMissing = (error: unknown): boolean =>
  isFileSystemError(error) && (error.code === 'ENOENT' || error.code === 'ENOTDIR');

/** A path that does not resolve: a dangling symlink, a missing folder, or a new file. */
async function newTarget(
  path: string,
  absolute: string,
  createsFolders: boolean,
  expected: string,
): Promise<OutputTarget> {
  const node = await lstat(absolute).catch(() => undefined);
  if (node?.isSymbolicLink() === true)
    throw refusal(
      path,
      'output_dangling_symlink',
      'it is a symlink to nothing; remove the link or create the file it names',
      'a dangling symlink',
      expected,
    );
  if (createsFolders) return { kind: 'new', path: absolute };
  const folder = dirname(path);
  let parent: Stats;
  try {
    parent = await stat(dirname(absolute));
  } catch (error) {
    if (!isMissing(error)) throw isFileSystemError(error) ? writeFailed(path, error) : error;
    throw refusal(
      path,
      'output_folder_missing',
      `the folder ${folder} does not exist; create it (mkdir -p ${folder}) or name a file in an existing folder`,
      'a missing folder',
      expected,
    );
  }
  if (!parent.isDirectory())
    throw refusal(
      path,
      'output_folder_not_a_folder',
      `${folder} is not a folder`,
      'a path through a file',
      expected,
    );
  return { kind: 'new', path: absolute };
}

/** Writes one chunk; a failure (a FIFO's reader gone, a full disk) names the user's path. */
type Write = (chunk: string) => Promise<void>;

/**
 * Calls `fill` with a writer into `path`, as `outputTarget` says: atomically for a file, in place for
 * a device or FIFO, into the stream for stdout/stderr. What `fill` throws itself passes through.
 */
export async function writeOutputFile(
  path: string,
  fill: (write: Write) => Promise<void>,
  options: Pick<OutputTargetOptions, 'overwrite'> = {},
): Promise<void> {
  const target = await outputTarget(path, options);
  if (target.kind === 'stdio')
    return spooled(path, fill, async (spool) => {
      if (spool !== null)
        await step(path, () =>
          pipeline(createReadStream(spool), target.fd === 1 ? process.stdout : process.stderr, {
            end: false,
          }).catch((error: unknown) => {
            // A reader that stopped early (`| head`, a pager closed) is not a failure: the command
            // runs to its end and its exit code carries its verdict (docs/reports.md).
            if ((error as NodeJS.ErrnoException).code !== 'EPIPE') throw error;
          }),
        );
    });
  if (target.kind === 'stream')
    // On failure the device or FIFO is still opened and closed: a FIFO's reader gets an empty end of
    // file instead of waiting for a writer that never comes.
    return spooled(path, fill, (spool) =>
      writeInPlace(path, target.path, (write) =>
        spool === null ? Promise.resolve() : copyInto(spool, write),
      ),
    );
  return writeReplacing(path, target, fill, options.overwrite ?? true);
}

const TMPDIR_HINT =
  '; Evals spools output for a stream in the temporary folder (TMPDIR) first, so it must be writable';

/**
 * Fills a private temporary file, then hands it to `deliver` once `fill` completed (or `null` when
 * it failed, before its error passes on): a stream gets the whole output or nothing. The file is
 * removed either way.
 */
async function spooled(
  path: string,
  fill: (write: Write) => Promise<void>,
  deliver: (spool: string | null) => Promise<void>,
): Promise<void> {
  const folder = await step(path, () => mkdtemp(join(tmpdir(), 'evals-output-')), TMPDIR_HINT, tmpdir());
  try {
    const spool = join(folder, 'output');
    const handle = await step(path, () => open(spool, 'wx', 0o600), TMPDIR_HINT, folder);
    try {
      await fill(handleWriter(path, handle, folder));
    } catch (error) {
      await handle.close().catch(() => undefined);
      await step(path, () => deliver(null)).catch(() => undefined);
      throw error;
    }
    await step(path, () => handle.close(), TMPDIR_HINT, folder);
    await step(path, () => deliver(spool));
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

async function copyInto(spool: string, write: Write): Promise<void> {
  for await (const chunk of createReadStream(spool, { encoding: 'utf8', highWaterMark: 1 << 20 }))
    await write(chunk as string);
}

/** `holding`: the folder the file is in (undefined: a device or FIFO written in place). */
const handleWriter =
  (path: string, handle: FileHandle, holding?: string): Write =>
  (chunk) =>
    step(
      path,
      async () => {
        await handle.write(chunk);
      },
      undefined,
      holding,
    );

async function writeInPlace(
  path: string,
  absolute: string,
  fill: (write: Write) => Promise<void>,
): Promise<void> {
  const handle = await step(path, () => open(absolute, fsConstants.O_WRONLY | fsConstants.O_NOCTTY));
  try {
    // What was opened must still be a device or FIFO: a regular file swapped in meanwhile would be
    // overwritten from its start without truncation.
    const opened = await step(path, () => handle.stat());
    if (!opened.isCharacterDevice() && !opened.isFIFO())
      throw refusal(
        path,
        'output_changed',
        'it changed while Evals opened it; run again',
        'another kind of node',
      );
    await fill(deviceWriter(path, handle));
  } finally {
    await handle.close();
  }
}

/** A device or FIFO's writer: a full one (/dev/full) says so, naming the user's path. */
const deviceWriter =
  (path: string, handle: FileHandle): Write =>
  async (chunk) => {
    try {
      await handle.write(chunk);
    } catch (error) {
      if (!isFileSystemError(error)) throw error;
      throw (
        fullDiskError(
          path,
          error,
          undefined,
          `the output to ${path} stopped there (it is a device or FIFO, written in place)`,
        ) ?? writeFailed(path, error)
      );
    }
  };

async function writeReplacing(
  path: string,
  target: Extract<OutputTarget, { kind: 'new' | 'file' }>,
  fill: (write: Write) => Promise<void>,
  overwrite: boolean,
): Promise<void> {
  const folder = dirname(target.path);
  const temporary = join(folder, `.${basename(target.path)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temporary, 'wx', 0o644).catch((error: unknown) => {
    if (!isFileSystemError(error)) throw error;
    throw (
      fullDiskError(path, error, folder, LEFT_AS_IT_WAS(path)) ??
      writeFailed(
        path,
        error,
        `${createRefusedHint(folder, error)}; Evals writes a temporary file in ${folder} and renames it into place, so that folder must be writable`,
      )
    );
  });
  try {
    try {
      await fill(handleWriter(path, handle, folder));
      await step(path, () => handle.sync(), undefined, folder);
    } catch (error) {
      await handle.close().catch(() => undefined); // the first failure is the one to report
      throw error;
    }
    // A file system may report a full disk only when the file is closed (NFS): it is a write failure too.
    await step(path, () => handle.close(), undefined, folder);
    const expected = expectedFor({ overwrite });
    if (target.kind === 'file') {
      await step(path, () => chmod(temporary, target.mode), undefined, folder);
      await replace(path, temporary, target.path, expected);
    } else await place(path, temporary, target.path, overwrite, expected);
  } finally {
    await rm(temporary, { force: true });
  }
}

/**
 * Renames the temporary file over a regular file, after checking it still is one and that it did not
 * become a SQLite database meanwhile (a store created there while the output was written).
 */
async function replace(path: string, temporary: string, file: string, expected: string): Promise<void> {
  const now = await lstat(file).catch(() => undefined);
  if (now !== undefined && !now.isFile())
    throw refusal(
      path,
      'output_changed',
      'it is no longer a regular file; run again',
      'another kind of node',
      expected,
    );
  if (now !== undefined) await refuseDatabase(path, file, expected);
  await step(path, () => rename(temporary, file), undefined, dirname(file));
}

/** Error codes of link(2) on a file system without hard links. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/** Links the temporary file in where nothing was: whatever appeared there meanwhile is never replaced. */
async function place(
  path: string,
  temporary: string,
  file: string,
  overwrite: boolean,
  expected: string,
): Promise<void> {
  try {
    await link(temporary, file);
    return;
  } catch (error) {
    if (!isFileSystemError(error)) throw error;
    if (error.code !== 'EEXIST' && !NO_HARD_LINKS.has(error.code ?? ''))
      throw fullDiskError(path, error, dirname(file), LEFT_AS_IT_WAS(path)) ?? writeFailed(path, error);
  }
  // Something appeared meanwhile, or hard links are not supported: a last look, then rename.
  const appeared = await lstat(file).catch(() => undefined);
  if (appeared !== undefined && (!overwrite || !appeared.isFile()))
    throw refusal(
      path,
      overwrite ? 'output_changed' : 'output_exists',
      'something was created there while Evals wrote; it is left alone (run again)',
      'a node that appeared',
      expected,
    );
  if (appeared !== undefined) await refuseDatabase(path, file, expected);
  await step(path, () => rename(temporary, file), undefined, dirname(file));
}
