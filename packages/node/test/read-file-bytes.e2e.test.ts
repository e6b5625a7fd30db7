// A FIFO put where a bundle was listed (named on the command line, or swapped in after the
// directory walk) must not hang validate or ingest: readFileBytes opens non-blocking and refuses
// anything but a regular file before a read. (e2e: mkfifo is a child process.)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { readBundles } from '../src/bundle-reads.ts';
import { readFileBytes } from '../src/native-execution-input.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'node-read-fifo-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('readFileBytes on a FIFO', () => {
  it('refuses it at once, never waiting for a writer', async () => {
    const fifo = join(dir, 'attempt.json');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    await expect(readFileBytes(fifo)).rejects.toMatchObject({
      code: 'EINVAL',
      message: /not a regular file/,
    });
    // As the read loop classifies it when the expander listed it as a file.
    const reads = [];
    for await (const read of readBundles([{ display: 'attempt.json', path: fifo }])) reads.push(read);
    expect(reads).toMatchObject([
      { status: 'unreadable', error: expect.stringMatching(/not a regular file/) as unknown },
    ]);
  }, 10_000);
});
