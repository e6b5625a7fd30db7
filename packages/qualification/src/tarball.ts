// Safe extraction of the packed package (npm layout: every entry under `package/`). The tarball is
// first scanned without writing anything, and every offending entry is listed: `..` components,
// absolute paths, paths outside `package/`, symlinks or hard links whose target leaves the tree,
// entries written through a symlink, device/FIFO and other special entries, setuid/setgid/sticky
// modes, duplicates, oversized entries, too many entries or bytes in all, and anything tar itself
// cannot read. Only a tarball with no issue is extracted, into a directory the caller made private,
// with tar in strict mode (any warning fails the extraction), ownership not taken from the archive,
// and a filter that admits exactly the entries the scan approved.
import { createReadStream } from 'node:fs';
import { posix } from 'node:path';
import { Parser, extract } from 'tar';

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
}

export const DEFAULT_TARBALL_LIMITS: TarballLimits = {
  maxEntryBytes: 64 * 1024 * 1024,
  maxTotalBytes: 512 * 1024 * 1024,
  maxEntries: 20_000,
};

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
}

// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const NOT_PORTABLE = /[\\\u0000-\u001f\u007f]/;
const REGULAR_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);
const SPECIAL_TYPES = new Set(['CharacterDevice', 'BlockDevice', 'FIFO']);

/** Reads every header of the tarball, writes nothing, and lists every offending entry. */
export async function scanTarball(
  file: string,
  limits: TarballLimits = DEFAULT_TARBALL_LIMITS,
): Promise<TarballScan> {
  const entries: TarballEntry[] = [];
  const readIssues: QualificationIssue[] = [];
  await new Promise<void>((resolve) => {
    let settled = false;
    const settle = (): void => {
      if (!settled) {
        settled = true;
        resolve();
      }
    };
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
    parser.on('error', (error: Error & { tarCode?: string }) => {
      unreadable(error.tarCode ?? error.name, error.message);
      settle();
    });
    parser.on('end', settle);
    parser.on('close', settle);
    const stream = createReadStream(file);
    stream.on('error', (error) => {
      unreadable('read_error', error.message);
      settle();
    });
    stream.pipe(parser);
  });
  const issues = [...readIssues, ...tarballEntriesIssues(entries, limits)];
  const totalBytes = entries.reduce((sum, entry) => sum + entry.size, 0);
  return { entries, issues, totalBytes };
}

/** Every issue of a list of entries (pure). */
export function tarballEntriesIssues(
  entries: readonly TarballEntry[],
  limits: TarballLimits = DEFAULT_TARBALL_LIMITS,
): QualificationIssue[] {
  const issues: QualificationIssue[] = [];
  const seen = new Set<string>();
  const symlinks = new Set<string>();
  const regularFiles = new Set<string>();
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
    for (let depth = 1; depth < components.length; depth++) {
      const parent = components.slice(0, depth).join('/');
      if (symlinks.has(parent)) {
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
      const resolved = posix.normalize(posix.join(posix.dirname(path), target));
      if (target === '' || target.startsWith('/') || !isInsidePackage(resolved)) {
        problem('link_target_escapes', `symlink to ${JSON.stringify(target)} leaves package/`, {
          expected: 'a target inside package/',
          received: target,
        });
      }
      symlinks.add(path);
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
    await extract({
      file,
      cwd: destination,
      strict: true,
      preserveOwner: false,
      preservePaths: false,
      unlink: false,
      filter: (path) => approved.has(path),
    });
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
