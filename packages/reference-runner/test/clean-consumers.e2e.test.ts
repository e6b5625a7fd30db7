// End to end: the packed clean-consumer gate (`check:clean-consumers`) with an output directory
// holds exactly the tarball, the release runnerd, the consumer's record and a SHA256SUMS that
// `sha256sum -c` accepts; the record says every consumer check passed.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';

import { fileSha256 } from './support/executables.js';
import { PACKAGE_DIR } from './support/paths.js';

interface ConsumerRecord {
  schema: string;
  passed: boolean;
  package: { name: string; version: string };
  tarball: { fileName: string; sha256: string };
  runnerd: { fileName: string; sha256: string; buildMetadata: { buildProfile: string } };
  conformance: { passed: boolean };
  negotiation: { schema: string };
  checks: { id: string; passed: boolean; detail: string }[];
}

describe('check:clean-consumers', () => {
  it('writes a release directory that sha256sum -c verifies, from a passing clean consumer', async () => {
    const outputDir = mkdtempSync(join(tmpdir(), 'paperclip-release-'));
    onTestFinished(() => {
      rmSync(outputDir, { recursive: true, force: true });
    });
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [join(PACKAGE_DIR, 'scripts', 'check-clean-consumers.mjs')],
        {
          cwd: PACKAGE_DIR,
          env: { ...process.env, PAPERCLIP_CLEAN_CONSUMER_OUTPUT_DIR: outputDir },
          encoding: 'utf8',
        },
        (error, stdout, stderr) => {
          resolve({ code: error === null ? 0 : Number(error.code ?? -1), stdout, stderr });
        },
      );
    });
    expect(run.code, run.stderr).toBe(0);
    const runnerdFile = `paperclip-runnerd-${process.platform}-${process.arch}`;
    const record = JSON.parse(
      readFileSync(join(outputDir, 'paperclip-runner-consumer-conformance.json'), 'utf8'),
    ) as ConsumerRecord;
    const tarballFile = `paperclipai-paperclip-runner-${record.package.version}.tgz`;
    expect(readdirSync(outputDir).sort()).toEqual(
      ['SHA256SUMS', 'paperclip-runner-consumer-conformance.json', runnerdFile, tarballFile].sort(),
    );
    expect(execFileSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: outputDir, encoding: 'utf8' })).toMatch(
      /: OK\n.*: OK\n.*: OK\n$/,
    );
    expect(record).toMatchObject({
      schema: 'paperclip-runner/consumer-conformance/v1',
      passed: true,
      tarball: { fileName: tarballFile, sha256: fileSha256(join(outputDir, tarballFile)) },
      runnerd: {
        fileName: runnerdFile,
        sha256: fileSha256(join(outputDir, runnerdFile)),
        buildMetadata: { buildProfile: 'release' },
      },
      conformance: { passed: true },
      negotiation: { schema: 'paperclip-runner/evals-integration/v1' },
    });
    expect(record.checks.filter((check) => !check.passed)).toEqual([]);
    expect(record.checks.map((check) => check.id)).toEqual(
      expect.arrayContaining([
        'exports.undeclaredSubpathRefused',
        'exports.rootHasNoTestDouble',
        'runnerd.debugRefused',
        'negotiation.incompatibleRefused',
      ]),
    );
  }, 240_000);
});
