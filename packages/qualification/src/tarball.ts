// Safe extraction of the packed package (npm layout: every entry under `package/`). The tarball is
// first scanned without writing anything, and every offending entry is listed: `..` components,
// absolute paths, paths outside `package/`, symlinks whose target, resolved the way the file system
// will resolve it (through every symlink of the archive), leaves `package/`, hard links to anything
// but an earlier file, entries written through a symlink, device/FIFO and other special entries,
// setuid/setgid/sticky modes, duplicates, oversized entries, too many entries or bytes in all,
// non-zero data after the end-of-archive marker, and anything tar itself cannot read. Only a
// tarball with no issue is extracted, into a directory the caller made private, with tar in strict
// mode (any warning fails the extraction), ownership not taken from the archive, and a filter that
// admits exactly the entries the scan approved.
//
// Reading is linear and bounded: Evals gunzips the file itself, in chunks, and hands tar the stream
// one 512-byte block at a time, so the parser never buffers more than a block; it stops feeding tar
// at the end-of-archive marker (two zero blocks). What follows the marker is read once, never
// parsed, and must be zero bytes; the whole decompressed stream may not exceed maxArchiveBytes.
// Extraction feeds tar exactly the bytes the scan found before the marker. Every chunk is an await,
// so a signal is handled between chunks. The file itself is read through node's one streaming
// reader (regularFileChunks: a FIFO or device swapped in is refused, never waited on) and is bounded
// too: gzip never makes a tar stream smaller than maxArchiveBytes out of more than that many bytes.
import { posix } from 'node:path';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { regularFileChunks } from '@paperclip-evals/node';
import { Parser, Unpack } from 'tar';

import type { ReadEntry } from 'tar';

import type { QualificationIssue } from './record.js';

/** The folder every entry of an npm-packed tarball lives under. */
export const PACKAGE_ROOT = 'package';

export interface TarballLimits {
  /** Largest single entry, in bytes. */
  readonly maxEntryBytes: number;
  /** Largest sum of all entry sizes, in bytes. */
  readonly maxTotalBytes: number;
  readonly maxEntries: number;
  /**
   * Most bytes of the decompressed stream read in all: headers, bodies, the end-of-archive marker
   * and any zero padding after it (a gzip bomb is refused here, after reading this much once).
   */
  readonly maxArchiveBytes: number;
}

export const DEFAULT_TARBALL_LIMITS: TarballLimits = {
  maxEntryBytes: 64 * 1024 * 1024,
  maxTotalBytes: 512 * 1024 * 1024,
  maxEntries: 20_000,
  maxArchiveBytes: 640 * 1024 * 1024,
};

/** Size of one tar block: headers and bodies are whole blocks, and end-of-archive is two zero ones. */
const BLOCK_BYTES = 512;

/** One entry as the tar header (and any pax header) describes it. */
export interface TarballEntry {
  readonly path: string;
  readonly type: string;
  readonly size: number;
  readonly linkpath?: string;
  readonly mode?: number;
}

export interface TarballScan {
  readonly entries: readonly TarballEntry[];
  readonly issues: readonly QualificationIssue[];
  readonly totalBytes: number;
  /** Decompressed bytes up to and including the end-of-archive marker (the stream's length if it has none). */
  readonly archiveBytes: number;
  /** Decompressed bytes after the end-of-archive marker (zero padding). */
  readonly trailingBytes: number;
}

// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const NOT_PORTABLE = /[\\\u0000-\u001f\u007f]/;
const REGULAR_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);
const SPECIAL_TYPES = new Set(['CharacterDevice', 'BlockDevice', 'FIFO']);

/**
 * The decompressed bytes of a gzip file, chunk by chunk (zlib's chunks: at most 16 KiB each); the
 * file is read as a regular file of at most `maxFileBytes` (EINVAL, EFBIG otherwise).
 */
async function* gunzipChunks(file: string, maxFileBytes: number): AsyncGenerator<Buffer> {
  const source = Readable.from(regularFileChunks(file, { maxBytes: maxFileBytes }));
  const gunzip = createGunzip();
  source.on('error', (error) => gunzip.destroy(error));
  source.pipe(gunzip);
  try {
    for await (const chunk of gunzip) yield chunk as Buffer;
  } finally {
    source.destroy();
    gunzip.destroy();
  }
}

