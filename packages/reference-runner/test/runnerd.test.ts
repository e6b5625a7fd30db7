// paperclip-runnerd as shipped: a real Node single executable application built once (release
// profile) into a temp dir. Its --build-metadata prints upstream's eight fields and nothing more
// (no build profile: the gate states it) and validates against the repo's schema; eval-session
// writes, for every behaviour, a bundle that Evals' parser accepts, with the transcript and
// artifact digests of the files on disk; exit codes are 0, 2 (infrastructure) and 1.
import './support/protocol.js';

import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { parseNativeExecution as evalsParseNativeExecution } from '../../contract/src/index.ts';
import { resolveRunnerdArtifact as evalsResolveRunnerdArtifact } from '../../node/src/index.ts';
import { resolvePaperclipRunnerdArtifact } from '../src/evals/index.js';
import { DETERMINISTIC_BEHAVIOURS } from '../src/testing/deterministic-driver.js';
import { fileSha256, removeScratchDirs, scratchDir } from './support/executables.js';
import { PACKAGE_DIR, repoSchemaValidator } from './support/paths.js';
import { evalSessionRequest } from './support/requests.js';

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const work = scratchDir('paperclip-runnerd-test-');
const binary = join(work, 'paperclip-runnerd');
let binarySha256 = '';

/** Runs the binary with an empty environment: nothing it does may depend on ours. */
const runnerd = (args: readonly string[]): Promise<Run> =>
  new Promise((resolve) => {
    execFile(binary, args, { env: {}, cwd: work, encoding: 'utf8' }, (error, stdout, stderr) => {
      resolve({
        code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1,
        stdout,
        stderr,
      });
    });
  });

const writeRequest = (name: string, value: unknown): string => {
  const path = join(work, `${name}.request.json`);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
};

beforeAll(() => {
  execFileSync(
    process.execPath,
    [join(PACKAGE_DIR, 'scripts', 'build-runnerd.mjs'), '--profile', 'release', '--out', binary],
    {
      stdio: 'pipe',
    },
  );
  binarySha256 = fileSha256(binary);
}, 120_000);

afterAll(removeScratchDirs);

describe('paperclip-runnerd --build-metadata', () => {
  it("prints one JSON object of upstream's eight fields, valid against the repo's runnerd schema", async () => {
    const run = await runnerd(['--build-metadata']);
    expect(run.code).toBe(0);
    expect(run.stdout.trimEnd().split('\n')).toHaveLength(1);
    const metadata = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(repoSchemaValidator('runner/runnerd-build-metadata-v1.schema.json')(metadata)).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(metadata).toMatchObject({ packageVersion: manifest.version, binaryContractVersion: 1 });
    expect(Object.keys(metadata).sort()).toEqual(
      [
        'binaryContractVersion',
        'binaryName',
        'harnessDriverVersion',
        'nativeExecutionVersion',
        'packageName',
        'packageVersion',
        'prp',
        'schema',
      ].sort(),
    );
  });

  it('is resolved by digest by the package’s resolver and by Evals’ resolver alike', async () => {
    const ours = await resolvePaperclipRunnerdArtifact({
      executablePath: binary,
      expectedSha256: binarySha256,
    });
    const evals = await evalsResolveRunnerdArtifact({ executablePath: binary, expectedSha256: binarySha256 });
    expect(ours.buildMetadata).toEqual(evals.buildMetadata);
    expect(ours.sha256).toBe(binarySha256);
  });
});

describe('paperclip-runnerd eval-session', () => {
  it.each(DETERMINISTIC_BEHAVIOURS)(
    '%s: writes a bundle Evals accepts, with the digests of the files beside it',
    async (behaviour) => {
      const dir = scratchDir(`paperclip-runnerd-${behaviour}-`);
      const output = join(dir, 'attempt.json');
      const run = await runnerd([
        'eval-session',
        '--request',
        writeRequest(behaviour, evalSessionRequest(behaviour)),
        '--output',
        output,
      ]);
      expect(run.code, run.stderr).toBe(behaviour === 'harness_crash' ? 2 : 0);
      const bundle = evalsParseNativeExecution(readFileSync(output));
      expect(bundle.runner.binary.sha256).toBe(binarySha256);
      const onDisk = (uri: string): string => join(dir, uri.replace('artifact://native/', ''));
      for (const reference of [bundle.transcript, ...bundle.artifacts]) {
        expect(fileSha256(onDisk(reference.uri))).toBe(reference.sha256);
        expect(readFileSync(onDisk(reference.uri)).length).toBe(reference.byteSize);
      }
      expect(fileSha256(join(dir, bundle.identity.attemptId, 'artifact-root.json'))).toBe(
        bundle.artifactRoot.sha256,
      );
      expect(JSON.parse(run.stdout)).toMatchObject({ bundle: output, attemptId: bundle.identity.attemptId });
      if (behaviour === 'harness_crash') expect(bundle.failure?.classification).toBe('infrastructure');
    },
  );

  it('writes the same bytes for the same request', async () => {
    const request = writeRequest('twice', evalSessionRequest('deny_tool'));
    const [first, second] = [join(scratchDir('rd-a-'), 'a.json'), join(scratchDir('rd-b-'), 'b.json')];
    expect((await runnerd(['eval-session', '--request', request, '--output', first])).code).toBe(0);
    expect((await runnerd(['eval-session', '--request', request, '--output', second])).code).toBe(0);
    expect(readFileSync(second).equals(readFileSync(first))).toBe(true);
  });

  it('exits 1 for a request that is not JSON, one that breaks the schema, and bad arguments', async () => {
    const output = join(scratchDir('rd-bad-'), 'attempt.json');
    const notJson = await runnerd([
      'eval-session',
      '--request',
      writeRequest('not-json', '{"schema":'),
      '--output',
      output,
    ]);
    const badSchema = await runnerd([
      'eval-session',
      '--request',
      writeRequest('bad', { ...evalSessionRequest('succeed'), seed: '' }),
      '--output',
      output,
    ]);
    const noOutput = await runnerd([
      'eval-session',
      '--request',
      writeRequest('ok', evalSessionRequest('succeed')),
    ]);
    const unknown = await runnerd(['serve']);
    const noOutputDir = await runnerd([
      'eval-session',
      '--request',
      writeRequest('ok-no-dir', evalSessionRequest('succeed')),
      '--output',
      join(work, 'no-such-dir', 'attempt.json'),
    ]);
    expect(noOutputDir.stderr).toContain('does not exist');
    expect(existsSync(join(work, 'no-such-dir'))).toBe(false);
    const missing = await runnerd([
      'eval-session',
      '--request',
      join(work, 'absent.json'),
      '--output',
      output,
    ]);
    for (const run of [notJson, badSchema, noOutput, unknown, missing, noOutputDir])
      expect(run.code, run.stderr).toBe(1);
    expect(badSchema.stderr).toContain('/seed');
    expect(notJson.stdout).toBe('');
  });
});
