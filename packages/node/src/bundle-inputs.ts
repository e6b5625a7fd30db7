// Bundle inputs as people name them, expanded lazily in argument order: files, directories (walked
// sorted for *.json; symlinks inside not followed), quoted glob patterns, and '-' for stdin. One
// expander for validate, ingest and policy replay, so each reads the same files the same way.
import { isUtf8 } from 'node:buffer';
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import picomatch from 'picomatch';

import { FILE_KIND_PHRASE, NOT_REGULAR_ADVICE, fileKindOf } from './file-kind.js';

import type { Dirent } from 'node:fs';

import type { KindOfEntry } from './file-kind.js';

/** The input that names standard input. */
export const STDIN_INPUT = '-';
/** Why an input is not read: every entry the expander does not read is yielded with one, never dropped. */
export type InputRefusalCode =
  | 'input_no_match'
  | 'input_empty_directory'
  | 'input_symlink_in_directory'
  | 'input_not_regular_file'
  | 'input_name_not_utf8';

/**
 * One bundle input: shown as `display`; `path` null for stdin; `refused` says why it cannot be read
 * and `refusedCode` names that rule.
 */
export interface BundleInput {
  readonly display: string;
  readonly path: string | null;
  readonly refused?: string;
  readonly refusedCode?: InputRefusalCode;
}

/** An entry that is neither a folder to walk nor a regular file, refused naming what it is. */
const notRegular = (entry: KindOfEntry): Pick<BundleInput, 'refused' | 'refusedCode'> => {
  const kind = fileKindOf(entry);
  return {
    refused: `${FILE_KIND_PHRASE[kind]}, not a regular file: ${NOT_REGULAR_ADVICE[kind]}`,
    refusedCode: 'input_not_regular_file',
  };
};

/**
 * Lazily expands inputs in argument order: files as named, directories walked sorted for *.json
 * (every other non-folder entry but a regular file refused), and glob patterns (a quoted
 * `runs/**\/*.json`, when no file has that literal name) matched under their static base (only
 * matching entries considered). Symlinks inside directories are not followed.
 */
export async function* expandBundleInputs(inputs: readonly string[]): AsyncGenerator<BundleInput> {
  for (const input of inputs) {
    if (input === STDIN_INPUT) {
      yield { display: '(stdin)', path: null };
      continue;
    }
    const path = resolve(input);
    const info = await stat(path).catch(() => null);
    if (info === null && picomatch.scan(input).isGlob) {
      let found = false;
      for await (const target of globTargets(input)) {
        found = true;
        yield target;
      }
      if (!found)
        yield { display: input, path, refused: 'no files match this pattern', refusedCode: 'input_no_match' };
    } else if (info === null || info.isFile()) yield { display: input, path };
    else if (info.isDirectory()) {
      let found = false;
      for await (const target of walk(path, input)) {
        found = true;
        yield target;
      }
      if (!found)
        yield {
          display: input,
          path,
          refused: 'no *.json files in this directory',
          refusedCode: 'input_empty_directory',
        };
    } else yield { display: input, path, ...notRegular(info) };
  }
}

/**
 * The entries a glob pattern names, walked from its static base (`runs/` in `runs/**\/*.json`): only
 * an entry whose path under the base matches the pattern is an input (a regular file read; a matching
 * symlink, FIFO or socket refused with its code); a non-matching entry of any kind is no input. A
 * folder is entered only when the pattern can match below it, so `*.json` reads one folder and `**`
 * recurses (never into a symlinked folder).
 */
async function* globTargets(pattern: string): AsyncGenerator<BundleInput> {
  const { base, glob } = picomatch.scan(pattern);
  const matches = picomatch(glob);
  const root = resolve(base === '' ? '.' : base);
  const canHold = globCanHold(glob);
  async function* visit(
    dir: string,
    shownDir: string,
    under: readonly string[],
  ): AsyncGenerator<BundleInput> {
    for (const entry of await sortedEntries(dir)) {
      const path = join(dir, entry.name);
      const shown = shownDir === '' ? entry.name : join(shownDir, entry.name);
      const segments = [...under, entry.name];
      if (entry.isDirectory()) {
        if (canHold(segments)) yield* visit(path, shown, segments);
      } else if (matches(segments.join('/'))) yield entryInput(entry, path, shown, SYMLINK_MATCHED);
    }
  }
  yield* visit(root, base, []);
}

/**
 * Whether a pattern can match anything below a folder at `segments` (its path under the base):
 * each segment before a `**` must match its pattern segment, and the pattern must go deeper than
 * the folder; below a `**` every folder but a dot folder (unless the pattern names one). A pattern
 * not cut into segments safely (a brace, bracket or extglob, and a `/`) enters every folder: only
 * its matches are inputs either way.
 */