/** Writes `block` into tar's parser (or unpacker) and waits while it asks for a pause. */
async function feed(parser: Parser, block: Buffer): Promise<void> {
  if (parser.write(block)) return;
  await new Promise<void>((resolve) => {
    const done = (): void => {
      parser.off('drain', done);
      parser.off('close', done);
      parser.off('error', done);
      resolve();
    };
    parser.on('drain', done);
    parser.on('close', done);
    parser.on('error', done);
  });
}

const ZERO_BLOCK = Buffer.alloc(BLOCK_BYTES);

/** Reads every header of the tarball, writes nothing, and lists every offending entry. */
export async function scanTarball(
  file: string,
  limits: TarballLimits = DEFAULT_TARBALL_LIMITS,
): Promise<TarballScan> {
  const entries: TarballEntry[] = [];
  const readIssues: QualificationIssue[] = [];
  const unreadable = (code: string, message: string): void => {
    readIssues.push({
      code: 'tarball_unreadable',
      message: `tar could not read the tarball: ${message}`,
      expected: 'a gzip-compressed tar archive',
      received: code,
    });
  };
  const parser = new Parser({ strict: false });
  const record = (entry: ReadEntry): void => {
    entries.push({
      path: entry.path,
      type: entry.type,
      size: entry.size,
      ...(entry.linkpath === undefined ? {} : { linkpath: entry.linkpath }),
      ...(entry.mode === undefined ? {} : { mode: entry.mode }),
    });
    entry.resume();
  };
  parser.on('entry', record);
  // Types tar does not know how to unpack are handed out as "ignored"; they are listed too.
  parser.on('ignoredEntry', record);
  parser.on('warn', (code: string, message: string | Error) => {
    unreadable(code, message instanceof Error ? message.message : message);
  });
  // Set by tar's events while blocks are fed: whether it gave up, and where end-of-archive was.
  const seen: { failed: boolean; archiveBytes: number | null } = { failed: false, archiveBytes: null };
  parser.on('error', (error: Error & { tarCode?: string }) => {
    seen.failed = true;
    unreadable(error.tarCode ?? error.name, error.message);
  });
  const ended = new Promise<void>((resolve) => {
    parser.on('end', resolve);
    parser.on('close', resolve);
    parser.on('error', () => {
      resolve();
    });
  });
  let fed = 0;
  parser.on('eof', () => {
    seen.archiveBytes ??= fed;
  });
  let streamBytes = 0;
  let trailingBytes = 0;
  let trailingDataAt: number | null = null;
  try {
    read: for await (const chunk of gunzipChunks(file, limits.maxArchiveBytes)) {
      streamBytes += chunk.byteLength;
      if (streamBytes > limits.maxArchiveBytes) {
        readIssues.push({
          code: 'tarball_too_large',
          message: `the tarball decompresses to more than ${limits.maxArchiveBytes} bytes (read that far, then stopped)`,
          expected: `at most ${limits.maxArchiveBytes} bytes of tar stream`,
          received: `more than ${limits.maxArchiveBytes}`,
        });
        break;
      }
      // Blocks aligned on the stream, so end-of-archive is seen at the exact block it ends.
      for (let offset = 0; offset < chunk.byteLength;) {
        const position = streamBytes - chunk.byteLength + offset;
        const end = Math.min(chunk.byteLength, offset + BLOCK_BYTES - (position % BLOCK_BYTES));
        const block = chunk.subarray(offset, end);
        offset = end;
        if (seen.archiveBytes === null) {
          // Past the entry limit the tarball is refused already: reading on would only cost memory.
          if (seen.failed || entries.length > limits.maxEntries) break read;
          fed += block.byteLength;
          await feed(parser, block);
        } else {
          trailingBytes += block.byteLength;
          if (!block.equals(ZERO_BLOCK.subarray(0, block.byteLength))) {
            trailingDataAt = position;
            break read;
          }
        }
      }
    }
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'read_error';
    if (code === 'EFBIG')
      readIssues.push({
        code: 'tarball_too_large',
        message: `the tarball file is over ${limits.maxArchiveBytes} bytes (${(error as Error).message.includes('not read') ? 'by its size: not read' : 'read that far, then stopped'})`,
        expected: `a file of at most ${limits.maxArchiveBytes} bytes`,
        received: `more than ${limits.maxArchiveBytes}`,
      });
    else unreadable(code, (error as Error).message);
  }
  parser.end();
  await ended;
  if (trailingDataAt !== null) {
    readIssues.push({
      code: 'tarball_trailing_data',
      message: `the tarball holds data after its end-of-archive marker (byte ${trailingDataAt} of the tar stream is not zero); only zero padding may follow the marker`,
      expected: 'zero bytes after the end-of-archive marker',
      received: `non-zero data at byte ${trailingDataAt}`,
    });
  }
  const issues = [...readIssues, ...tarballEntriesIssues(entries, limits)];
  const totalBytes = entries.reduce((sum, entry) => sum + entry.size, 0);
  return { entries, issues, totalBytes, archiveBytes: seen.archiveBytes ?? fed, trailingBytes };
}

