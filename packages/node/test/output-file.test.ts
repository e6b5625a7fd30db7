// Tests for the one output writer (writeOutputFile / outputTarget): for every kind of node a path can
// name, what is there is written the way it allows (atomically, in place, to the stream) or refused
// and left as it was — never replaced by a node of another type. A property test runs every kind
// with arbitrary content and both overwrite modes.
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { ContractError } from '@paperclip-evals/contract';

import { SQLITE_HEADER, outputTarget, writeOutputFile } from '../src/output-file.ts';

import type { Server } from 'node:net';

let dir: string;
let counter = 0;
const servers: Server[] = [];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evals-output-'));
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A fresh path in a fresh folder (so leftovers are easy to see). */
function fresh(name = 'out.txt'): { folder: string; path: string } {
  const folder = join(dir, `case-${(counter += 1)}`);
  mkdirSync(folder);
  return { folder, path: join(folder, name) };
}

const write = (path: string, text: string, options: { overwrite?: boolean } = {}): Promise<void> =>
  writeOutputFile(path, (put) => put(text), options);

/** The node type of a path, as lstat sees it (a symlink stays a symlink). */
function kindOf(path: string): string {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  if (stats === undefined) return 'missing';
  if (stats.isSymbolicLink()) return 'symlink';
  if (stats.isFile()) return 'file';
  if (stats.isDirectory()) return 'directory';
  if (stats.isFIFO()) return 'fifo';
  if (stats.isCharacterDevice()) return 'character device';
  if (stats.isBlockDevice()) return 'block device';
  if (stats.isSocket()) return 'socket';
  return 'other';
}

/** The issue of a refusal, after checking it is the coded error. */
async function refused(
  promise: Promise<unknown>,
): Promise<{ code: string; message: string; error: ContractError }> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ContractError);
  const coded = error as ContractError;
  expect(coded.code).toBe('paperclip_output_unwritable');
  expect(coded.issues).toHaveLength(1);
  const [issue] = coded.issues;
  return { code: issue?.code ?? '', message: coded.message, error: coded };
}

const temporaries = (folder: string): string[] => readdirSync(folder).filter((name) => name.endsWith('.tmp'));

const mkfifo = (path: string): void => {
  const made = spawnSync('mkfifo', [path]);
  if (made.status !== 0) throw new Error(`mkfifo failed: ${made.stderr.toString()}`);
};
/** A character device node of our own (the null device's numbers), when this user may make one. */
const mknod = (path: string, type: 'c' | 'b', major: number, minor: number): boolean =>
  spawnSync('mknod', [path, type, String(major), String(minor)]).status === 0;
const CAN_MKNOD = ((): boolean => {
  const probe = join(tmpdir(), `evals-mknod-probe-${process.pid}`);
  const ok = mknod(probe, 'c', 1, 3);
  rmSync(probe, { force: true });
  return ok;
})();

/** Starts `cat FIFO` and resolves with everything it read (by its exit). */
function readFifo(path: string): Promise<string> {
  // Killed after 20 s: when a write never comes (a broken writer), the test fails instead of leaving it behind.
  const reader = spawn('cat', [path], { stdio: ['ignore', 'pipe', 'inherit'], timeout: 20_000 });
  const chunks: Buffer[] = [];
  reader.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  return new Promise((done, fail) => {
    reader.on('error', fail);
    reader.on('close', () => {
      done(Buffer.concat(chunks).toString('utf8'));
    });
  });
}

async function listeningSocket(path: string): Promise<void> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((done) => server.listen(path, done));
}