export function globCanHold(glob: string): (segments: readonly string[]) => boolean {
  const parts = glob.split('/');
  if (/[{([]/.test(glob) && parts.length > 1) return () => true;
  const partMatchers = parts.map((part) => (part.includes('**') ? null : picomatch(part)));
  // `**` never matches a dot folder (picomatch's default), so only a `.name` segment can reach one.
  const namesDot = parts.some((part) => part.startsWith('.'));
  return (segments) => {
    for (const [index, segment] of segments.entries()) {
      const matcher = partMatchers[index];
      if (matcher === null) return namesDot || !segments.slice(index).some((rest) => rest.startsWith('.'));
      if (matcher === undefined || !matcher(segment)) return false;
    }
    return segments.length < parts.length;
  };
}

const SYMLINK_IN_DIRECTORY = 'a symlink inside a directory (not followed; name its target instead)';
const SYMLINK_MATCHED = 'a symlink matched by the pattern (not followed; name its target instead)';

/**
 * Every entry of a folder, sorted by name; a folder that is gone (or a file: `a.json/*`) has none.
 * A name that is not UTF-8 reaches JavaScript decoded with U+FFFD, a path that names no file: such
 * an entry is marked (NOT_UTF8_NAME, its bytes in hex) and refused, never read as "missing".
 */
async function sortedEntries(dir: string): Promise<Dirent[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: unknown) => {
    if (isFileSystemError(error) && (error.code === 'ENOENT' || error.code === 'ENOTDIR')) return [];
    throw error;
  });
  if (entries.some((entry) => entry.name.includes('\ufffd'))) {
    const raw = await readdir(dir, { encoding: 'buffer' }).catch(() => [] as Buffer[]);
    const lossy = new Map(
      raw.filter((name) => !isUtf8(name)).map((name) => [name.toString('utf8'), name.toString('hex')]),
    );
    for (const entry of entries) {
      const bytes = lossy.get(entry.name);
      if (bytes !== undefined) NOT_UTF8_NAME.set(entry, bytes);
    }
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** The entries whose name is not UTF-8, with that name's bytes in hex. */
const NOT_UTF8_NAME = new WeakMap<Dirent, string>();

/** An entry whose name is not UTF-8, refused (whatever its kind: it cannot be named to be read), or undefined. */
function notUtf8Input(entry: Dirent, path: string, display: string): BundleInput | undefined {
  const bytes = NOT_UTF8_NAME.get(entry);
  if (bytes === undefined) return undefined;
  return {
    display,
    path,
    refused: `a name that is not UTF-8 (its bytes: ${bytes.replace(/(..)(?!$)/g, '$1 ')}): Evals cannot name it to open it; rename it (e.g. with convmv) and give it again`,
    refusedCode: 'input_name_not_utf8',
  };
}

/** A non-folder entry as an input: a regular file read, a symlink or any other kind refused. */
function entryInput(entry: Dirent, path: string, display: string, symlinkWhy: string): BundleInput {
  const unnamed = notUtf8Input(entry, path, display);
  if (unnamed !== undefined) return unnamed;
  if (entry.isFile()) return { display, path };
  if (entry.isSymbolicLink())
    return { display, path, refused: symlinkWhy, refusedCode: 'input_symlink_in_directory' };
  return { display, path, ...notRegular(entry) };
}

/**
 * A directory named explicitly, walked whole: a regular *.json file is read and any other regular
 * file is no input; every other entry is refused whatever its name (a symlinked folder has no .json
 * name but may hold bundles): reported, never dropped.
 */
async function* walk(dir: string, display: string): AsyncGenerator<BundleInput> {
  for (const entry of await sortedEntries(dir)) {
    const path = join(dir, entry.name);
    const shown = join(display, entry.name);
    const unnamed = notUtf8Input(entry, path, shown);
    if (unnamed !== undefined) yield unnamed;
    else if (entry.isDirectory()) yield* walk(path, shown);
    else if (!entry.isFile() || entry.name.endsWith('.json'))
      yield entryInput(entry, path, shown, SYMLINK_IN_DIRECTORY);
  }
}

/** System calls of the network (a socket, a name lookup): their errors are never about a file. */
const NETWORK_SYSCALLS = new Set(['listen', 'bind', 'connect', 'accept', 'getaddrinfo', 'getnameinfo']);
/** Error codes only the network gives (a read or write on a socket reports them too). */
const NETWORK_CODES = new Set([
  'EADDRINUSE',
  'EADDRNOTAVAIL',
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ETIMEDOUT',
  'ENOTCONN',
]);

/**
 * Whether `error` is a failed file system call (an errno with its system call): what the CLI says
 * of an input path that cannot be read. A network failure (a port taken, a host not found, a
 * refused connection) has the same shape and is not one: its meaning is not "name a file that exists".
 */
export const isFileSystemError = (error: unknown): error is NodeJS.ErrnoException =>
  error instanceof Error &&
  typeof (error as NodeJS.ErrnoException).code === 'string' &&
  'syscall' in error &&
  !NETWORK_SYSCALLS.has(String((error as NodeJS.ErrnoException).syscall)) &&
  !NETWORK_CODES.has(String((error as NodeJS.ErrnoException).code));

/** What a failed file system call says, without its code and call: "ENOENT: no such file, open 'x'" → "no such file". */
export const fileSystemWhat = (error: NodeJS.ErrnoException): string =>
  error.message.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/, '');

/** A failed file system call as a message names it: "x.yaml: no such file or directory (ENOENT)". */
export function fileSystemText(error: NodeJS.ErrnoException): string {
  return error.path === undefined
    ? error.message
    : `${error.path}: ${fileSystemWhat(error)} (${error.code ?? error.syscall})`;
}