/** Every issue of a list of entries (pure). */
export function tarballEntriesIssues(
  entries: readonly TarballEntry[],
  limits: TarballLimits = DEFAULT_TARBALL_LIMITS,
): QualificationIssue[] {
  const issues: QualificationIssue[] = [];
  const seen = new Set<string>();
  // Every symlink of the archive, wherever it comes: once extracted, all of them are on disk.
  const links = symlinkTree(entries);
  const regularFiles = new Set<string>();
  const linkBudget = { steps: 0 };
  let totalBytes = 0;
  if (entries.length > limits.maxEntries) {
    issues.push({
      code: 'tarball_too_many_entries',
      message: `the tarball has ${entries.length} entries, over the limit of ${limits.maxEntries}`,
      expected: `at most ${limits.maxEntries} entries`,
      received: entries.length,
    });
  }
  for (const entry of entries) {
    const problem = (code: string, message: string, extra: Partial<QualificationIssue> = {}): void => {
      issues.push({
        code,
        message: `${JSON.stringify(entry.path)}: ${message}`,
        entry: entry.path,
        ...extra,
      });
    };
    const path = entry.path.replace(/\/+$/, '');
    // Longer than Linux's PATH_MAX: no file system takes it, and every rule below stays cheap.
    if (isTooLong(entry)) {
      problem('entry_path_too_long', `a path or link target over ${MAX_PATH_BYTES} bytes`, {
        expected: `at most ${MAX_PATH_BYTES} bytes`,
        received: Math.max(Buffer.byteLength(entry.path), Buffer.byteLength(entry.linkpath ?? '')),
      });
      continue;
    }
    const components = path.split('/');

    // Where the entry goes.
    if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) {
      problem('entry_path_absolute', 'absolute path', {
        expected: 'a relative path under package/',
        received: entry.path,
      });
    }
    if (components.includes('..')) {
      problem('entry_path_traversal', 'a ".." component leaves the tree', {
        expected: 'no ".." component',
        received: entry.path,
      });
    }
    const relative = path.startsWith('/') ? components.slice(1) : components;
    if (path === '' || NOT_PORTABLE.test(path) || relative.some((c) => c === '' || c === '.')) {
      problem('entry_path_not_normal', 'empty, ".", "//", backslash or control characters in the path', {
        received: entry.path,
      });
    }
    if (components[0] !== PACKAGE_ROOT || (components.length === 1 && entry.type !== 'Directory')) {
      problem('entry_outside_package', 'not under package/', { expected: 'package/…', received: entry.path });
    }
    // Any symlink of the archive, before or after this entry: tar would write through it.
    for (let depth = 0, node: LinkNode | undefined = links; depth < components.length - 1; depth++) {
      node = node.children.get(components[depth] ?? '');
      if (node === undefined) break;
      if (node.target !== undefined) {
        const parent = components.slice(0, depth + 1).join('/');
        problem('entry_through_symlink', `written through the symlink ${parent}`, { received: parent });
        break;
      }
    }
    if (seen.has(path)) problem('entry_duplicate', 'appears more than once');
    seen.add(path);

    // What the entry is.
    if (SPECIAL_TYPES.has(entry.type)) {
      problem('entry_special_file', `${entry.type} entries are refused`, {
        expected: 'File, Directory, SymbolicLink or Link',
        received: entry.type,
      });
    } else if (
      !REGULAR_TYPES.has(entry.type) &&
      !['Directory', 'SymbolicLink', 'Link'].includes(entry.type)
    ) {
      problem('entry_type_unsupported', `${entry.type} entries are refused`, {
        expected: 'File, Directory, SymbolicLink or Link',
        received: entry.type,
      });
    }
    if (entry.type === 'SymbolicLink') {
      const target = entry.linkpath ?? '';
      const resolved = symlinkResolution(components, links, linkBudget);
      if (resolved === 'too_complex') {
        problem(
          'link_resolution_too_complex',
          `symlink to ${JSON.stringify(target.length > 200 ? `${target.slice(0, 200)}…` : target)}: the archive's symlinks take more than ${MAX_LINK_STEPS} steps to resolve`,
          { expected: `symlinks that resolve in at most ${MAX_LINK_STEPS} steps in all`, received: 'more' },
        );
      } else if (resolved === 'loop') {
        problem(
          'link_target_loop',
          `symlink to ${JSON.stringify(target)} never resolves (a loop of symlinks)`,
          {
            expected: `a target reached in at most ${MAX_SYMLINK_HOPS} symlinks`,
            received: target,
          },
        );
      } else if (resolved === 'escapes') {
        problem(
          'link_target_escapes',
          `symlink to ${JSON.stringify(target)} leaves package/ once the archive's symlinks are followed`,
          { expected: 'a target inside package/ that never climbs above it', received: target },
        );
      }
    }
    if (entry.type === 'Link') {
      const target = entry.linkpath ?? '';
      if (
        target.startsWith('/') ||
        target.split('/').includes('..') ||
        !isInsidePackage(posix.normalize(target))
      ) {
        problem('link_target_escapes', `hard link to ${JSON.stringify(target)} leaves package/`, {
          expected: 'a target inside package/',
          received: target,
        });
      } else if (!regularFiles.has(posix.normalize(target))) {
        problem(
          'link_target_unknown',
          `hard link to ${JSON.stringify(target)}, which is no earlier file entry`,
          {
            received: target,
          },
        );
      }
    }
    if (REGULAR_TYPES.has(entry.type)) regularFiles.add(path);
    if (entry.mode !== undefined && (entry.mode & 0o7000) !== 0) {
      problem('entry_mode_special', `setuid, setgid or sticky mode ${entry.mode.toString(8)}`, {
        expected: 'no setuid, setgid or sticky bit',
        received: `0${entry.mode.toString(8)}`,
      });
    }

    // How big it is.
    if (entry.size > limits.maxEntryBytes) {
      problem(
        'entry_too_large',
        `${entry.size} bytes, over the ${limits.maxEntryBytes}-byte limit per entry`,
        {
          expected: `at most ${limits.maxEntryBytes} bytes`,
          received: entry.size,
        },
      );
    }
    totalBytes += entry.size;
  }
  if (totalBytes > limits.maxTotalBytes) {
    issues.push({
      code: 'tarball_too_large',
      message: `the entries add up to ${totalBytes} bytes, over the ${limits.maxTotalBytes}-byte limit`,
      expected: `at most ${limits.maxTotalBytes} bytes in all`,
      received: totalBytes,
    });
  }
  return issues;
}