describe('when the path names nothing yet', () => {
  it('creates the file in its folder and leaves no temporary file', async () => {
    const { folder, path } = fresh();
    await write(path, 'hello\n');
    expect(readFileSync(path, 'utf8')).toBe('hello\n');
    expect(temporaries(folder)).toEqual([]);
  });

  it('refuses a missing folder, naming the path as given and the folder, never a temporary file', async () => {
    const cwd = process.cwd();
    const { folder } = fresh();
    process.chdir(folder);
    try {
      const { code, message, error } = await refused(write(join('nodir', 'x.html'), 'x'));
      expect(code).toBe('output_folder_missing');
      expect(message).toContain('nodir/x.html');
      expect(message).toContain('the folder nodir does not exist');
      expect(error.issues[0]?.component).toBe('nodir/x.html');
      expect(JSON.stringify(error.issues)).not.toContain('.tmp');
      expect(existsSync(join(folder, 'nodir'))).toBe(false);
    } finally {
      process.chdir(cwd);
    }
  });

  it('refuses a folder that is a file', async () => {
    const { folder } = fresh();
    writeFileSync(join(folder, 'plain'), 'keep');
    const { code } = await refused(write(join(folder, 'plain', 'x.html'), 'x'));
    expect(code).toBe('output_folder_not_a_folder');
    expect(readFileSync(join(folder, 'plain'), 'utf8')).toBe('keep');
  });

  it('names the user path, not the temporary file, when the folder is not writable', async () => {
    if (process.getuid?.() === 0) return; // root writes anywhere: nothing to refuse
    const { folder, path } = fresh();
    chmodSync(folder, 0o555);
    try {
      const { code, message } = await refused(write(path, 'x'));
      expect(code).toBe('output_write_failed');
      expect(message).toContain(path);
      expect(message).not.toContain('.tmp');
    } finally {
      chmodSync(folder, 0o755);
    }
  });

  it('with a creator that makes folders (a new store), a missing folder is a new file', async () => {
    const { folder } = fresh();
    expect(await outputTarget(join(folder, 'a', 'b.sqlite'), { createsFolders: true })).toEqual({
      kind: 'new',
      path: join(folder, 'a', 'b.sqlite'),
    });
  });
});

