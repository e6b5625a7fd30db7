// runEvalSessionCheck on its own (no install): the fake package's paperclip-runner-eval-session bin
// with the good fake runnerd passes; a session that never ends is killed at the timeout; a runnerd
// that changed since it was resolved is never run; a bin that writes a failure artifact (exit 2) is
// refused naming its class; files reached through a link out of the output folder are refused,
// never read; evalSessionBinOf finds the bin only where the installed package's bin map says.
// The refusal (runEvalSessionRefusalCheck) and an upstream-shaped bin (upstreamEvalSessionBinScript):
// a provider no runner supports is refused by both fakes (exit 1, nothing written, stderr naming the
// provider); upstream's bin also refuses Evals' offline provider, which is needsProvider (no session,
// no issue, never a pass); a bin that accepts any provider, or exits 1 saying nothing of the
// provider, fails the refusal.
import { createHash } from 'node:crypto';
import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  evalSessionBinOf,
  loadEvalSessionRequest,
  runEvalSessionCheck,
  runEvalSessionRefusalCheck,
} from '../src/eval-session.ts';
import {
  FAKE_VERSION,
  UPSTREAM_UNSUPPORTED_PROVIDER,
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

describe('the refusal and an upstream-shaped bin', () => {
  const lines = async (file: string): Promise<number> =>
    (await readFile(file, 'utf8').catch(() => '')).split('\n').filter((line) => line !== '').length;

  it('passes the refusal of our deterministic fake: a provider it does not run is exit 1, nothing written', async () => {
    const fake = await release();
    const result = await runEvalSessionRefusalCheck({
      evalSessionBin: fake.bin,
      runnerdPath: fake.runnerd,
      expectedSha256: await digestOf(fake.runnerd),
      workDir: scratch.work,
    });
    expect(result.issues).toEqual([]);
    expect(result.detail).toMatch(/refused a request for provider paperclip_evals_unrunnable/);
  });

  it("upstream's bin refuses the refusal request with upstream's message, and Evals' offline provider the same way: needsProvider, no session", async () => {
    const counter = join(scratch.releases, `upstream-sessions-${count + 1}`);
    const fake = await release({ upstreamEvalSession: true, sessionCounter: counter });
    const options = {
      evalSessionBin: fake.bin,
      runnerdPath: fake.runnerd,
      expectedSha256: await digestOf(fake.runnerd),
      workDir: scratch.work,
    };
    const refusal = await runEvalSessionRefusalCheck(options);
    expect(refusal.issues).toEqual([]);
    expect(refusal.detail).toContain(UPSTREAM_UNSUPPORTED_PROVIDER);
    const session = await runEvalSessionCheck({ ...options, packageVersion: FAKE_VERSION });
    expect(session.issues).toEqual([]);
    expect(session.needsProvider).toMatch(
      /refused Evals' offline provider paperclip_deterministic before any session \(exit 1, nothing written; stderr: .*unsupported by CapabilityLiveSessionService/,
    );
    expect(await lines(counter)).toBe(0);
  });

  it("upstream's bin starts a session for a provider it supports (the counter counts), so needsProvider is the parser's refusal, not a missing bin", async () => {
    const counter = join(scratch.releases, `upstream-codex-${count + 1}`);
    const fake = await release({ upstreamEvalSession: true, sessionCounter: counter });
    const request = join(scratch.releases, `codex-request-${count}.json`);
    await writeFile(
      request,
      JSON.stringify({
        schema: 'paperclip-runner/eval-session-request/v1',
        attemptId: 'attempt_codex',
        prompt: 'p',
        model: 'gpt-5.6-sol',
        provider: 'codex',
        evalCase: { caseId: 'c', configId: 'k' },
        limits: { turnTimeoutMs: 1000, maxAgentTurns: 1, maxEstimatedCostNanodollars: 1 },
        session: { runId: 'r' },
      }),
    );
    const session = await runEvalSessionCheck({
      evalSessionBin: fake.bin,
      runnerdPath: fake.runnerd,
      expectedSha256: await digestOf(fake.runnerd),
      packageVersion: FAKE_VERSION,
      workDir: scratch.work,
      requestFile: request,
    });
    expect(session.needsProvider).toBeUndefined();
    expect(session.issues).toEqual([
      expect.objectContaining({
        code: 'eval_session_failed',
        message: expect.stringContaining('exited with code 2 (eval_orchestration_failure)') as unknown,
      }),
    ]);
    expect(await lines(counter)).toBe(1);
  });

  it('fails the refusal of a bin that runs any provider: it did not exit 1 and it wrote an artifact', async () => {
    const fake = await release({}, (script) =>
      script.replace("if (request.provider !== 'paperclip_deterministic') {", 'if (false) {'),
    );
    // Evals' session request with the refusal's provider: all this bin needs to run a session.
    const requestFile = join(scratch.releases, `any-provider-${count}.json`);
    const { request } = await loadEvalSessionRequest();
    await writeFile(requestFile, JSON.stringify({ ...request, provider: 'paperclip_evals_unrunnable' }));
    const result = await runEvalSessionRefusalCheck({
      evalSessionBin: fake.bin,
      runnerdPath: fake.runnerd,
      expectedSha256: await digestOf(fake.runnerd),
      workDir: scratch.work,
      requestFile,
    });
    expect(result.issues.map((issue) => issue.code)).toEqual([
      'eval_session_refusal_not_refused',
      'eval_session_refusal_wrote_output',
    ]);
  });

  it('fails the refusal of a bin that exits 1 without saying the provider is why', async () => {
    const fake = await release({}, (script) =>
      script.replace(
        "invalid eval-session request: /provider unknown provider '",
        "invalid eval-session request: '",
      ),
    );
    const result = await runEvalSessionRefusalCheck({
      evalSessionBin: fake.bin,
      runnerdPath: fake.runnerd,
      expectedSha256: await digestOf(fake.runnerd),
      workDir: scratch.work,
    });
    expect(result.issues.map((issue) => issue.code)).toEqual(['eval_session_refusal_unexplained']);
  });
});
