// End to end: the packed clean-consumer gate (`check:clean-consumers`) with an output directory
// holds exactly the tarball, the release runnerd, the consumer's record and a SHA256SUMS that
// `sha256sum -c` accepts; the record is upstream's clean-consumer-conformance/v1 (artifacts with
// file names, digests, sizes and the runnerd build profile; a checks object), and the tarball
// carries upstream's protocol paths. Then Evals' own gate,
// `evals qualify` (the real CLI, spawned — this package never imports Evals code), qualifies that
// directory, and refuses copies of it with one runnerd byte changed or a SHA256SUMS line missing.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';

import { fileSha256 } from './support/executables.js';
import { PACKAGE_DIR } from './support/paths.js';

interface ConsumerRecord {
  schema: string;
  sourceCommit: string;
  artifacts: {
    package: { filename: string; sha256: string; byteSize: number };
    runnerd: { filename: string; sha256: string; byteSize: number; buildProfile: string };
  };
  checks: Record<string, unknown> & { evalCompatibility: { packageVersion: string } };
  consumerChecks: { id: string; passed: boolean; detail: string }[];
}

const EVALS = join(PACKAGE_DIR, '..', '..', 'node_modules', '.bin', 'evals');
const RUNNERD_FILE = `paperclip-runnerd-${process.platform}-${process.arch}`;

let outputDir = '';
let run: { code: number; stdout: string; stderr: string };

beforeAll(async () => {
  outputDir = mkdtempSync(join(tmpdir(), 'paperclip-release-'));
  run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
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
}, 240_000);

afterAll(() => {
  rmSync(outputDir, { recursive: true, force: true });
});

interface QualificationRecord {
  qualified: boolean;
  checks: { id: string; status: string; issues?: { code: string }[] }[];
}

/** `evals qualify` on `dir`: the exit code and the record it prints. */
function qualify(dir: string): { status: number | null; record: QualificationRecord } {
  const result = spawnSync(EVALS, ['qualify', '--release-dir', dir, '--json'], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: result.status, record: JSON.parse(result.stdout) as QualificationRecord };
}

/** A copy of the release directory, changed by `change`, removed after the test. */
function alteredRelease(change: (dir: string) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'paperclip-release-altered-'));
  onTestFinished(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  cpSync(outputDir, dir, { recursive: true });
  change(dir);
  return dir;
}

const failedChecks = (record: QualificationRecord): string[] =>
  record.checks.filter((check) => check.status === 'fail').map((check) => check.id);

describe('check:clean-consumers', () => {
  it('writes a release directory that sha256sum -c verifies, from a passing clean consumer', () => {
    expect(run.code, run.stderr).toBe(0);
    const runnerdFile = RUNNERD_FILE;
    const record = JSON.parse(
      readFileSync(join(outputDir, 'paperclip-runner-consumer-conformance.json'), 'utf8'),
    ) as ConsumerRecord;
    const tarballFile = `paperclipai-paperclip-runner-${record.checks.evalCompatibility.packageVersion}.tgz`;
    expect(readdirSync(outputDir).sort()).toEqual(
      ['SHA256SUMS', 'paperclip-runner-consumer-conformance.json', runnerdFile, tarballFile].sort(),
    );
    expect(execFileSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: outputDir, encoding: 'utf8' })).toMatch(
      /: OK\n.*: OK\n.*: OK\n$/,
    );
    const size = (name: string): number => readFileSync(join(outputDir, name)).length;
    expect(record).toMatchObject({
      schema: 'paperclip-runner/clean-consumer-conformance/v1',
      sourceCommit: expect.stringMatching(/^[0-9a-f]{40}$/) as unknown,
      artifacts: {
        package: {
          filename: tarballFile,
          sha256: fileSha256(join(outputDir, tarballFile)),
          byteSize: size(tarballFile),
        },
        runnerd: {
          filename: runnerdFile,
          sha256: fileSha256(join(outputDir, runnerdFile)),
          byteSize: size(runnerdFile),
          buildProfile: 'release',
        },
      },
      checks: {
        packageExportsResolved: true,
        evalCompatibility: { schema: 'paperclip-runner/evals-integration/v1' },
        evalMismatchFailedClosed: true,
        harnessDriverConformance: { schema: 'paperclip-runner/harness-driver-conformance-report/v1' },
        runnerdDigest: true,
      },
    });
    expect(record).not.toHaveProperty('passed');
    expect(record.consumerChecks.filter((check) => !check.passed)).toEqual([]);
    expect(record.consumerChecks.map((check) => check.id)).toEqual(
      expect.arrayContaining([
        'exports.undeclaredSubpathRefused',
        'exports.rootHasNoTestDouble',
        'negotiation.incompatibleRefused',
      ]),
    );
    const listing = execFileSync('tar', ['-tzf', join(outputDir, tarballFile)], { encoding: 'utf8' }).split(
      '\n',
    );
    expect(listing).toEqual(
      expect.arrayContaining([
        'package/protocol/schemas/native-execution.schema.json',
        'package/protocol/fixtures/evals/native-execution-seeded.json',
        'package/protocol/fixtures/evals/harness-driver-conformance.json',
        'package/dist/testing.js',
      ]),
    );
    expect(
      listing.filter((entry) => entry.startsWith('package/protocol/schemas/') && entry.includes('/v1/')),
    ).toEqual([]);
  });
});

describe('evals qualify on the release directory', () => {
  it('qualifies it: every check passes', () => {
    const { status, record } = qualify(outputDir);
    expect(failedChecks(record)).toEqual([]);
    expect(record.qualified).toBe(true);
    expect(status).toBe(0);
  }, 120_000);

  it('refuses it with one byte of runnerd changed, naming the digest mismatch', () => {
    const dir = alteredRelease((copy) => {
      const path = join(copy, RUNNERD_FILE);
      const bytes = readFileSync(path);
      bytes[bytes.length >> 1] = (bytes[bytes.length >> 1] ?? 0) ^ 0xff;
      writeFileSync(path, bytes);
    });
    const { status, record } = qualify(dir);
    expect(status).toBe(1);
    expect(failedChecks(record)).toContain('sha256sums');
  }, 120_000);

  it('refuses it when SHA256SUMS does not list runnerd', () => {
    const dir = alteredRelease((copy) => {
      const sums = readFileSync(join(copy, 'SHA256SUMS'), 'utf8');
      writeFileSync(
        join(copy, 'SHA256SUMS'),
        sums
          .split('\n')
          .filter((line) => !line.endsWith(RUNNERD_FILE))
          .join('\n'),
      );
    });
    const { status, record } = qualify(dir);
    expect(status).toBe(1);
    expect(failedChecks(record)).toContain('sha256sums');
  }, 120_000);
});