describe('when the path is a regular file', () => {
  it('replaces it atomically (a new inode), keeps its permission bits and leaves no temporary file', async () => {
    const { folder, path } = fresh();
    writeFileSync(path, 'old');
    chmodSync(path, 0o640);
    const before = statSync(path).ino;
    await write(path, 'new');
    expect(readFileSync(path, 'utf8')).toBe('new');
    expect(statSync(path).ino).not.toBe(before);
    expect(statSync(path).mode & 0o777).toBe(0o640);
    expect(temporaries(folder)).toEqual([]);
  });

  it('keeps the old file whole when the content fails halfway, and passes that error through', async () => {
    const { folder, path } = fresh();
    writeFileSync(path, 'old');
    const boom = new Error('renderer broke');
    await expect(
      writeOutputFile(path, async (put) => {
        await put('half');
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(readFileSync(path, 'utf8')).toBe('old');
    expect(temporaries(folder)).toEqual([]);
  });

  it('with overwrite: false refuses it and leaves it alone', async () => {
    const { path } = fresh();
    writeFileSync(path, 'mine');
    expect((await refused(write(path, 'theirs', { overwrite: false }))).code).toBe('output_exists');
    expect(readFileSync(path, 'utf8')).toBe('mine');
  });
});

describe('when the path is a SQLite database (an Evalbook ledger)', () => {
  /** A file that starts as every SQLite database does, then `rest`. */
  const database = (path: string, rest = 'pages of a ledger'): Buffer => {
    const bytes = Buffer.concat([SQLITE_HEADER, Buffer.from(rest)]);
    writeFileSync(path, bytes);
    return bytes;
  };

  it('refuses to replace it (output_is_a_database): what it found, nothing written, what to do; its bytes unchanged', async () => {
    const { folder, path } = fresh('evalbook.sqlite');
    const bytes = database(path);
    const before = statSync(path).ino;
    const { code, message, error } = await refused(write(path, '<html>a report</html>'));
    expect(code).toBe('output_is_a_database');
    expect(message).toContain('it is a SQLite database');
    expect(message).toContain('nothing was written');
    expect(message).toContain('name another file (to replace it, remove it first)');
    expect(error.issues[0]?.component).toBe(path);
    expect(error.issues[0]?.received).toContain('a SQLite database');
    expect(readFileSync(path)).toEqual(bytes);
    expect(statSync(path).ino).toBe(before);
    expect(temporaries(folder)).toEqual([]);
  });

  it('is refused by outputTarget too, so a command refuses it before its long work', async () => {
    const { path } = fresh('a2.sqlite');
    database(path);
    expect((await refused(outputTarget(path))).code).toBe('output_is_a_database');
  });

  it('through a symlink: the database it names is refused, the link and the file left as they are', async () => {
    const { folder, path } = fresh('link.sqlite');
    const real = join(folder, 'real.sqlite');
    const bytes = database(real);
    symlinkSync('real.sqlite', path);
    expect((await refused(write(path, 'x'))).code).toBe('output_is_a_database');
    expect(kindOf(path)).toBe('symlink');
    expect(readFileSync(real)).toEqual(bytes);
  });

  it.each(['-wal', '-shm', '-journal'])(
    'a file with %s beside it is a database SQLite is (or was) using: refused, both left as they are',
    async (suffix) => {
      const { path } = fresh('book.sqlite');
      writeFileSync(path, 'not a header: a database mid-creation, or a ledger whose header is in the WAL');
      writeFileSync(`${path}${suffix}`, 'companion');
      const { code, message } = await refused(write(path, 'x'));
      expect(code).toBe('output_is_a_database');
      expect(message).toContain(`${path}${suffix} is beside it`);
      expect(message).toContain(`remove it and ${path}${suffix} first`);
      expect(readFileSync(path, 'utf8')).toContain('not a header');
      expect(readFileSync(`${path}${suffix}`, 'utf8')).toBe('companion');
    },
  );

  it('with overwrite: false (evals init) says it is a database, as every command does', async () => {
    const { path } = fresh('evalbook.yaml');
    database(path);
    expect((await refused(write(path, 'x', { overwrite: false }))).code).toBe('output_is_a_database');
  });

  it('a store opener (inPlace: false) takes an existing database: it opens it, nothing replaces it', async () => {
    const { path } = fresh('store.sqlite');
    database(path);
    writeFileSync(`${path}-wal`, '');
    expect(await outputTarget(path, { inPlace: false })).toMatchObject({ kind: 'file', path });
  });

  it.each([
    ['a file there became a database', true],
    ['a database was created where nothing was', false],
  ])(
    'while the output was written, %s: refused before the rename, the database kept',
    async (_name, existed) => {
      const { folder, path } = fresh('racing.sqlite');
      if (existed) writeFileSync(path, 'an old report');
      let bytes: Buffer = Buffer.alloc(0);
      const { code } = await refused(
        writeOutputFile(path, async (put) => {
          await put('the report');
          bytes = database(path); // a store opened there meanwhile (evals ingest --store sqlite:racing.sqlite)
        }),
      );
      expect(code).toBe('output_is_a_database');
      expect(readFileSync(path)).toEqual(bytes);
      expect(temporaries(folder)).toEqual([]);
    },
  );

  it('the header must be whole: a file holding only its first 15 bytes is no database, and is replaced', async () => {
    const { path } = fresh('short.sqlite');
    writeFileSync(path, SQLITE_HEADER.subarray(0, 15));
    await write(path, 'new');
    expect(readFileSync(path, 'utf8')).toBe('new');
  });

  it('property: any file that starts with the header is refused and kept byte for byte', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 600 }),
        fc.string({ maxLength: 200 }),
        async (rest, text) => {
          const { folder, path } = fresh('any.sqlite');
          const bytes = Buffer.concat([SQLITE_HEADER, rest]);
          writeFileSync(path, bytes);
          expect((await refused(write(path, text))).code).toBe('output_is_a_database');
          expect(readFileSync(path)).toEqual(bytes);
          expect(temporaries(folder)).toEqual([]);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('property: a file whose first bytes differ from the header (nothing beside it) is replaced as before', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .uint8Array({ maxLength: 600 })
          .filter((bytes) => !Buffer.from(bytes.subarray(0, SQLITE_HEADER.length)).equals(SQLITE_HEADER)),
        fc.string({ maxLength: 200 }),
        async (old, text) => {
          const { folder, path } = fresh('report.html');
          writeFileSync(path, old);
          await write(path, text);
          expect(readFileSync(path, 'utf8')).toBe(text);
          expect(temporaries(folder)).toEqual([]);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('property: a header with one byte changed is no database, and is replaced', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: SQLITE_HEADER.length - 1 }),
        fc.integer({ min: 1, max: 255 }),
        async (at, delta) => {
          const { path } = fresh('near.sqlite');
          const near = Buffer.concat([SQLITE_HEADER, Buffer.from('rest')]);
          near[at] = ((near[at] ?? 0) + delta) % 256;
          writeFileSync(path, near);
          await write(path, 'replaced');
          expect(readFileSync(path, 'utf8')).toBe('replaced');
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('what a refusal says is expected, per writer', () => {
  it('evals init (overwrite: false) never expects a regular file: a directory is refused with what init takes', async () => {
    const { path } = fresh('emptyd');
    mkdirSync(path);
    const { error } = await refused(write(path, 'x', { overwrite: false }));
    expect(error.issues[0]?.expected).toBe(
      'a new file in an existing folder, - or /dev/stdout, a character device (/dev/null) or a FIFO (an existing file is never replaced)',
    );
  });

  it('a replacing writer expects a regular file that is not a SQLite database; a store opener a regular file', async () => {
    const { path } = fresh('d');
    mkdirSync(path);
    expect((await refused(write(path, 'x'))).error.issues[0]?.expected).toMatch(
      /^a regular file that is not a SQLite database, a new file/,
    );
    expect((await refused(outputTarget(path, { inPlace: false }))).error.issues[0]?.expected).toBe(
      'a regular file, or a new file in an existing folder',
    );
  });
});

describe('when the path is a symlink', () => {
  it('to a regular file: the link stays and the file it names gets the content', async () => {
    const { folder, path } = fresh('link.txt');
    const real = join(folder, 'real.txt');
    writeFileSync(real, 'old');
    symlinkSync('real.txt', path);
    await write(path, 'new');
    expect(kindOf(path)).toBe('symlink');
    expect(readFileSync(real, 'utf8')).toBe('new');
    expect(temporaries(folder)).toEqual([]);
  });

  it('to nothing: refused, the link left as it is', async () => {
    const { folder, path } = fresh('link.txt');
    symlinkSync('nowhere.txt', path);
    expect((await refused(write(path, 'x'))).code).toBe('output_dangling_symlink');
    expect(kindOf(path)).toBe('symlink');
    expect(existsSync(join(folder, 'nowhere.txt'))).toBe(false);
  });
});

describe('when the path is a directory', () => {
  it('refuses it with what to do, and leaves it and its contents intact', async () => {
    const { path } = fresh('a-directory');
    mkdirSync(path);
    writeFileSync(join(path, 'inside.txt'), 'kept');
    const { code, message } = await refused(write(path, 'x'));
    expect(code).toBe('output_is_directory');
    expect(message).toContain('name a file inside it');
    expect(kindOf(path)).toBe('directory');
    expect(readdirSync(path)).toEqual(['inside.txt']);
  });
});

describe('when the path is a FIFO', () => {
  it('writes into it in place: the reader gets every byte and the FIFO is still a FIFO', async () => {
    const { folder, path } = fresh('pipe');
    mkfifo(path);
    const text = `${'x'.repeat(200_000)}\nend\n`; // more than a pipe buffer: the reader drains as we write
    const read = readFifo(path);
    await write(path, text);
    expect(await read).toBe(text);
    expect(kindOf(path)).toBe('fifo');
    expect(temporaries(folder)).toEqual([]);
  });

  it('gives its reader nothing but an end of file when the content fails halfway (never half a report)', async () => {
    const { folder, path } = fresh('pipe');
    mkfifo(path);
    const read = readFifo(path);
    const boom = new Error('renderer broke');
    await expect(
      writeOutputFile(path, async (put) => {
        await put(`${'x'.repeat(200_000)}\n`);
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(await read).toBe('');
    expect(kindOf(path)).toBe('fifo');
    expect(temporaries(folder)).toEqual([]);
  });

  it('is refused where a regular file is needed (a database), untouched', async () => {
    const { path } = fresh('pipe');
    mkfifo(path);
    expect((await refused(outputTarget(path, { inPlace: false }))).code).toBe('output_is_stream');
    expect(kindOf(path)).toBe('fifo');
  });
});

describe('when the path is a character device', () => {
  // Our own node where we may make one: a regression must never be able to replace the machine's
  // /dev/null (as root it could). Without mknod rights, /dev/null is safe to use: we cannot replace it.
  it.skipIf(CAN_MKNOD)('writes /dev/null in place; it stays a character device', async () => {
    const before = statSync('/dev/null');
    await write('/dev/null', 'discarded\n');
    const after = lstatSync('/dev/null');
    expect(after.isCharacterDevice()).toBe(true);
    expect(after.rdev).toBe(before.rdev);
    expect(after.ino).toBe(before.ino);
  });

  it.skipIf(!CAN_MKNOD)('writes a device node of our own in place; it stays that device', async () => {
    const { folder, path } = fresh('null-device');
    expect(mknod(path, 'c', 1, 3)).toBe(true);
    const before = statSync(path);
    await write(path, 'discarded\n');
    const after = lstatSync(path);
    expect(after.isCharacterDevice()).toBe(true);
    expect([after.ino, after.rdev]).toEqual([before.ino, before.rdev]);
    expect(readdirSync(folder)).toEqual(['null-device']);
  });

  it('names /dev/stdout and /dev/stderr as this process streams', async () => {
    expect(await outputTarget('/dev/stdout')).toEqual({ kind: 'stdio', fd: 1 });
    expect(await outputTarget('/dev/fd/2')).toEqual({ kind: 'stdio', fd: 2 });
    await write('/dev/stderr', ''); // an empty write to the real stream succeeds
  });
});

describe('when the path is - or empty', () => {
  it('reads - as stdout, as every Unix tool does, and writes no file named -', async () => {
    expect(await outputTarget('-')).toEqual({ kind: 'stdio', fd: 1 });
    const { folder } = fresh();
    const cwd = process.cwd();
    process.chdir(folder);
    try {
      await write('-', '');
    } finally {
      process.chdir(cwd);
    }
    expect(readdirSync(folder)).toEqual([]);
  });

  it('refuses - where a regular file is needed (a database)', async () => {
    const { code, message } = await refused(outputTarget('-', { inPlace: false }));
    expect(code).toBe('output_is_stream');
    expect(message).toContain('- means stdout');
  });

  it.each([{ inPlace: true }, { inPlace: false }])(
    'refuses an empty path as empty, never as the working directory ($inPlace)',
    async (options) => {
      const { code, message } = await refused(outputTarget('', options));
      expect(code).toBe('output_path_empty');
      expect(message).toContain('the path is empty');
      expect(message).not.toContain('directory');
    },
  );
});

describe('when the path is a socket', () => {
  it('refuses it, and the socket is still a socket', async () => {
    const { path } = fresh('sock');
    await listeningSocket(path);
    const { code, message } = await refused(write(path, 'x'));
    expect(code).toBe('output_is_socket');
    expect(message).toContain('socket');
    expect(kindOf(path)).toBe('socket');
  });
});

describe('when the path is a block device', () => {
  it.skipIf(!CAN_MKNOD)('refuses it, and the node is still that block device', async () => {
    const { path } = fresh('block');
    expect(mknod(path, 'b', 7, 250)).toBe(true); // a loop device number; never opened
    const before = statSync(path).rdev;
    expect((await refused(write(path, 'x'))).code).toBe('output_is_block_device');
    expect(kindOf(path)).toBe('block device');
    expect(statSync(path).rdev).toBe(before);
  });
});

// ---------------------------------------------------------------------------------------------------
// The rule: whatever the target type, it is never replaced by a node of a different type.

type Kind =
  | 'missing'
  | 'file'
  | 'symlink to file'
  | 'dangling symlink'
  | 'directory'
  | 'fifo'
  | 'socket'
  | 'character device'
  | 'block device';
const KINDS: readonly Kind[] = [
  'missing',
  'file',
  'symlink to file',
  'dangling symlink',
  'directory',
  'fifo',
  'socket',
  ...(CAN_MKNOD ? (['character device', 'block device'] as const) : []),
];

/** Makes a node of the kind at `path`; resolves when it is ready. */
async function make(kind: Kind, path: string): Promise<void> {
  if (kind === 'file') writeFileSync(path, 'before');
  else if (kind === 'symlink to file') {
    writeFileSync(`${path}.real`, 'before');
    symlinkSync(`${path}.real`, path);
  } else if (kind === 'dangling symlink') symlinkSync(`${path}.nowhere`, path);
  else if (kind === 'directory') mkdirSync(path);
  else if (kind === 'fifo') mkfifo(path);
  else if (kind === 'socket') await listeningSocket(path);
  else if (kind === 'character device') mknod(path, 'c', 1, 3);
  else if (kind === 'block device') mknod(path, 'b', 7, 251);
}

/** What lstat must say afterwards: the same type, or (where nothing was) a file when written. */
const WRITTEN: Record<Kind, { type: string; writes: boolean }> = {
  missing: { type: 'file', writes: true },
  file: { type: 'file', writes: true },
  'symlink to file': { type: 'symlink', writes: true },
  'dangling symlink': { type: 'symlink', writes: false },
  directory: { type: 'directory', writes: false },
  fifo: { type: 'fifo', writes: true },
  socket: { type: 'socket', writes: false },
  'character device': { type: 'character device', writes: true },
  'block device': { type: 'block device', writes: false },
};

describe('the rule, over every kind of target (property)', () => {
  it('never replaces a target by a node of another type; writes whole content or refuses with the code', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...KINDS),
        fc.string({ unit: 'grapheme', maxLength: 2000 }),
        fc.boolean(),
        async (kind, text, overwrite) => {
          const { folder, path } = fresh('target');
          await make(kind, path);
          const reader = kind === 'fifo' ? readFifo(path) : undefined;
          const exists = kind !== 'missing';
          const outcome = await write(path, text, { overwrite }).then(
            () => 'written',
            (error: unknown) => error,
          );
          const expected = WRITTEN[kind];
          const refusedHere =
            !expected.writes || (!overwrite && (kind === 'file' || kind === 'symlink to file'));
          if (refusedHere) {
            expect(outcome).toBeInstanceOf(ContractError);
            expect((outcome as ContractError).code).toBe('paperclip_output_unwritable');
          } else expect(outcome).toBe('written');
          expect(kindOf(path)).toBe(exists || outcome === 'written' ? expected.type : 'missing');
          if (outcome === 'written' && (kind === 'missing' || kind === 'file'))
            expect(readFileSync(path, 'utf8')).toBe(text);
          if (outcome === 'written' && kind === 'symlink to file')
            expect(readFileSync(`${path}.real`, 'utf8')).toBe(text);
          if (outcome === 'written' && reader !== undefined) expect(await reader).toBe(text);
          if (refusedHere && (kind === 'file' || kind === 'symlink to file'))
            expect(readFileSync(path, 'utf8')).toBe('before');
          expect(temporaries(folder)).toEqual([]);
        },
      ),
      { numRuns: 60 },
    );
  });
});
