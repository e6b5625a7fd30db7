// stageVerifiedExecutable never writes an unverified byte: a file over the size cap is refused
// before it is read (a sparse 3 GB file costs nothing), a wrong digest is refused before the
// staging directory exists, and the bytes staged are the bytes whose digest was compared even
// while another process rewrites the file. The staging folder (TMPDIR) is a small tmpfs when the
// machine lets us mount one, so copying what must not be copied fails loudly (ENOSPC); its usage
// is also sampled while each call runs and must stay at zero.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { chmod, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ContractError } from '@paperclip-evals/contract';

import { DEFAULT_MAX_EXECUTABLE_BYTES, stageVerifiedExecutable } from '../src/staged-executable.ts';
import { sha256Of } from '@paperclip-evals/test-kit/test-executables';
import { useStagingTmpdir } from '@paperclip-evals/test-kit/staging';
import { guardedCounts } from '../src/child-cleanup.ts';

const PREFIX = 'stage-cap-test-';
const GIB = 1024 * 1024 * 1024;
const MIB = 1024 * 1024;

const staging = useStagingTmpdir('stage-size-cap-test-', guardedCounts);
let mounted = false;

beforeAll(() => {
  // 16 MiB of tmpfs: far less than the files below, so a copy of one cannot hide.
  mounted =
    spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=16m,mode=0700', 'tmpfs', staging.stagingParent]).status ===
    0;
});
afterAll(() => {
  if (mounted) spawnSync('umount', [staging.stagingParent]);
});

/** Bytes allocated under `dir` (what was really written, sparse or not). */
function usageOf(dir: string): number {
  let bytes = 0;
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    try {
      bytes += statSync(join(dir, entry)).blocks * 512;
    } catch {
      // removed while we looked
    }
  }
  return bytes;
}

/** Runs `work` while sampling the staging folder's usage; returns the outcome and the peak. */
async function withPeakUsage(work: () => Promise<unknown>): Promise<{ outcome: unknown; peak: number }> {
  let peak = 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, usageOf(staging.stagingParent));
  }, 1);
  try {
    const outcome = await work().catch((error: unknown) => error);
    return { outcome, peak: Math.max(peak, usageOf(staging.stagingParent)) };
  } finally {
    clearInterval(timer);
  }
}

/** A `#!/bin/sh` script made `size` bytes long by a hole (sparse: nothing allocated past its text). */
async function sparseExecutable(name: string, size: number): Promise<string> {
  const path = join(staging.root, name);
  await writeFile(path, '#!/bin/sh\nexit 0\n');
  await truncate(path, size);
  await chmod(path, 0o755);
  return path;
}

function issueOf(outcome: unknown): { code: string; expected?: unknown; received?: unknown } {
  expect(outcome).toBeInstanceOf(ContractError);
  const issues = (outcome as ContractError).issues;
  expect(issues).toHaveLength(1);
  return issues[0] as { code: string };
}

const WRONG = sha256Of('not this file');

