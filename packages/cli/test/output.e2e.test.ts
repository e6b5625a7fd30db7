// Output paths end to end with the real `evals` binary: `report --out` writes a FIFO (a reader gets
// the whole report) and a character device in place and both stay what they were; stdout names go to
// stdout; a directory, a missing folder (named as the user typed it), a socket are refused with exit 2
// and left intact — and the same holds for `qualify --out` (before any work), `init` and a new store
// (whose missing folder is refused too, unless it is the default store's). `-` is stdout everywhere.
// The rows that only ask the path rule run the binary's program in-process (`refused`, below).
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { evalsInProcess } from './support/evals-in-process.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EVALS = join(ROOT, 'packages/cli/bin/evals.js');
const STORE = ['--store', 'sqlite:book.sqlite'];

let dir: string;
const run = (args: string[]): { status: number | null; stdout: string; stderr: string } => {
  const result = spawnSync('node', [EVALS, ...args], { cwd: dir, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
};
/**
 * A refusal row's `evals ARGS`: the binary's program in this process (support/evals-in-process.ts),
 * on the same files. Only rows whose question is the path rule use it (a directory, a missing
 * folder, an empty path, the Evalbook itself); each of their commands also runs as the binary in
 * this file, and what only a process shows (a FIFO, a device, /dev/full or /dev/stdout as its
 * stdout, a FIFO as a store, engine's stdio) always does.
 */
const refused = (args: string[]): Promise<{ status: number; stdout: string; stderr: string }> =>
  evalsInProcess(args, dir);
/** The same, without blocking this process (a FIFO's reader runs beside it). */
function runAsync(args: string[]): Promise<{ status: number | null; stderr: string }> {
  const child = spawn('node', [EVALS, ...args], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((done) =>
    child.on('close', (status) => {
      done({ status, stderr });
    }),
  );
}
/** Starts `cat PATH` and resolves with everything it read (by its exit). */
function readFifo(path: string): Promise<string> {
  // Killed after 20 s: when a write never comes (a broken writer), the test fails instead of leaving it behind.
  const reader = spawn('cat', [path], { stdio: ['ignore', 'pipe', 'inherit'], timeout: 20_000 });
  const chunks: Buffer[] = [];
  reader.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  return new Promise((done) =>
    reader.on('close', () => {
      done(Buffer.concat(chunks).toString('utf8'));
    }),
  );
}
const made = (command: string, args: string[]): boolean => spawnSync(command, args).status === 0;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evals-output-e2e-'));
  mkdirSync(join(dir, 'runs'));
  for (const [index, configId] of ['config_a', 'config_b', 'config_a'].entries())
    writeFileSync(
      join(dir, 'runs', `a${index}.json`),
      JSON.stringify(syntheticAttempt({ attemptId: `a${index}`, configId })),
    );
  expect(run(['ingest', 'runs', ...STORE]).status).toBe(0);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The report as a regular file, to compare what the other targets received (made once per format). */
const references = new Map<string, string>();
function reference(format: string): string {
  const made = references.get(format);
  if (made !== undefined) return made;
  expect(run(['report', '--format', format, '--out', `reference.${format}`, ...STORE]).status).toBe(0);
  const text = readFileSync(join(dir, `reference.${format}`), 'utf8');
  references.set(format, text);
  return text;
}

describe('a full stdout (/dev/full) is an output failure, as --out /dev/full is (exit 2, its code)', () => {
  const full = existsSync('/dev/full');
  /** `evals ARGS > /dev/full`. */
  const toFull = (args: string[]): { status: number | null; stderr: string } => {
    const fd = openSync('/dev/full', 'w');
    try {
      const result = spawnSync('node', [EVALS, ...args], {
        cwd: dir,
        encoding: 'utf8',
        stdio: ['ignore', fd, 'pipe'],
      });
      return { status: result.status, stderr: result.stderr };
    } finally {
      closeSync(fd);
    }
  };

  it.runIf(full)('--out /dev/full: paperclip_output_unwritable, output_write_failed, exit 2', () => {
    const result = run(['report', ...STORE, '--out', '/dev/full']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('output_write_failed at /dev/full');
  });

  it.runIf(full).each([
    ['report', ...STORE],
    ['report', ...STORE, '--out', '-'],
    ['report', ...STORE, '--format', 'csv'],
    ['grid', ...STORE],
    ['grid', ...STORE, '--json'],
    ['compare', ...STORE, '--a', 'config_a', '--b', 'config_b'],
    ['runs', ...STORE, '--json'],
    ['validate', 'runs'],
    ['digest', 'runs/a0.json'],
    ['init', '-'],
  ])('evals %s … > /dev/full: the same code and exit, at stdout', (...args) => {
    const result = toFull(args);
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toMatch(
      /^evals: paperclip_output_unwritable\n {2}output_write_failed at stdout: .*\(ENOSPC\)/,
    );
  });
});

describe('evals report --out a FIFO', () => {
  it('writes in place: the reader gets the whole report and the FIFO is still a FIFO', async () => {
    expect(made('mkfifo', [join(dir, 'report.fifo')])).toBe(true);
    const expected = reference('md');
    const read = readFifo(join(dir, 'report.fifo'));
    const result = await runAsync(['report', '--format', 'md', '--out', 'report.fifo', ...STORE]);
    expect(result.status, result.stderr).toBe(0);
    expect(await read).toBe(expected);
    expect(lstatSync(join(dir, 'report.fifo')).isFIFO()).toBe(true);
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});

describe('evals report --out a character device', () => {
  // A node of our own where this user may make one (root): a regression must never be able to
  // replace the machine's /dev/null. Without mknod rights /dev/null itself is safe to use.
  const own = join(tmpdir(), `evals-output-e2e-null-${process.pid}`);
  const device = made('mknod', [own, 'c', '1', '3']) ? own : '/dev/null';
  afterAll(() => {
    if (device === own) rmSync(own, { force: true });
  });

  it(`writes ${device === own ? 'a null device node' : '/dev/null'} in place; it stays that device`, () => {
    const before = statSync(device);
    const result = run(['report', '--format', 'html', '--out', device, ...STORE]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toContain(`wrote ${device}`);
    const after = lstatSync(device);
    expect(after.isCharacterDevice()).toBe(true);
    expect([after.ino, after.rdev]).toEqual([before.ino, before.rdev]);
  });

  it('writes /dev/stdout to stdout', () => {
    const result = run(['report', '--format', 'md', '--out', '/dev/stdout', ...STORE]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toBe(reference('md'));
  });
});

describe('--out - is stdout, and an empty --out is an empty path, for every command that takes one', () => {
  it('report --out - writes the report to stdout and no file named -', () => {
    const result = run(['report', '--format', 'md', '--out', '-', ...STORE]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toBe(reference('md'));
    expect(result.stderr).toContain('wrote stdout (-)');
    expect(existsSync(join(dir, '-'))).toBe(false);
  });

  it('qualify --out - makes the record stdout (the table on stderr) and writes no file named -', () => {
    mkdirSync(join(dir, 'release-dash'));
    const result = run(['qualify', '--release-dir', 'release-dash', '--out', '-']);
    expect(result.status).toBe(1); // an empty release directory is refused, and the record says why
    expect((JSON.parse(result.stdout) as { qualified: boolean }).qualified).toBe(false);
    expect(result.stderr).toContain('refused');
    expect(existsSync(join(dir, '-'))).toBe(false);
    const json = run(['qualify', '--release-dir', 'release-dash', '--out', '-', '--json']);
    expect((JSON.parse(json.stdout) as { qualified: boolean }).qualified).toBe(false); // once, whole
  });

  it('init - writes the environment to stdout and no file named -', () => {
    const result = run(['init', '-']);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('# Evalbook environment');
    expect(result.stderr).toContain('Next:');
    expect(existsSync(join(dir, '-'))).toBe(false);
  });

  it.each([
    ['report', ['report', '--out', '', ...STORE]],
    ['qualify', ['qualify', '--release-dir', 'release-dash', '--out', '']],
    ['init', ['init', '']],
  ])('%s refuses an empty path as empty, not as a directory (exit 2)', async (_name, args) => {
    const result = await refused(args);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('output_path_empty');
    expect(result.stderr).toContain('the path is empty');
    expect(result.stderr).not.toContain('directory;');
  });
});

describe('evals report --out a path it refuses', () => {
  it('names nodir/x.html and the missing folder nodir, never a temporary file', async () => {
    const result = await refused(['report', '--format', 'html', '--out', 'nodir/x.html', ...STORE]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('nodir/x.html');
    expect(result.stderr).toContain('the folder nodir does not exist');
    expect(result.stderr).not.toMatch(/\.tmp|x\.html\.[0-9a-f]{12}/);
    expect(existsSync(join(dir, 'nodir'))).toBe(false);
  });

  it('refuses the SQLite file it reports on, which stays the Evalbook', async () => {
    const result = await refused(['report', '--out', './book.sqlite', ...STORE]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('is the Evalbook being reported on');
    expect(readFileSync(join(dir, 'book.sqlite')).subarray(0, 16).toString('latin1')).toBe(
      'SQLite format 3\0',
    );
    const grid = await refused(['grid', '--json', ...STORE]);
    expect((JSON.parse(grid.stdout) as { grid: unknown[] }).grid).toHaveLength(2);
  });

  it('refuses a directory and leaves it and its contents intact', async () => {
    mkdirSync(join(dir, 'reports'));
    writeFileSync(join(dir, 'reports', 'keep.txt'), 'kept');
    const result = await refused(['report', '--out', 'reports', ...STORE]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('output_is_directory');
    expect(result.stderr).toContain('name a file inside it');
    expect(lstatSync(join(dir, 'reports')).isDirectory()).toBe(true);
    expect(readdirSync(join(dir, 'reports'))).toEqual(['keep.txt']);
    expect(readFileSync(join(dir, 'reports', 'keep.txt'), 'utf8')).toBe('kept');
  });
});

describe('every other command that writes a user-named file', () => {
  it('qualify --out refuses a directory or a missing folder before any work', async () => {
    mkdirSync(join(dir, 'release'));
    mkdirSync(join(dir, 'records'));
    const directory = await refused(['qualify', '--release-dir', 'release', '--out', 'records']);
    expect(directory.status).toBe(2);
    expect(directory.stderr).toContain('output_is_directory');
    expect(directory.stdout).toBe(''); // no record: nothing was qualified
    const missing = await refused(['qualify', '--release-dir', 'release', '--out', 'nodir/q.json']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('nodir/q.json');
    expect(missing.stderr).toContain('the folder nodir does not exist');
    expect(readdirSync(join(dir, 'records'))).toEqual([]);
  });

  it('init refuses a directory and a missing folder, and writes /dev/stdout in place', async () => {
    const directory = await refused(['init', 'records']);
    expect(directory.status).toBe(2);
    expect(directory.stderr).toContain('output_is_directory');
    const missing = await refused(['init', 'nodir/evalbook.yaml']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('nodir/evalbook.yaml');
    const stdout = run(['init', '/dev/stdout']);
    expect(stdout.status, stdout.stderr).toBe(0);
    expect(stdout.stdout).toContain('# Evalbook environment');
    expect(stdout.stdout).not.toContain('Next:'); // the next steps go to stderr then
    expect(stdout.stderr).toContain('Next:');
  });

  // A typo in --store must not start a second, empty ledger in new folders: a missing folder of a
  // store the user named is refused, naming the path; only the default store makes its folder.
  it.each([
    ['ingest', ['ingest', 'runs', '--store', 'sqlite:deep/a/b/c.sqlite']],
    ['engine', ['engine', '--stdio', '--store', 'sqlite:deep/a/b/c.sqlite']],
    // Checked before any bundle is read: an ingest that would write nothing still hears of it.
    ['ingest of nothing valid', ['ingest', 'no-such-bundle.json', '--store', 'sqlite:deep/a/b/c.sqlite']],
  ])('%s --store in a missing folder is refused naming the path; nothing is created', async (_name, args) => {
    // engine --stdio as the binary: it serves stdio (a regression would read this process's stdin).
    const result = args[0] === 'engine' ? run(args) : await refused(args);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('deep/a/b/c.sqlite');
    expect(result.stderr).toContain('the folder deep/a/b does not exist');
    expect(existsSync(join(dir, 'deep'))).toBe(false);
  });

  it('ingest without --store makes the default store’s folder', () => {
    const home = join(dir, 'fresh-home');
    mkdirSync(home);
    writeFileSync(join(home, 'a.json'), JSON.stringify(syntheticAttempt({ attemptId: 'd1' })));
    const result = spawnSync('node', [EVALS, 'ingest', 'a.json'], { cwd: home, encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    expect(lstatSync(join(home, '.evalbook', 'evalbook.sqlite')).isFile()).toBe(true);
  });

  it('a new SQLite store refuses a FIFO and a directory, leaving both as they were', async () => {
    expect(made('mkfifo', [join(dir, 'store.fifo')])).toBe(true);
    const fifo = run(['ingest', 'runs', '--store', 'sqlite:store.fifo']);
    expect(fifo.status).toBe(2);
    expect(fifo.stderr).toContain('output_is_stream');
    expect(lstatSync(join(dir, 'store.fifo')).isFIFO()).toBe(true);
    const directory = await refused(['ingest', 'runs', '--store', 'sqlite:records']);
    expect(directory.status).toBe(2);
    expect(directory.stderr).toContain('output_is_directory');
    expect(readdirSync(join(dir, 'records'))).toEqual([]);
  });
});
