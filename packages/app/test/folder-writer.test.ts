// The folder writer of `evals publish` (folder-writer.ts): each file created exclusively and
// recorded for the manifest from the bytes written; the packed entries (a path, a 32-byte sha256 and
// a size each, in one growing buffer) give back exactly the entries written, across batches and
// across a structured clone (a page worker's), in the order written.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { FolderWriter, ManifestEntries } from '../src/site/folder-writer.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'app-folder-writer-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();

describe('the folder writer', () => {
  it('creates each file once, with the bytes given, and records its sha256 and size', async () => {
    const writer = new FolderWriter(dir);
    writer.write('attempts/a.html', 'é page');
    writer.write('index.html', new Uint8Array([60, 62]));
    expect(await readFile(join(dir, 'attempts/a.html'), 'utf8')).toBe('é page');
    expect(() => {
      writer.write('index.html', 'again');
    }).toThrow(/EEXIST/);
    expect(writer.entries.toEntries()).toEqual([
      {
        path: 'attempts/a.html',
        sha256: `sha256:${sha256('é page').toString('hex')}`,
        size: Buffer.byteLength('é page'),
      },
      { path: 'index.html', sha256: `sha256:${sha256('<>').toString('hex')}`, size: 2 },
    ]);
  });
});

describe('packed manifest entries', () => {
  it('give back every entry in order, past the first buffer, across batches and a structured clone', () => {
    const expected = Array.from({ length: 2500 }, (_, index) => ({
      path: `attempts/p${index}.html`,
      sha256: `sha256:${sha256(String(index)).toString('hex')}`,
      size: index * 7,
    }));
    const worker = new ManifestEntries();
    const main = new ManifestEntries();
    for (const [index, entry] of expected.entries()) {
      const target = index < 1000 ? main : worker;
      target.add(entry.path, sha256(String(index)), entry.size);
      // A worker posts a batch every 700 entries, as it would (structuredClone: what postMessage does).
      if (target === worker && worker.length === 700) main.append(structuredClone(worker.take()));
    }
    expect(worker.length).toBe(1500 % 700);
    main.append(structuredClone(worker.take()));
    expect(worker.length).toBe(0);
    expect(main.length).toBe(2500);
    expect(main.toEntries()).toEqual(expected);
  });
});