describe('stageVerifiedExecutable: the size cap and what is written', () => {
  it('refuses a sparse 3 GB file with a wrong digest as file_too_large, writing nothing', async () => {
    const path = await sparseExecutable('sparse-3g', 3 * GIB);
    const started = Date.now();
    const { outcome, peak } = await withPeakUsage(() =>
      stageVerifiedExecutable({ executablePath: path, expectedSha256: WRONG, stagingDirPrefix: PREFIX }),
    );
    const issue = issueOf(outcome);
    expect(issue.code).toBe('file_too_large');
    expect(issue.expected).toBe(`at most ${DEFAULT_MAX_EXECUTABLE_BYTES} bytes`);
    expect(issue.received).toBe(`${3 * GIB} bytes`);
    expect(peak).toBe(0);
    expect(Date.now() - started).toBeLessThan(2000); // never read, let alone copied
  });

  it('refuses a file under the cap with a wrong digest before anything is written (100 MB, sparse)', async () => {
    const path = await sparseExecutable('sparse-100m', 100 * MIB);
    const { outcome, peak } = await withPeakUsage(() =>
      stageVerifiedExecutable({ executablePath: path, expectedSha256: WRONG, stagingDirPrefix: PREFIX }),
    );
    expect(issueOf(outcome).code).toBe('digest_mismatch');
    expect(peak).toBe(0);
  });

  it('accepts a file of exactly the cap and refuses one byte more (property over sizes and caps)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 0, max: 300 }),
        async (cap, size) => {
          const bytes = Buffer.concat([Buffer.from('#!/bin/sh\n'), Buffer.alloc(300)]).subarray(0, size);
          const path = join(staging.root, 'sized.sh');
          await writeFile(path, bytes);
          await chmod(path, 0o755);
          const outcome = await stageVerifiedExecutable({
            executablePath: path,
            expectedSha256: sha256Of(bytes),
            stagingDirPrefix: PREFIX,
            maxExecutableBytes: cap,
          }).catch((error: unknown) => error);
          if (size <= cap) {
            expect(outcome).not.toBeInstanceOf(Error);
            const staged = outcome as Awaited<ReturnType<typeof stageVerifiedExecutable>>;
            expect(staged.byteSize).toBe(size);
            await staged.dispose();
          } else {
            expect(issueOf(outcome).code).toBe('file_too_large');
          }
          expect(readdirSync(staging.stagingParent)).toEqual([]);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('refuses a cap that is not a positive integer', async () => {
    for (const cap of [0, -1, 1.5, Number.NaN])
      await expect(
        stageVerifiedExecutable({
          executablePath: '/bin/sh',
          expectedSha256: WRONG,
          stagingDirPrefix: PREFIX,
          maxExecutableBytes: cap,
        }),
      ).rejects.toThrow(RangeError);
  });

  it('stages only bytes whose digest was compared, while another process keeps rewriting the file', async () => {
    const size = 4 * MIB;
    const good = Buffer.concat([Buffer.from('#!/bin/sh\nexit 0\n'), Buffer.alloc(size, 0x41)]);
    const path = join(staging.root, 'flipping.sh');
    await writeFile(path, good);
    await chmod(path, 0o755);
    const expected = sha256Of(good);
    // Flips the last byte between 'A' (the good file) and 'B', as fast as it can, in place.
    const racer = spawn(process.execPath, [
      '-e',
      `const fs = require('node:fs'); const fd = fs.openSync(${JSON.stringify(path)}, 'r+');
       process.stdout.write('flipping');
       for (let i = 0; ; i++) fs.writeSync(fd, i % 2 ? 'B' : 'A', ${good.byteLength - 1});`,
    ]);
    try {
      // Not before the racer flips (its start can take seconds on a loaded machine); at least 25
      // rounds, then on until a round was refused (the race was really run), within a bound.
      await new Promise((resolve, reject) => {
        racer.stdout.once('data', resolve);
        racer.once('exit', (code) => {
          reject(new Error(`the racer exited (${String(code)}) before it flipped`));
        });
      });
      const outcomes = { staged: 0, refused: 0 };
      const until = Date.now() + 60_000;
      let round = 0;
      for (; round < 25 || (outcomes.refused === 0 && Date.now() < until); round++) {
        const outcome = await stageVerifiedExecutable({
          executablePath: path,
          expectedSha256: expected,
          stagingDirPrefix: PREFIX,
        }).catch((error: unknown) => error);
        if (outcome instanceof Error) {
          expect(issueOf(outcome).code).toBe('digest_mismatch');
          outcomes.refused++;
          continue;
        }
        const staged = outcome as Awaited<ReturnType<typeof stageVerifiedExecutable>>;
        // What would run is exactly the file that was vouched for.
        expect(sha256Of(readFileSync(staged.stagedPath))).toBe(expected);
        await staged.dispose();
        outcomes.staged++;
      }
      expect(outcomes.staged + outcomes.refused).toBe(round);
      expect(outcomes.refused).toBeGreaterThan(0);
    } finally {
      racer.kill('SIGKILL');
    }
  });
});
