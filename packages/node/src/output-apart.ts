// The one rule that keeps a command's outputs off its inputs: an output (--out, a record, a report)
// never names a file the same command reads — its environment file, its input records or bundles,
// its qualification record, its SQLite store or that store's -wal, -shm and -journal files. Two
// names are the same file when they resolve to the same path (symlinks followed, a missing file by
// its folder's real path) or, for files that exist, the same device and inode (a hard link).
// A file inside an input folder (a release directory) that exists is an input too. Callers turn the
// conflicts found into their own coded error (outputConflictIssues gives the issues); nothing here
// writes, and a path that cannot be looked at is no conflict (the writer refuses it with its reason).
import { realpath, stat } from 'node:fs/promises';
import { basename, dirname, resolve, sep } from 'node:path';

import type { Issue } from '@paperclip-evals/contract';

/** The files SQLite keeps beside a database: a write over one corrupts or loses the ledger. */
export const SQLITE_COMPANION_SUFFIXES = ['-wal', '-shm', '-journal'] as const;

/** A path a command names, with the flag (or argument) that names it. */
export interface NamedPath {
  /** How the user named it: `--out`, `--env`, `<records...>`. */
  readonly flag: string;
  readonly path: string;
  /** `sqlite`: a SQLite database (its companion files are inputs too); `folder`: every file in it. */
  readonly kind?: 'file' | 'sqlite' | 'folder';
}

/** An output that names an input. */
export interface OutputConflict {
  readonly output: NamedPath;
  readonly input: NamedPath;
  /** The input file the output is: the input's own path, or one of its SQLite companions. */
  readonly file: string;
}

/** How the process's own stdout or stderr is spelled: never an input file. */
const STDIO_NAMES = new Set([
  '-',
  '/dev/stdout',
  '/dev/stderr',
  '/dev/fd/1',
  '/dev/fd/2',
  '/proc/self/fd/1',
  '/proc/self/fd/2',
]);

interface Identity {
  /** The real path (of the file, or of its folder with its name). */
  readonly key: string;
  /** `dev:ino` of a regular file that exists, else null. */
  readonly inode: string | null;
  /** Whether something exists there. */
  readonly exists: boolean;
}

async function identityOf(path: string): Promise<Identity> {
  const absolute = resolve(path);
  const real = await realpath(absolute).catch(() => undefined);
  const key =
    real ??
    resolve(
      (await realpath(dirname(absolute)).catch(() => undefined)) ?? dirname(absolute),
      basename(absolute),
    );
  const stats = await stat(absolute).catch(() => undefined);
  return {
    key,
    inode: stats?.isFile() === true ? `${stats.dev}:${stats.ino}` : null,
    exists: stats !== undefined,
  };
}

/** Every file an input stands for: itself, and for a SQLite store its companions. */
function filesOf(input: NamedPath): string[] {
  return input.kind === 'sqlite'
    ? [input.path, ...SQLITE_COMPANION_SUFFIXES.map((suffix) => `${input.path}${suffix}`)]
    : [input.path];
}

/**
 * Every (output, input) pair that names the same file; none when the outputs are apart. An output
 * that is stdout (`-`), empty or not a regular file (a device, a FIFO, a folder) is written in place
 * or refused by the writer, never replaced: it conflicts with nothing.
 */
export async function outputConflicts(
  outputs: readonly NamedPath[],
  inputs: readonly NamedPath[],
): Promise<OutputConflict[]> {
  const conflicts: OutputConflict[] = [];
  const named = inputs.filter((input) => input.path !== '' && !STDIO_NAMES.has(input.path));
  const inputFiles = await Promise.all(
    named.map(async (input) => ({
      input,
      files: await Promise.all(
        filesOf(input).map(async (file) => ({ file, identity: await identityOf(file) })),
      ),
    })),
  );
  for (const output of outputs) {
    if (output.path === '' || STDIO_NAMES.has(output.path)) continue;
    const out = await identityOf(output.path);
    if (out.exists && out.inode === null) continue;
    for (const { input, files } of inputFiles)
      for (const { file, identity } of files) {
        const same = out.key === identity.key || (out.inode !== null && out.inode === identity.inode);
        const inside = input.kind === 'folder' && out.exists && out.key.startsWith(`${identity.key}${sep}`);
        if (same || inside) conflicts.push({ output, input, file });
      }
  }
  return conflicts;
}

/** What one conflict is, as a sentence: which output, which input, which of its files. */
export function outputConflictText(conflict: OutputConflict): string {
  const { output, input, file } = conflict;
  const what =
    input.kind === 'folder'
      ? `a file in the folder ${input.flag} names (${input.path})`
      : file === input.path
        ? `the file ${input.flag} names (${input.path})`
        : `the SQLite file ${file} beside the store ${input.flag} names (${input.path})`;
  return `${output.flag} ${output.path} is ${what}`;
}

/** The issues of a refusal: one `output_conflicts_input` per conflict. */
export function outputConflictIssues(conflicts: readonly OutputConflict[]): Issue[] {
  return conflicts.map((conflict) => ({
    code: 'output_conflicts_input',
    message: `${outputConflictText(conflict)}: writing ${conflict.output.flag} would replace an input of this command`,
    component: conflict.output.flag,
    expected: `a file other than every input (${conflict.input.flag}${conflict.input.kind === 'sqlite' ? ' and its -wal, -shm, -journal files' : ''})`,
    received: conflict.output.path,
  }));
}
