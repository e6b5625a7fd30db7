// Safe extraction: tarballs with a `../` entry, an absolute path or a symlink leaving the tree are
// refused by a full qualification (which then installs nothing), and the scanner lists every
// offending entry — special files, hard links, sizes, duplicates, writes through symlinks, modes,
// anything outside package/ or unreadable — while a clean tarball extracts into place.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { qualifyRelease } from '../src/qualify.ts';
import { DEFAULT_TARBALL_LIMITS, extractTarball, scanTarball, tarballEntriesIssues } from '../src/tarball.ts';
import type { QualificationRecord } from '../src/record.ts';
import type { TarballEntry } from '../src/tarball.ts';
import { buildFakeRelease, craftTarball } from '@paperclip-evals/test-kit/fake-release';
import { check, codes, createScratch } from './support/harness.ts';

import type { CraftEntry } from '@paperclip-evals/test-kit/fake-release';
import type { Scratch } from './support/harness.ts';

const HOSTILE: Record<string, CraftEntry> = {
  dotDot: { path: '../escaped.txt', body: 'outside\n' },
  absolute: { path: '/tmp/qualification-absolute-entry.txt', body: 'outside\n' },
  symlinkOut: { path: 'package/passwd', type: 'SymbolicLink', linkpath: '../../../etc/passwd' },
};

let scratch: Scratch;
const records = new Map<string, QualificationRecord>();

beforeAll(async () => {
  scratch = await createScratch('tarball');
  await Promise.all(
    Object.entries(HOSTILE).map(async ([name, entry]) => {
      const release = await buildFakeRelease(join(scratch.releases, name), { extraEntries: [entry] });
      // No install happens for these (the tarball is refused first), so the default pnpm is fine.
      records.set(name, await qualifyRelease({ releaseDir: release.dir, tempDir: scratch.work }));
    }),
  );
});

afterAll(async () => {
  await scratch.remove();
});

describe.each([
  ['a ../ entry', 'dotDot', '../escaped.txt', ['entry_path_traversal', 'entry_outside_package']],
  [
    'an absolute path',
    'absolute',
    '/tmp/qualification-absolute-entry.txt',
    ['entry_path_absolute', 'entry_outside_package'],
  ],
  ['a symlink leaving the tree', 'symlinkOut', 'package/passwd', ['link_target_escapes']],
])('when the tarball has %s', (_label, name, entry, expectedCodes) => {
  it('fails tarball-extract naming the entry', () => {
    const record = records.get(name)!;
    expect(codes(record, 'tarball-extract')).toEqual(expectedCodes);
    for (const issue of check(record, 'tarball-extract').issues!) expect(issue.entry).toBe(entry);
  });

  it('installs and runs nothing from it: every later package check is skipped', () => {
    const record = records.get(name)!;
    for (const id of ['package-manifest', 'consumer-install', 'consumer-probe', 'negotiation'] as const) {
      expect(check(record, id).status, id).toBe('skipped');
    }
    expect(check(record, 'consumer-install').detail).toMatch(/tarball-extract/);
    expect(record.qualified).toBe(false);
  });
});

it('writes nothing outside the work directory and leaves none behind', async () => {
  await expect(lstat('/tmp/qualification-absolute-entry.txt')).rejects.toThrow();
  await expect(lstat(join(scratch.work, '..', 'escaped.txt'))).rejects.toThrow();
  expect(await scratch.leftovers()).toEqual([]);
});

const entry = (path: string, extra: Partial<TarballEntry> = {}): TarballEntry => ({
  path,
  type: 'File',
  size: 1,
  ...extra,
});

