// runEvalSessionCheck on its own (no install): the fake package's paperclip-runner-eval-session bin
// with the good fake runnerd passes; a session that never ends is killed at the timeout; a runnerd
// that changed since it was resolved is never run; a bin that writes a failure artifact (exit 2) is
// refused naming its class; files reached through a link out of the output folder are refused,
// never read; evalSessionBinOf finds the bin only where the installed package's bin map says.
import { createHash } from 'node:crypto';
import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { evalSessionBinOf, runEvalSessionCheck } from '../src/eval-session.ts';
import {
  FAKE_VERSION,
  buildFakeRelease,
  writeFakeEvalSessionBin,
} from '@paperclip-evals/test-kit/fake-release';
import { createScratch } from './support/harness.ts';

import type { Sha256Digest } from '@paperclip-evals/contract';

import type { FakeRelease, FakeReleaseOptions } from '@paperclip-evals/test-kit/fake-release';
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

async function release(
  options: FakeReleaseOptions = {},
  edit?: (script: string) => string,
): Promise<FakeRelease & { bin: string }> {
  count += 1;
  const fake = await buildFakeRelease(join(scratch.releases, `r${count}`), options);
  return {
    ...fake,
    bin: await writeFakeEvalSessionBin(join(scratch.releases, `bin${count}`), options, edit),
  };
}

describe('runEvalSessionCheck', () => {
  it('passes the good fake runnerd, whose bundle names its own digest', async () => {
    const fake = await release();
    const expectedSha256 = await digestOf(fake.runnerd);
    const result = await runEvalSessionCheck({
      evalSessionBin: fake.bin,
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
      evalSessionBin: fake.bin,
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
      evalSessionBin: fake.bin,
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
      evalSessionBin: fake.bin,
      runnerdPath: fake.runnerd,
      expectedSha256: `sha256:${'0'.repeat(64)}`,
      packageVersion: FAKE_VERSION,
      workDir: scratch.work,
    });
    expect(result.issues.map((issue) => issue.code)).toEqual(['runnerd_changed']);
  });

  it('refuses a bin that writes a failure artifact and exits 2, naming its class', async () => {
    const fake = await release({}, (script) =>
      script.replace('if (observed !== request.runnerd.sha256)', 'if (true)'),
    );
    const result = await runEvalSessionCheck({
      evalSessionBin: fake.bin,
      runnerdPath: fake.runnerd,
      expectedSha256: await digestOf(fake.runnerd),
      packageVersion: FAKE_VERSION,
      workDir: scratch.work,
    });
    expect(result.issues).toEqual([
      expect.objectContaining({
        code: 'eval_session_failed',
        message: expect.stringContaining('eval_orchestration_failure') as unknown,
      }),
    ]);
  });

  it("names no class from a failure artifact the contract parser refuses (evals validate's verdict)", async () => {
    // The failure artifact states eval_orchestration_failure with another category than the table's.
    const fake = await release({}, (script) =>
      script
        .replace('if (observed !== request.runnerd.sha256)', 'if (true)')
        .replace(
          "category: 'eval_orchestration', retryable: false",
          "category: 'provider_budget', retryable: false",
        ),
    );
    const result = await runEvalSessionCheck({
      evalSessionBin: fake.bin,
      runnerdPath: fake.runnerd,
      expectedSha256: await digestOf(fake.runnerd),
      packageVersion: FAKE_VERSION,
      workDir: scratch.work,
    });
    expect(result.issues).toEqual([
      expect.objectContaining({
        code: 'eval_session_failed',
        message: expect.stringContaining('its artifact is invalid: failure_class_mismatch') as unknown,
      }),
    ]);
    expect(result.issues[0]?.message).not.toContain('(eval_orchestration_failure');
  });

  it('refuses referenced files reached through a symlinked folder leading outside the output folder', async () => {
    // The good bin, but its attempt folder is moved out of the output folder and linked back.
    const fake = await release({}, (script) =>
      script.replace(
        "fs.writeFileSync(flags['--output'], JSON.stringify({\n  ...common,",
        "const outside = path.join(path.dirname(outputDir), 'moved-out');\n" +
          'fs.renameSync(dir, outside); fs.symlinkSync(outside, dir);\n' +
          "fs.writeFileSync(flags['--output'], JSON.stringify({\n  ...common,",
      ),
    );
    const result = await runEvalSessionCheck({
      evalSessionBin: fake.bin,
      runnerdPath: fake.runnerd,
      expectedSha256: await digestOf(fake.runnerd),
      packageVersion: FAKE_VERSION,
      workDir: scratch.work,
    });
    // The bundle itself now sits in the linked folder: refused before any referenced file is read.
    expect(result.issues).toEqual([
      expect.objectContaining({
        code: 'eval_session_artifact_invalid',
        received: [expect.objectContaining({ code: 'native_bundle_refused', received: 'symlink' })],
      }),
    ]);
  });

  it('evalSessionBinOf: the installed package bin map names it; absent or outside the package, refused', async () => {
    const consumer = join(scratch.releases, `consumer${count}`);
    const packageDir = join(consumer, 'node_modules', '@paperclipai', 'paperclip-runner');
    await mkdir(join(packageDir, 'dist', 'cli'), { recursive: true });
    await writeFile(join(packageDir, 'dist', 'cli', 'eval-session.js'), '// bin\n');
    const manifest = (bin: unknown): Promise<void> =>
      writeFile(
        join(packageDir, 'package.json'),
        JSON.stringify({ name: '@paperclipai/paperclip-runner', bin }),
      );
    await manifest({ 'paperclip-runner-eval-session': './dist/cli/eval-session.js' });
    expect(await evalSessionBinOf(consumer)).toBe(
      join(await realpath(packageDir), 'dist', 'cli', 'eval-session.js'),
    );
    for (const bin of [
      undefined,
      { other: './x.js' },
      { 'paperclip-runner-eval-session': '../../escape.js' },
      { 'paperclip-runner-eval-session': './dist/cli/absent.js' },
    ]) {
      await manifest(bin);
      expect(await evalSessionBinOf(consumer)).toMatchObject({ code: 'eval_session_bin_missing' });
    }
  });
});
