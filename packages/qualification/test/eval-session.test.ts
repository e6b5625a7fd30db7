// runEvalSessionCheck on its own (no install): the good fake runnerd passes; a runnerd whose eval
// session never ends is killed at the timeout; a runnerd that changed since it was resolved is
// never run; a script that only prints build metadata is refused; files reached through a link out
// of the output folder are refused, never read.
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runEvalSessionCheck } from '../src/index.ts';
import { FAKE_VERSION, buildFakeRelease, runnerdNodeScript } from './support/fake-release.ts';
import { createScratch } from './support/harness.ts';

import type { Sha256Digest } from '@paperclip-evals/contract';

import type { FakeRelease, FakeReleaseOptions } from './support/fake-release.ts';
import type { Scratch } from './support/harness.ts';

let scratch: Scratch;
let count = 0;

beforeAll(async () => {
  scratch = await createScratch('eval-session');
});

afterAll(async () => {
  await scratch.remove();
});

const digestOf = async (path: string): Promise<Sha256Digest> =>
  `sha256:${createHash('sha256')
    .update(await readFile(path))
    .digest('hex')}`;

async function release(options: FakeReleaseOptions = {}): Promise<FakeRelease> {
  count += 1;
  return buildFakeRelease(join(scratch.releases, `r${count}`), options);
}

describe('runEvalSessionCheck', () => {
  it('passes the good fake runnerd, whose bundle names its own digest', async () => {
    const fake = await release();
    const expectedSha256 = await digestOf(fake.runnerd);
    const result = await runEvalSessionCheck({
      runnerdPath: fake.runnerd,
      expectedSha256,
      packageVersion: FAKE_VERSION,
      workDir: scratch.work,
    });
    expect(result.issues).toEqual([]);
    expect(result.detail).toContain(expectedSha256);
  });

  it('refuses a bundle for another package version', async () => {
    const fake = await release();
    const result = await runEvalSessionCheck({
      runnerdPath: fake.runnerd,
      expectedSha256: await digestOf(fake.runnerd),
      packageVersion: '9.9.9',
      workDir: scratch.work,
    });
    expect(result.issues).toEqual([
      expect.objectContaining({
        code: 'eval_session_version_mismatch',
        expected: '9.9.9',
        received: FAKE_VERSION,
      }),
    ]);
  });

  it('kills a runnerd whose session never ends, at the timeout', async () => {
    const fake = await release({ runnerdKind: 'hangs' });
    const started = Date.now();
    const result = await runEvalSessionCheck({
      runnerdPath: fake.runnerd,
      expectedSha256: await digestOf(fake.runnerd),
      packageVersion: FAKE_VERSION,
      workDir: scratch.work,
      timeoutMs: 1000,
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.issues).toEqual([
      expect.objectContaining({
        code: 'eval_session_failed',
        message: expect.stringMatching(/did not finish within 1000 ms \(killed\)/) as unknown,
      }),
    ]);
  });

  it('never runs a runnerd that is not the one resolved', async () => {
    const fake = await release();
    const result = await runEvalSessionCheck({
      runnerdPath: fake.runnerd,
      expectedSha256: `sha256:${'0'.repeat(64)}`,
      packageVersion: FAKE_VERSION,
      workDir: scratch.work,
    });
    expect(result.issues.map((issue) => issue.code)).toEqual(['runnerd_changed']);
  });

  it('refuses a script that only prints build metadata', async () => {
    const fake = await release({ runnerdKind: 'metadata-only' });
    expect((await readFile(fake.runnerd)).byteLength).toBeLessThan(1000);
    const result = await runEvalSessionCheck({
      runnerdPath: fake.runnerd,
      expectedSha256: await digestOf(fake.runnerd),
      packageVersion: FAKE_VERSION,
      workDir: scratch.work,
    });
    expect(result.issues.map((issue) => issue.code)).toEqual(['eval_session_failed']);
  });

  it('refuses referenced files reached through a symlinked folder leading outside the output folder', async () => {
    const fake = await release();
    // The good runnerd, but its attempt folder is moved out of the output folder and linked back.
    const script = runnerdNodeScript().replace(
      "fs.writeFileSync(flags['--output']",
      "const outside = path.join(path.dirname(path.dirname(flags['--output'])), 'moved-out');\n" +
        'fs.renameSync(dir, outside); fs.symlinkSync(outside, dir);\n' +
        "fs.writeFileSync(flags['--output']",
    );
    await writeFile(fake.runnerd, script);
    const result = await runEvalSessionCheck({
      runnerdPath: fake.runnerd,
      expectedSha256: await digestOf(fake.runnerd),
      packageVersion: FAKE_VERSION,
      workDir: scratch.work,
    });
    const codes = result.issues.map((issue) => issue.code);
    expect(codes.length).toBeGreaterThan(0);
    expect(new Set(codes)).toEqual(new Set(['eval_session_reference_symlink']));
    expect(result.issues[0]?.message).toMatch(/is a symbolic link .*leads outside the root/);
  });
});