describe('tarballEntriesIssues', () => {
  it('accepts an npm-packed layout, with directories and links that stay inside', () => {
    expect(
      tarballEntriesIssues([
        entry('package/', { type: 'Directory', size: 0 }),
        entry('package/package.json'),
        entry('package/dist/index.js', { mode: 0o755 }),
        entry('package/dist/alias.js', { type: 'SymbolicLink', linkpath: 'index.js', size: 0 }),
        entry('package/dist/hard.js', { type: 'Link', linkpath: 'package/dist/index.js', size: 0 }),
      ]),
    ).toEqual([]);
  });

  it.each([
    ['CharacterDevice', 'entry_special_file'],
    ['BlockDevice', 'entry_special_file'],
    ['FIFO', 'entry_special_file'],
    ['SparseFile', 'entry_type_unsupported'],
  ])('refuses a %s entry', (type, code) => {
    expect(tarballEntriesIssues([entry('package/x', { type, size: 0 })]).map((i) => i.code)).toEqual([code]);
  });

  it('refuses entries outside package/, including a bare file named package', () => {
    const issues = tarballEntriesIssues([entry('other/index.js'), entry('index.js'), entry('package')]);
    expect(issues.map((i) => [i.code, i.entry])).toEqual([
      ['entry_outside_package', 'other/index.js'],
      ['entry_outside_package', 'index.js'],
      ['entry_outside_package', 'package'],
    ]);
  });

  it('refuses hard links leaving the tree or to no earlier file', () => {
    const issues = tarballEntriesIssues([
      entry('package/a', { type: 'Link', linkpath: '/etc/passwd', size: 0 }),
      entry('package/b', { type: 'Link', linkpath: 'package/../../x', size: 0 }),
      entry('package/c', { type: 'Link', linkpath: 'package/later', size: 0 }),
      entry('package/later'),
    ]);
    expect(issues.map((i) => [i.code, i.entry])).toEqual([
      ['link_target_escapes', 'package/a'],
      ['link_target_escapes', 'package/b'],
      ['link_target_unknown', 'package/c'],
    ]);
  });

  it('refuses absolute symlink targets and writes through a symlink', () => {
    const issues = tarballEntriesIssues([
      entry('package/abs', { type: 'SymbolicLink', linkpath: '/etc', size: 0 }),
      entry('package/dir', { type: 'SymbolicLink', linkpath: 'dist', size: 0 }),
      entry('package/dir/file.js'),
    ]);
    expect(issues.map((i) => [i.code, i.entry])).toEqual([
      ['link_target_escapes', 'package/abs'],
      ['entry_through_symlink', 'package/dir/file.js'],
    ]);
  });

  it('refuses duplicates, odd paths and setuid modes', () => {
    const issues = tarballEntriesIssues([
      entry('package/a.js'),
      entry('package/a.js'),
      entry('package/./b.js'),
      entry('package//c.js'),
      entry('package/d\\e.js'),
      entry('package/run', { mode: 0o4755 }),
    ]);
    expect(issues.map((i) => i.code)).toEqual([
      'entry_duplicate',
      'entry_path_not_normal',
      'entry_path_not_normal',
      'entry_path_not_normal',
      'entry_mode_special',
    ]);
  });

  it('refuses an entry over the size limit, and a total over the total limit', () => {
    const limits = { ...DEFAULT_TARBALL_LIMITS, maxEntryBytes: 100, maxTotalBytes: 150, maxEntries: 10 };
    const issues = tarballEntriesIssues(
      [entry('package/big', { size: 101 }), entry('package/a', { size: 60 })],
      limits,
    );
    expect(issues.map((i) => [i.code, i.entry ?? null])).toEqual([
      ['entry_too_large', 'package/big'],
      ['tarball_too_large', null],
    ]);
  });

  it('refuses too many entries', () => {
    const entries = Array.from({ length: 4 }, (_, index) => entry(`package/${index}`));
    expect(
      tarballEntriesIssues(entries, { ...DEFAULT_TARBALL_LIMITS, maxEntries: 3 }).map((i) => i.code),
    ).toEqual(['tarball_too_many_entries']);
  });

  it('lists every offending entry, not the first', () => {
    const issues = tarballEntriesIssues([
      entry('../a'),
      entry('package/ok.js'),
      entry('/b'),
      entry('package/f', { type: 'FIFO', size: 0 }),
    ]);
    expect(new Set(issues.map((i) => i.entry))).toEqual(new Set(['../a', '/b', 'package/f']));
  });
});