const isInsidePackage = (normalized: string): boolean =>
  normalized === PACKAGE_ROOT || normalized.startsWith(`${PACKAGE_ROOT}/`);

/** As Linux's PATH_MAX: the longest entry path or link target, in bytes. */
export const MAX_PATH_BYTES = 4096;

const isTooLong = (entry: TarballEntry): boolean =>
  entry.path.length > MAX_PATH_BYTES / 4
    ? Buffer.byteLength(entry.path) > MAX_PATH_BYTES ||
      Buffer.byteLength(entry.linkpath ?? '') > MAX_PATH_BYTES
    : (entry.linkpath ?? '').length > MAX_PATH_BYTES / 4 &&
      Buffer.byteLength(entry.linkpath ?? '') > MAX_PATH_BYTES;

/** The archive's symlinks as a tree of path components: a node with a target is a symlink. */
export interface LinkNode {
  target?: string;
  readonly children: Map<string, LinkNode>;
}

/** The tree of every symlink entry of the archive (those with a path short enough to check). */
export function symlinkTree(entries: readonly TarballEntry[]): LinkNode {
  const root: LinkNode = { children: new Map() };
  for (const entry of entries) {
    if (entry.type !== 'SymbolicLink' || isTooLong(entry)) continue;
    let node = root;
    for (const component of entry.path.replace(/\/+$/, '').split('/')) {
      let child = node.children.get(component);
      if (child === undefined) {
        child = { children: new Map() };
        node.children.set(component, child);
      }
      node = child;
    }
    node.target = entry.linkpath ?? '';
  }
  return root;
}

/** As Linux: more symlinks than this while resolving one path is ELOOP. */
export const MAX_SYMLINK_HOPS = 40;
/** Path components walked to resolve all the symlinks of one archive; past it, they are refused. */
export const MAX_LINK_STEPS = 200_000;

