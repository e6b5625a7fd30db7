// digestContainedFile, the one reader behind every artifact-reference check: a path under the root
// never leads out of it — not through a link to a directory, a link to a file, a `..` chain or a
// link to a link — and a directory swapped for a link while it is being read never yields the
// outside file's digest. checkContainedReference, the one check on top (ingest's --artifact-root,
// qualification's eval-session files): verified only when digest and size both match.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { checkContainedReference, digestContainedFile } from '../src/contained-file.ts';

let dir: string;
let root: string;
const SECRET = 'outside the root\n';
const SECRET_DIGEST = `sha256:${createHash('sha256').update(SECRET).digest('hex')}`;
const INSIDE = 'inside the root\n';
const INSIDE_DIGEST = `sha256:${createHash('sha256').update(INSIDE).digest('hex')}`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'contained-file-test-'));
  root = join(dir, 'root');
  mkdirSync(join(root, 'real', 'deep'), { recursive: true });
  mkdirSync(join(dir, 'outside', 'deep'), { recursive: true });
  writeFileSync(join(dir, 'outside', 'secret.txt'), SECRET);
  writeFileSync(join(root, 'real', 'file.txt'), INSIDE);
  symlinkSync('../outside', join(root, 'dir-link')); // a directory link leading out
  symlinkSync('../outside/secret.txt', join(root, 'file-link')); // a file link leading out
  symlinkSync('link-2', join(root, 'link-1')); // a link to a link to a directory outside
  symlinkSync('../outside', join(root, 'link-2'));
  symlinkSync('../outside/deep', join(root, 'dot-dot')); // dot-dot/.. is outside/, not root/
  symlinkSync('real', join(root, 'alias')); // a link that stays inside: refused all the same
  mkdirSync(join(root, 'fifo-dir'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('digestContainedFile', () => {
  it('digests a plain file under the root', async () => {
    expect(await digestContainedFile(root, 'real/file.txt')).toMatchObject({
      kind: 'file',
      digest: INSIDE_DIGEST,
      byteSize: INSIDE.length,
    });
  });

  it.each([0, 1, 4096, 1024 * 1024 - 1, 1024 * 1024, 1024 * 1024 + 1, 3 * 1024 * 1024 + 5])(
    'digests every byte of a %i-byte file (one synchronous read up to 1 MiB, chunks beyond)',
    async (size) => {
      const bytes = Buffer.alloc(size);
      for (let index = 0; index < size; index += 997) bytes[index] = index % 251;
      writeFileSync(join(root, 'real', `sized-${size}.bin`), bytes);
      expect(await digestContainedFile(root, `real/sized-${size}.bin`)).toEqual({
        kind: 'file',
        path: join(root, 'real', `sized-${size}.bin`),
        digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
        byteSize: size,
      });
    },
  );

  it('says absent for a file that is not there (or under a file)', async () => {
    expect((await digestContainedFile(root, 'real/none.txt')).kind).toBe('absent');
    expect((await digestContainedFile(root, 'real/file.txt/below')).kind).toBe('absent');
  });

  it.each([
    [
      'a symlinked directory pointing outside',
      'dir-link/secret.txt',
      'symlink',
      /dir-link is a symbolic link .*leads outside the root/,
    ],
    [
      'a symlinked file pointing outside',
      'file-link',
      'symlink',
      /file-link is a symbolic link .*leads outside the root/,
    ],
    ['a link to a link', 'link-1/secret.txt', 'symlink', /link-1 is a symbolic link to "link-2"/],
    [
      'a `..` chain through a link (the OS resolves dot-dot/.. outside)',
      'dot-dot/../secret.txt',
      'outside_root',
      /not a plain path/,
    ],
    ['a `..` chain out of the root', 'real/../../outside/secret.txt', 'outside_root', /not a plain path/],
    ['an absolute path', '/etc/passwd', 'outside_root', /not a plain path/],
    ['an empty path', '', 'outside_root', /not a plain path/],
    [
      'a link that stays inside',
      'alias/file.txt',
      'symlink',
      /alias is a symbolic link to "real" \(inside the root\)/,
    ],
    ['a directory', 'real', 'not_a_file', /is a directory, not a regular file/],
  ])('refuses %s', async (_what, path, reason, says) => {
    const found = await digestContainedFile(root, path);
    expect(found).toMatchObject({ kind: 'refused', reason });
    expect(found.kind === 'refused' && found.message).toMatch(says);
    expect(JSON.stringify(found)).not.toContain(SECRET_DIGEST);
  });

  it('refuses a FIFO without blocking on it', async () => {
    const fifo = join(root, 'fifo-dir', 'pipe');
    if (spawnSync('mkfifo', [fifo]).status === 0)
      expect(await digestContainedFile(root, 'fifo-dir/pipe')).toMatchObject({
        kind: 'refused',
        reason: 'not_a_file',
      });
  });

  it('refuses a path the file system will not open as unreadable, naming the errno (never a throw)', async () => {
    expect(await digestContainedFile(root, `real/${'n'.repeat(300)}`)).toMatchObject({
      kind: 'refused',
      reason: 'unreadable',
      message: expect.stringContaining('(ENAMETOOLONG)') as unknown,
    });
  });

  it('never digests the outside file while a directory keeps being swapped for a link to it', async () => {
    // root/swap is, in turn, a real directory (its secret.txt holds inside content) and a link to outside/.
    const at = join(root, 'swap');
    mkdirSync(at);
    writeFileSync(join(at, 'secret.txt'), INSIDE);
    symlinkSync(join(dir, 'outside'), join(dir, 'parked-link'));
    const racer = spawn(process.execPath, [
      '-e',
      `const fs = require('node:fs'); const at = ${JSON.stringify(at)};
       const link = ${JSON.stringify(join(dir, 'parked-link'))}, real = ${JSON.stringify(join(dir, 'parked-real'))};
       process.stdout.write('swapping');
       for (;;) { try { fs.renameSync(at, real); fs.renameSync(link, at); fs.renameSync(at, link); fs.renameSync(real, at); } catch {} }`,
    ]);
    try {
      // Not before the racer swaps (its start can take seconds on a loaded machine), and at least
      // 2,000 rounds, then on until a round met the link (the race was really run against it) —
      // within a bound, so a racer that never gets a core fails the test instead of hanging it.
      await new Promise((resolve, reject) => {
        racer.stdout.once('data', resolve);
        racer.once('exit', (code) => {
          reject(new Error(`the racer exited (${String(code)}) before it swapped`));
        });
      });
      const seen = new Set<string>();
      const until = Date.now() + 60_000;
      for (let round = 0; round < 2000 || (!seen.has('symlink') && Date.now() < until); round++) {
        const found = await digestContainedFile(root, 'swap/secret.txt');
        seen.add(found.kind === 'file' ? 'file' : found.kind === 'refused' ? found.reason : found.kind);
        expect(found.kind === 'file' ? found.digest : INSIDE_DIGEST).toBe(INSIDE_DIGEST);
      }
      expect(seen.has('symlink')).toBe(true); // the race was really run against the link
    } finally {
      racer.kill('SIGKILL');
    }
  });
});

describe('checkContainedReference', () => {
  const size = INSIDE.length;
  it.each([
    ['both match', INSIDE_DIGEST, size, 'verified', []],
    ['the digest differs', SECRET_DIGEST, size, 'mismatched', ['sha256']],
    ['the size differs', INSIDE_DIGEST, size + 1, 'mismatched', ['byteSize']],
    ['both differ', SECRET_DIGEST, size + 1, 'mismatched', ['sha256', 'byteSize']],
  ] as const)('is %s → %s', async (_name, sha256, byteSize, kind, mismatches) => {
    expect(await checkContainedReference(root, 'real/file.txt', { sha256, byteSize })).toMatchObject({
      kind,
      digest: INSIDE_DIGEST,
      byteSize: size,
      mismatches,
    });
  });

  // Size before digest: a file larger than the reference states is mismatched on its size, by the
  // open descriptor's, and never read or hashed (size-before-read.test.ts: an 8 GiB one).
  it.each([
    ['the digest matches', INSIDE_DIGEST],
    ['the digest differs too', SECRET_DIGEST],
  ] as const)(
    'is mismatched on byteSize alone, unread, for a file larger than stated (%s)',
    async (_name, sha256) => {
      expect(await checkContainedReference(root, 'real/file.txt', { sha256, byteSize: size - 1 })).toEqual({
        kind: 'mismatched',
        path: join(root, 'real', 'file.txt'),
        digest: null,
        byteSize: size,
        mismatches: ['byteSize'],
      });
    },
  );

  it('is absent or refused exactly as the reader says, and never reads a file outside the root', async () => {
    const expected = { sha256: SECRET_DIGEST, byteSize: SECRET.length };
    expect(await checkContainedReference(root, 'real/none.txt', expected)).toMatchObject({ kind: 'absent' });
    const refused = await checkContainedReference(root, 'file-link', expected);
    expect(refused).toMatchObject({ kind: 'refused', reason: 'symlink' });
    expect(JSON.stringify(refused)).not.toContain(SECRET_DIGEST);
    expect(await checkContainedReference(root, '../outside/secret.txt', expected)).toMatchObject({
      kind: 'refused',
      reason: 'outside_root',
    });
  });
});