describe('scanTarball and extractTarball', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(scratch.releases, '..', 'scan-'));
  });

  it('extracts a clean tarball into package/', async () => {
    const tarball = join(dir, 'clean.tgz');
    await writeFile(
      tarball,
      craftTarball([
        { path: 'package/package.json', body: '{"name":"x"}' },
        { path: 'package/dist/index.js', body: 'export {};\n' },
        { path: 'package/dist/alias.js', type: 'SymbolicLink', linkpath: 'index.js' },
      ]),
    );
    const destination = join(dir, 'clean');
    await mkdir(destination, { mode: 0o700 });
    const extraction = await extractTarball(tarball, destination);
    expect(extraction.issues).toEqual([]);
    expect(extraction.packageDir).toBe(join(destination, 'package'));
    expect(await readFile(join(destination, 'package/dist/index.js'), 'utf8')).toBe('export {};\n');
    expect((await lstat(join(destination, 'package/dist/alias.js'))).isSymbolicLink()).toBe(true);
    expect(await readdir(destination)).toEqual(['package']);
  });

  it('extracts nothing at all from a tarball with one bad entry', async () => {
    const tarball = join(dir, 'bad.tgz');
    await writeFile(
      tarball,
      craftTarball([
        { path: 'package/package.json', body: '{}' },
        { path: 'package/../../x', body: 'x' },
      ]),
    );
    const destination = join(dir, 'bad');
    await mkdir(destination, { mode: 0o700 });
    const extraction = await extractTarball(tarball, destination);
    expect(extraction.packageDir).toBeNull();
    expect(extraction.issues.map((i) => i.code)).toContain('entry_path_traversal');
    expect(await readdir(destination)).toEqual([]);
  });

  it('reports a file that is not a tarball as tarball_unreadable', async () => {
    const file = join(dir, 'not-a.tgz');
    await writeFile(file, Buffer.from('\x1f\x8b this is not gzip data at all'));
    const scan = await scanTarball(file);
    expect(scan.issues.map((i) => i.code)).toContain('tarball_unreadable');
  });

  it('reports a truncated tarball as tarball_unreadable', async () => {
    const whole = craftTarball([{ path: 'package/big.js', body: 'x'.repeat(100_000) }]);
    const file = join(dir, 'truncated.tgz');
    await writeFile(file, whole.subarray(0, Math.floor(whole.byteLength / 2)));
    const scan = await scanTarball(file);
    expect(scan.issues.map((i) => i.code)).toContain('tarball_unreadable');
  });
  // The file is read through node's one streaming reader (regularFileChunks), never createReadStream:
  // a FIFO swapped in for the tarball is refused at once (the old reader waited on it for ever), and
  // the file itself is bounded by maxArchiveBytes.
  it('refuses a FIFO at the tarball path at once (EINVAL), never waiting for a writer', async () => {
    const fifo = join(dir, 'fifo.tgz');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const scan = await Promise.race([
      scanTarball(fifo),
      new Promise<'hung'>((resolve) => {
        setTimeout(() => {
          resolve('hung');
        }, 5_000).unref();
      }),
    ]);
    expect(scan).not.toBe('hung');
    expect(scan === 'hung' ? [] : scan.issues).toContainEqual(
      expect.objectContaining({ code: 'tarball_unreadable', received: 'EINVAL' }),
    );
  });

  it('refuses a tarball file over maxArchiveBytes as tarball_too_large, before gunzip sees it', async () => {
    const file = join(dir, 'large-file.tgz');
    // Random bytes do not compress: the file is larger than the limit the tar stream is far from.
    const body = randomBytes(200_000).toString('base64');
    await writeFile(file, craftTarball([{ path: 'package/big.js', body }]));
    const limits = { ...DEFAULT_TARBALL_LIMITS, maxArchiveBytes: 100_000 };
    const scan = await scanTarball(file, limits);
    expect(scan.issues).toContainEqual(
      expect.objectContaining({
        code: 'tarball_too_large',
        expected: 'a file of at most 100000 bytes',
        message: expect.stringContaining('by its size: not read') as unknown,
      }),
    );
  });
});
