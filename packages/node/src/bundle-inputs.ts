// Bundle inputs as people name them, expanded lazily in argument order: files, directories (walked
// sorted for *.json; symlinks inside not followed), quoted glob patterns, and '-' for stdin. One
// expander for validate, ingest and policy replay, so each reads the same files the same way.
import { readdir, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import picomatch from 'picomatch';

/** The input that names standard input. */
export const STDIN_INPUT = '-';
/** Why an input is not read: every entry the expander does not read is yielded with one, never dropped. */
export type InputRefusalCode =
  'input_no_match' | 'input_empty_directory' | 'input_symlink_in_directory' | 'input_not_regular_file';

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

const NOT_REGULAR = {
  refused: 'not a regular file (a FIFO, socket or device)',
  refusedCode: 'input_not_regular_file',
} as const;

/**
 * Lazily expands inputs in argument order: files as named, directories walked sorted for *.json,
 * and glob patterns (a quoted `runs/**\/*.json`, when no file has that literal name) matched under
 * their static base. Symlinks inside directories are not followed.
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
      for await (const target of walk(path, input, (name) => name.endsWith('.json'))) {
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
    } else yield { display: input, path, ...NOT_REGULAR };
  }
}

/** Files matching a glob pattern, walked from the pattern's static base (`runs/` in `runs/**\/*.json`). */
function globTargets(pattern: string): AsyncGenerator<BundleInput> {
  const { base, glob } = picomatch.scan(pattern);
  const matches = picomatch(glob);
  const root = resolve(base === '' ? '.' : base);
  return walk(root, base, (_name, path) => matches(relative(root, path).split(sep).join('/')));
}

async function* walk(
  dir: string,
  display: string,
  wanted: (name: string, path: string) => boolean,
): AsyncGenerator<BundleInput> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: unknown) => {
    if (isFileSystemError(error) && error.code === 'ENOENT') return [];
    throw error;
  });
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    const shown = join(display, entry.name);
    if (entry.isDirectory()) yield* walk(path, shown, wanted);
    // A regular file is read when wanted (*.json, or the glob's match) and else is no input. Any
    // other entry is refused whatever its name (a symlinked folder has no .json name but may hold
    // bundles): reported, never dropped.
    else if (entry.isFile()) {
      if (wanted(entry.name, path)) yield { display: shown, path };
    } else if (entry.isSymbolicLink())
      yield {
        display: shown,
        path,
        refused: 'a symlink inside a directory (not followed; name its target instead)',
        refusedCode: 'input_symlink_in_directory',
      };
    else yield { display: shown, path, ...NOT_REGULAR };
  }
}

export const isFileSystemError = (error: unknown): error is NodeJS.ErrnoException =>
  error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string' && 'syscall' in error;

/** What a failed file system call says, without its code and call: "ENOENT: no such file, open 'x'" → "no such file". */
export const fileSystemWhat = (error: NodeJS.ErrnoException): string =>
  error.message.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/, '');

/** A failed file system call as a message names it: "x.yaml: no such file or directory (ENOENT)". */
export function fileSystemText(error: NodeJS.ErrnoException): string {
  return error.path === undefined
    ? error.message
    : `${error.path}: ${fileSystemWhat(error)} (${error.code ?? error.syscall})`;
}
