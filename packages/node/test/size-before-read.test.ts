// Size before digest: every reader of a file a user or a bundle names compares the file's size
// with its cap on the open descriptor before it reads or hashes a byte, and never reads past a
// byte more than the cap, however the file grows meanwhile. A sparse 8 GiB file (ftruncate: no
// disk) is refused by each reader with its own size code, and the bytes this process read while
// it was refused (/proc/self/io rchar) stay far below what reading it would cost.
import fs from 'node:fs';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open, truncate } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { readAttemptFile } from '../src/attempt-input.ts';
import { checkContainedReference } from '../src/contained-file.ts';
import { digestFile, regularFileChunks } from '../src/file-digest.ts';
import { readJsonDocument } from '../src/json-file.ts';
import { readNativeExecutionFile, readRegularFile } from '../src/native-execution-input.ts';
import { stageVerifiedExecutable } from '../src/staged-executable.ts';

import { removeCases, sha256, writeCase } from './support/eval-session-case.ts';

const GIB = 1024 * 1024 * 1024;
const MIB = 1024 * 1024;
/** Far more than any refusal reads (a few KiB), far less than the 8 GiB a read would. */
const READ_BOUND = 64 * MIB;
const CAP = 1024;

let dir: string;
let big: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'size-before-read-'));
  mkdirSync(join(dir, 'root'));
  big = join(dir, 'root', 'big.bin');
  writeFileSync(big, '');
  await truncate(big, 8 * GIB); // sparse: no block of it is on disk
  chmodSync(big, 0o755);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  removeCases();
});
afterEach(() => {
  vi.restoreAllMocks();
  syncBuiltinESMExports();
});

/** Bytes this process has read through read(2) and friends so far (Linux /proc/self/io). */
function bytesReadSoFar(): number {
  const line = /^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'));
  if (line === null) throw new Error('/proc/self/io has no rchar line');
  return Number(line[1]);
}

async function outcome(run: () => Promise<unknown>): Promise<unknown> {
  try {
    return await run();
  } catch (error) {
    return error;
  }
}

describe('a file over its cap is refused by its size, before a byte of it is read or hashed', () => {
  it.each([
    [
      'checkContainedReference (ingest --artifact-root, qualification eval-session files)',
      () => checkContainedReference(join(dir, 'root'), 'big.bin', { sha256: sha256(''), byteSize: CAP }),
      { kind: 'mismatched', digest: null, byteSize: 8 * GIB, mismatches: ['byteSize'] },
    ],
    [
      "readAttemptFile (an eval-session artifact's bundle)",
      async () => {
        const { dir: folder, artifactPath } = writeCase();
        await truncate(join(folder, 'attempt', 'native-execution.json'), 8 * GIB);
        return readAttemptFile(artifactPath);
      },
      {
        code: 'paperclip_eval_session_artifact_invalid',
        issues: [expect.objectContaining({ code: 'native_bundle_size_mismatch', received: 8 * GIB })],
      },
    ],
    [
      'readNativeExecutionFile (bundle inputs: validate, ingest)',
      () => readNativeExecutionFile(big, { maxBytes: CAP }),
      {
        issues: [
          expect.objectContaining({ code: 'input_too_large', received: `${8 * GIB} bytes (not read)` }),
        ],
      },
    ],
    [
      'readRegularFile with maxBytes (SHA256SUMS, the policy bundle)',
      () => readRegularFile(big, { maxBytes: CAP }),
      { issues: [expect.objectContaining({ code: 'input_too_large' })] },
    ],
    [
      'regularFileChunks with maxBytes (the tarball)',
      async () => {
        for await (const _chunk of regularFileChunks(big, { maxBytes: CAP })) return 'read';
        return 'nothing';
      },
      { code: 'EFBIG', message: expect.stringContaining('not read') as unknown },
    ],
    [
      'digestFile with maxBytes',
      () => digestFile(big, { maxBytes: CAP }),
      { code: 'EFBIG', message: expect.stringContaining('not read') as unknown },
    ],
    [
      'readJsonDocument (negotiate, digest --canonical)',
      () => readJsonDocument(big, 'test document'),
      {
        code: 'paperclip_contract_document_invalid',
        issues: [
          expect.objectContaining({ code: 'input_too_large', received: `${8 * GIB} bytes (not read)` }),
        ],
      },
    ],
    [
      'stageVerifiedExecutable (runnerd, the policy producer)',
      () =>
        stageVerifiedExecutable({
          executablePath: big,
          expectedSha256: sha256(''),
          stagingDirPrefix: 'size-before-read-stage-',
          maxExecutableBytes: CAP,
        }),
      { issues: [expect.objectContaining({ code: 'file_too_large' })] },
    ],
  ] as const)('%s', async (_reader, run, refusal) => {
    const before = bytesReadSoFar();
    const result = await outcome(run);
    const read = bytesReadSoFar() - before;
    expect(result).toMatchObject(refusal);
    expect(read).toBeLessThan(READ_BOUND);
  });
});

describe('a file that grows past its cap after its size was taken is read a byte past the cap, no more', () => {
  /** The size fstat will say: what the file had when it was compared, before it grew. */
  function fstatSays(size: number): void {
    const real = fs.fstatSync;
    vi.spyOn(fs, 'fstatSync').mockImplementation((fd: number) => Object.assign(real(fd), { size }));
    syncBuiltinESMExports();
  }

  it.each([
    ['one synchronous read', CAP],
    ['chunks through the thread pool', 2 * MIB],
  ])(
    'checkContainedReference stops at the stated size + 1 and hashes none of it (%s)',
    async (_how, stated) => {
      const grown = join(dir, 'root', 'grown.bin');
      writeFileSync(grown, Buffer.alloc(5 * MIB, 7));
      fstatSays(stated);
      const readSync = vi.spyOn(fs, 'readSync');
      const read = vi.spyOn(fs, 'read');
      syncBuiltinESMExports();
      expect(
        await checkContainedReference(join(dir, 'root'), 'grown.bin', {
          sha256: sha256(''),
          byteSize: stated,
        }),
      ).toMatchObject({ kind: 'mismatched', digest: null, byteSize: stated + 1, mismatches: ['byteSize'] });
      const asked = [...readSync.mock.calls, ...read.mock.calls].reduce(
        (sum, call) => sum + Number((call as unknown[])[3]),
        0,
      );
      expect(asked).toBe(stated + 1);
    },
  );

  it('regularFileChunks asks for no more than maxBytes + 1 in all', async () => {
    const grown = join(dir, 'grown-stream.bin');
    writeFileSync(grown, Buffer.alloc(3 * MIB, 7));
    const probe = await open(grown, 'r');
    const proto = Object.getPrototypeOf(probe) as { stat: typeof probe.stat; read: typeof probe.read };
    await probe.close();
    const realStat = proto.stat;
    vi.spyOn(proto, 'stat').mockImplementation(async function (this: typeof probe) {
      return Object.assign(await realStat.call(this), { size: CAP });
    });
    const reads = vi.spyOn(proto, 'read');
    let yielded = 0;
    const refused = await outcome(async () => {
      for await (const chunk of regularFileChunks(grown, { maxBytes: CAP })) yielded += chunk.byteLength;
    });
    expect(refused).toMatchObject({
      code: 'EFBIG',
      message: expect.stringContaining('reading stopped') as unknown,
    });
    expect(yielded).toBeLessThanOrEqual(CAP);
    const asked = reads.mock.calls.reduce((sum, call) => sum + Number((call as unknown[])[2]), 0);
    expect(asked).toBe(CAP + 1);
  });
});