/**
 * Where the symlink at `path` points once the archive is on disk, resolved as the kernel does:
 * component by component from the link's folder, each component that is one of the archive's
 * symlinks replaced by its target (relative to the folder holding it), `..` taken after that. The
 * rule is strict: the walk may never climb above package/, not even on the way back in, and an
 * absolute or empty target leaves it at once. Components that are no symlink are taken as folders
 * (a missing one keeps the walk lexical, which can only make it stricter). Every component walked
 * counts against `budget` (shared by the archive's links), so a hostile link set costs at most
 * MAX_LINK_STEPS steps.
 */
export function symlinkResolution(
  components: readonly string[],
  links: LinkNode,
  budget: { steps: number } = { steps: 0 },
): 'inside' | 'escapes' | 'loop' | 'too_complex' {
  if (components[0] !== PACKAGE_ROOT) return 'escapes';
  // The folders walked into, from package/ down, as nodes of the link tree; below a folder that
  // holds no symlink, the walk only counts how deep it went (no symlink can be met there).
  const real: LinkNode[] = [];
  let node = links;
  for (const component of components) {
    const child = node.children.get(component);
    if (child === undefined) return 'escapes';
    real.push((node = child));
  }
  const start = real.pop()?.target;
  if (start === undefined || start === '' || start.startsWith('/')) return 'escapes';
  let offTree = 0;
  const pending = start.split('/').reverse();
  let hops = 1;
  for (let component = pending.pop(); component !== undefined; component = pending.pop()) {
    if (++budget.steps > MAX_LINK_STEPS) return 'too_complex';
    if (component === '' || component === '.') continue;
    if (component === '..') {
      if (offTree > 0) offTree--;
      else if (real.length <= 1) return 'escapes';
      else real.pop();
      continue;
    }
    const here = offTree > 0 ? undefined : real[real.length - 1]?.children.get(component);
    if (here === undefined) {
      offTree++;
      continue;
    }
    const target = here.target;
    if (target === undefined) {
      real.push(here);
      continue;
    }
    if (++hops > MAX_SYMLINK_HOPS) return 'loop';
    if (target === '' || target.startsWith('/')) return 'escapes';
    pending.push(...target.split('/').reverse());
  }
  return 'inside';
}

export interface TarballExtraction extends TarballScan {
  /** `<destination>/package`, when the tarball was extracted. */
  readonly packageDir: string | null;
}

/**
 * Scans the tarball, then (only when the scan found nothing) extracts it into `destination`, an
 * existing private directory. An extraction failure after a clean scan is an issue too.
 */
export async function extractTarball(
  file: string,
  destination: string,
  limits: TarballLimits = DEFAULT_TARBALL_LIMITS,
): Promise<TarballExtraction> {
  const scan = await scanTarball(file, limits);
  if (scan.issues.length > 0) return { ...scan, packageDir: null };
  const approved = new Set(scan.entries.map((entry) => entry.path));
  try {
    const unpack = new Unpack({
      cwd: destination,
      strict: true,
      preserveOwner: false,
      preservePaths: false,
      unlink: false,
      filter: (path) => approved.has(path),
    });
    // tar closes the unpacker after an error too, once every write it started has settled: the
    // caller may remove the destination as soon as this returns.
    const finished = new Promise<void>((resolve) => unpack.on('close', resolve));
    // Exactly the bytes the scan read up to the end-of-archive marker: nothing after it.
    let left = scan.archiveBytes;
    const failures: Error[] = [];
    unpack.on('error', (error: Error) => {
      failures.push(error);
    });
    try {
      for await (const chunk of gunzipChunks(file, limits.maxArchiveBytes)) {
        if (left <= 0 || failures.length > 0) break;
        const piece = chunk.byteLength > left ? chunk.subarray(0, left) : chunk;
        left -= piece.byteLength;
        await feed(unpack, piece);
      }
    } finally {
      unpack.end();
      await finished;
    }
    if (failures[0] !== undefined) throw failures[0];
  } catch (error) {
    return {
      ...scan,
      issues: [
        {
          code: 'tarball_extract_failed',
          message: `extracting the scanned tarball failed: ${error instanceof Error ? error.message : String(error)}`,
          received: (error as { code?: unknown }).code ?? null,
        },
      ],
      packageDir: null,
    };
  }
  return { ...scan, packageDir: posix.join(destination, PACKAGE_ROOT) };
}
