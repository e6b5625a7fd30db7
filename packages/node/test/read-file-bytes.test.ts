// readFileBytes / readFileBytesSync, the one file reader under validate and ingest: a file's exact
// bytes whatever its size (a read asks for one byte more than the size, so a file that grew is read
// on to its end), refused by its size before any read when over the limit, and anything that is no
// regular file refused before a read.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { readFileBytes, readFileBytesSync } from '../src/native-execution-input.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'node-read-file-bytes-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('readFileBytesSync', () => {
  it("gives a file's exact bytes, at and under the limit; over it, input_too_large before a read (property)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 70_000 }), fc.integer({ min: -3, max: 3 }), (bytes, slack) => {
        const path = join(dir, 'bundle.json');
        writeFileSync(path, bytes);
        const maxBytes = Math.max(0, bytes.byteLength + slack);
        if (bytes.byteLength <= maxBytes)
          expect(Buffer.compare(readFileBytesSync(path, { maxBytes }), Buffer.from(bytes))).toBe(0);
        else
          expect(() => readFileBytesSync(path, { maxBytes })).toThrow(
            expect.objectContaining({
              issues: [
                expect.objectContaining({
                  code: 'input_too_large',
                  received: `${bytes.byteLength} bytes (not read)`,
                }),
              ],
            }),
          );
      }),
      { numRuns: 60 },
    );
  });

  it('refuses a directory named as a file as no regular file (EINVAL), as readFileBytes does', async () => {
    expect(() => readFileBytesSync(dir)).toThrow(
      expect.objectContaining({ code: 'EINVAL', syscall: 'open' }),
    );
    await expect(readFileBytes(dir)).rejects.toMatchObject({ code: 'EINVAL', message: /not a regular file/ });
  });

  it('rejects a missing file with the fs error', async () => {
    await expect(readFileBytes(join(dir, 'missing.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
