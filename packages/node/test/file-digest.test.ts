// The digest of a file, streamed: a multi-megabyte file, an empty one, and a missing one (the fs error).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { sha256Digest } from '@paperclip-evals/contract';

import { digestFile, regularFileChunks } from '../src/file-digest.ts';

const EMPTY = 'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

describe('digestFile', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paperclip-digest-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('digests a multi-megabyte file to the digest of its bytes and reports its size', async () => {
    const bytes = randomBytes(5 * 1024 * 1024 + 17);
    const file = join(dir, 'large.bin');
    await writeFile(file, bytes);

    await expect(digestFile(file)).resolves.toEqual({
      digest: sha256Digest(bytes),
      byteSize: bytes.byteLength,
    });
  });

  it('digests an empty file', async () => {
    const file = join(dir, 'empty.bin');
    await writeFile(file, '');

    await expect(digestFile(file)).resolves.toEqual({ digest: EMPTY, byteSize: 0 });
  });

  it('rejects for a missing file', async () => {
    await expect(digestFile(join(dir, 'missing.bin'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('regularFileChunks: every byte up to maxBytes, then EFBIG (reading stopped there)', async () => {
    const bytes = randomBytes(200_000);
    const file = join(dir, 'bounded.bin');
    await writeFile(file, bytes);
    const read = async (maxBytes: number): Promise<Buffer> => {
      const chunks: Buffer[] = [];
      for await (const chunk of regularFileChunks(file, { maxBytes })) chunks.push(chunk);
      return Buffer.concat(chunks);
    };
    expect((await read(200_000)).equals(bytes)).toBe(true);
    await expect(read(199_999)).rejects.toMatchObject({ code: 'EFBIG', path: file });
  });
});
