// The input expander reports every directory entry it does not read as refused with a code, never
// drops it: a symlinked folder or file (whatever its name), a FIFO, a socket. Regular files that are
// not *.json are no input; *.json files are read. (An e2e file: mkfifo is a process.)
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { expandBundleInputs } from '../src/bundle-inputs.ts';

import type { BundleInput } from '../src/bundle-inputs.ts';
import type { Server } from 'node:net';

let dir: string;
let server: Server;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'evals-bundle-inputs-'));
  const target = join(dir, 'target');
  mkdirSync(join(target, 'nested'), { recursive: true });
  writeFileSync(join(target, 'a.json'), '{}');
  const d = join(dir, 'd');
  mkdirSync(d);
  writeFileSync(join(d, 'read.json'), '{}');
  writeFileSync(join(d, 'notes.txt'), 'not an input');
  symlinkSync(target, join(d, 'subdirlink'));
  symlinkSync(join(target, 'a.json'), join(d, 'filelink.json'));
  symlinkSync(join(target, 'a.json'), join(d, 'filelink'));
  expect(spawnSync('mkfifo', [join(d, 'pipe')]).status).toBe(0);
  expect(spawnSync('mkfifo', [join(d, 'pipe.json')]).status).toBe(0);
  server = createServer();
  await new Promise<void>((resolve) => server.listen(join(d, 'sock'), resolve));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

async function expanded(inputs: readonly string[]): Promise<BundleInput[]> {
  const found: BundleInput[] = [];
  for await (const input of expandBundleInputs(inputs)) found.push(input);
  return found;
}

const TABLE: readonly (readonly [string, string | undefined])[] = [
  ['read.json', undefined],
  ['subdirlink', 'input_symlink_in_directory'],
  ['filelink.json', 'input_symlink_in_directory'],
  ['filelink', 'input_symlink_in_directory'],
  ['pipe', 'input_not_regular_file'],
  ['pipe.json', 'input_not_regular_file'],
  ['sock', 'input_not_regular_file'],
];

describe.each([
  ['a directory', () => join(dir, 'd')],
  ['a glob', () => `${join(dir, 'd')}/**/*`],
])('when %s holds entries of every kind', (_what, input) => {
  it.each(TABLE)('%s is read or refused with %s, never dropped', async (name, code) => {
    const found = (await expanded([input()])).find((entry) => entry.display.endsWith(`/${name}`));
    if (name === 'read.json' || code === undefined) {
      expect(found).toMatchObject({ path: join(dir, 'd', name) });
      expect(found?.refused).toBeUndefined();
    } else expect(found).toMatchObject({ refusedCode: code, refused: expect.any(String) as unknown });
  });

  it('a regular file that is not *.json is no input', async () => {
    const displays = (await expanded([input()])).map((entry) => entry.display);
    if (input().endsWith('*')) expect(displays.some((shown) => shown.endsWith('notes.txt'))).toBe(true);
    else expect(displays.some((shown) => shown.endsWith('notes.txt'))).toBe(false);
  });
});

// A glob names only the entries its pattern matches: every kind of entry, matching and not, under
// patterns that read one folder (`*.json` never recurses), recurse (`**`) or match nothing. A
// non-matching symlink or FIFO is no input; a matching one is refused with its code.
describe('a glob considers only the entries its pattern matches', () => {
  let k: string;
  beforeAll(() => {
    k = join(dir, 'k');
    mkdirSync(join(k, 'sub'), { recursive: true });
    writeFileSync(join(k, 'a.json'), '{}');
    writeFileSync(join(k, 'b.txt'), 'x');
    writeFileSync(join(k, 'sub', 'c.json'), '{}');
    symlinkSync(join(k, 'a.json'), join(k, 'lf.json'));
    symlinkSync(join(k, 'a.json'), join(k, 'lf.txt'));
    symlinkSync(join(k, 'sub'), join(k, 'ld.json'));
    symlinkSync(join(k, 'sub'), join(k, 'ld'));
    expect(spawnSync('mkfifo', [join(k, 'p.json')]).status).toBe(0);
    expect(spawnSync('mkfifo', [join(k, 'p.txt')]).status).toBe(0);
  });

  // Every entry of k, its kind; each pattern's expected inputs (name → code, undefined = read).
  const READ = undefined;
  const LINK = 'input_symlink_in_directory';
  const FIFO = 'input_not_regular_file';
  const CASES: readonly (readonly [string, Record<string, string | undefined>])[] = [
    ['*.json', { 'a.json': READ, 'ld.json': LINK, 'lf.json': LINK, 'p.json': FIFO }],
    ['*.txt', { 'b.txt': READ, 'lf.txt': LINK, 'p.txt': FIFO }],
    ['**/*.json', { 'a.json': READ, 'ld.json': LINK, 'lf.json': LINK, 'p.json': FIFO, 'sub/c.json': READ }],
    ['sub/*.json', { 'sub/c.json': READ }],
    ['*/c.json', { 'sub/c.json': READ }],
    ['l?', { ld: LINK }],
    ['a.*', { 'a.json': READ }],
    ['zzz*.json', {}],
    ['s?b', {}],
  ];

  it.each(CASES)('%s: exactly its matches, each read or refused by kind', async (pattern, expected) => {
    const found = await expanded([`${k}/${pattern}`]);
    if (Object.keys(expected).length === 0) {
      expect(found).toEqual([
        {
          display: `${k}/${pattern}`,
          path: join(k, pattern),
          refused: expect.any(String) as unknown,
          refusedCode: 'input_no_match',
        },
      ]);
      return;
    }
    const got = Object.fromEntries(
      found.map((entry) => [entry.display.slice(k.length + 1), entry.refusedCode]),
    );
    expect(got).toEqual(expected);
    for (const entry of found) expect(entry.path).toBe(join(k, entry.display.slice(k.length + 1)));
  });

  it('a directory given explicitly still reads or refuses every entry', async () => {
    const got = Object.fromEntries(
      (await expanded([k])).map((entry) => [entry.display.slice(k.length + 1), entry.refusedCode]),
    );
    expect(got).toEqual({
      'a.json': READ,
      ld: LINK,
      'ld.json': LINK,
      'lf.json': LINK,
      'lf.txt': LINK,
      'p.json': FIFO,
      'p.txt': FIFO,
      'sub/c.json': READ,
    });
  });
});
