// paperclip-runnerd as shipped: the real Node single executable application (release profile) of
// the reference release, as the clean-consumer gate builds it (the test kit's referenceRelease: built
// once per test run, this file getting its own copy). Its --build-metadata prints upstream's eight fields and nothing more
// (no build profile: the gate states it) and validates against the repo's schema, both resolvers
// agree on it, and it runs no eval session itself (that is the paperclip-runner-eval-session bin).
import './support/protocol.js';

import { execFile } from 'node:child_process';
import { readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { referenceRelease } from '@paperclip-evals/test-kit/reference-release';

import { resolveRunnerdArtifact as evalsResolveRunnerdArtifact } from '../../node/src/index.ts';
import { resolvePaperclipRunnerdArtifact } from '../src/evals/index.js';
import { fileSha256, removeScratchDirs, scratchDir } from './support/executables.js';
import { PACKAGE_DIR, repoSchemaValidator } from './support/paths.js';

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

beforeAll(async () => {
  const release = join(work, 'release');
  const gate = await referenceRelease(release);
  expect(gate.code, gate.stderr).toBe(0);
  renameSync(join(release, `paperclip-runnerd-${process.platform}-${process.arch}`), binary);
  binarySha256 = fileSha256(binary);
}, 300_000);

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

  it('is reproducible: built again from another working folder, the same commit gives the same bytes', async () => {
    // A user pins --runnerd-sha256 from one build; a rebuild of the same sources must keep that digest
    // (the SEA blob once named the build's random temporary folder).
    const again = join(scratchDir('paperclip-runnerd-rebuild-'), 'paperclip-runnerd');
    const printed = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        [join(PACKAGE_DIR, 'scripts', 'build-runnerd.mjs'), '--profile', 'release', '--out', again],
        { cwd: work, encoding: 'utf8' },
        (error, stdout) => {
          if (error === null) resolve(stdout);
          else reject(new Error(`build-runnerd failed: ${error.message}`));
        },
      );
    });
    expect(printed.trim().endsWith(binarySha256)).toBe(true);
    expect(fileSha256(again)).toBe(binarySha256);
  }, 120_000);
});

describe('paperclip-runnerd commands', () => {
  it('has no eval-session command: eval sessions are the package bin paperclip-runner-eval-session', async () => {
    const run = await runnerd(['eval-session', '--request', 'r.json', '--output', 'o.json']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('unknown command "eval-session"');
    expect((await runnerd(['serve'])).code).toBe(1);
  });
});
