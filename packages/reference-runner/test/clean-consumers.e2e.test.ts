// End to end: the packed clean-consumer gate (`check:clean-consumers`) with an output directory
// (run once per test run by the test kit's referenceRelease, which hands this file and the others
// that need the release their own copy of the folder, with the gate's exit code and output) holds exactly the tarball, the release runnerd, the consumer's record and a SHA256SUMS that
// `sha256sum -c` accepts; the record is upstream's clean-consumer-conformance/v1 (artifacts with
// file names, digests, sizes and the runnerd build profile; a checks object), and the tarball
// carries upstream's protocol paths. Then Evals' own gate,
// `evals qualify` (the real CLI, spawned — this package never imports Evals code), qualifies that
// directory, and refuses copies of it with one runnerd byte changed or a SHA256SUMS line missing.
// Last, the packed tarball is installed offline into a fresh consumer and its
// paperclip-runner-eval-session bin runs on the release runnerd: a request in, an artifact and its
// bundle out; a hanging driver, a budget overrun and a runnerd digest mismatch each write the
// failure artifact with their class and exit 2; `evals ingest` stores the artifacts and
// `evals report` shows their cost provenance and infrastructure outcomes.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';

import { evalSessionRequest } from '@paperclip-evals/test-kit/eval-session-request';
import { referenceRelease } from '@paperclip-evals/test-kit/reference-release';

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
  // The gate's run of this test run (made once, by the first file that needs it): its exit code,
  // output and a fresh copy of its output folder.
  outputDir = join(mkdtempSync(join(tmpdir(), 'paperclip-release-')), 'release');
  run = await referenceRelease(outputDir);
}, 300_000);

afterAll(() => {
  rmSync(dirname(outputDir), { recursive: true, force: true });
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

/** pnpm, as the gate runs it: npx of the pinned version, with none of our npm_* settings. */
function pnpm(args: readonly string[], cwd: string): string {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !/^(npm_|pnpm_|PNPM_|INIT_CWD$|NODE_OPTIONS$|VITEST)/i.test(key),
    ),
  );
  return execFileSync('npx', ['-y', 'pnpm@12.4.2', ...args], { cwd, env, encoding: 'utf8' });
}

describe('paperclip-runner-eval-session from the packed, offline-installed package', () => {
  let work = '';
  let bin = '';
  let runnerd = '';
  let runnerdSha256 = '';

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'paperclip-eval-session-e2e-'));
    const tarball = readdirSync(outputDir).find((name) => name.endsWith('.tgz'))!;
    const consumer = join(work, 'consumer');
    mkdirSync(consumer);
    writeFileSync(
      join(consumer, 'package.json'),
      JSON.stringify({
        name: 'eval-session-consumer',
        private: true,
        type: 'module',
        dependencies: { '@paperclipai/paperclip-runner': `file:${join(outputDir, tarball)}` },
      }),
    );
    const store = pnpm(['store', 'path'], PACKAGE_DIR).trim();
    pnpm(['install', '--offline', '--no-frozen-lockfile', '--store-dir', store], consumer);
    const packageDir = join(consumer, 'node_modules', '@paperclipai', 'paperclip-runner');
    const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    bin = join(packageDir, manifest.bin['paperclip-runner-eval-session']!);
    runnerd = join(outputDir, RUNNERD_FILE);
    runnerdSha256 = fileSha256(runnerd);
  }, 180_000);

  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  const request = (attemptId: string, edit: Record<string, unknown> = {}): Record<string, unknown> =>
    evalSessionRequest(
      { attemptId, runnerd: { path: runnerd, sha256: runnerdSha256 }, runId: 'run_e2e' },
      edit,
    );

  /** Runs the installed bin (node, empty environment) on one request; the exit code and the artifact. */
  function session(value: Record<string, unknown>): {
    status: number | null;
    artifact: Record<string, unknown> | null;
    path: string;
  } {
    const name = value.attemptId as string;
    const requestPath = join(work, `${name}.request.json`);
    writeFileSync(requestPath, JSON.stringify(value));
    const path = join(work, 'artifacts', `${name}.json`);
    mkdirSync(join(work, 'artifacts'), { recursive: true });
    const result = spawnSync(process.execPath, [bin, '--request', requestPath, '--output', path], {
      env: {},
      encoding: 'utf8',
      timeout: 60_000,
    });
    let artifact: Record<string, unknown> | null;
    try {
      artifact = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    } catch {
      artifact = null;
    }
    return { status: result.status, artifact, path };
  }

  it('a request in: exit 0, the artifact and its bundle out, runnerd withheld, cost as seed 001 says', () => {
    const run = session(request('attempt_ok'));
    expect(run.status).toBe(0);
    expect(run.artifact).toMatchObject({
      schema: 'paperclip-runner/eval-session-artifact/v1',
      runnerd: { path: '[withheld]', sha256: runnerdSha256 },
      provider: 'paperclip_deterministic',
      turn: { status: 'completed' },
      usage: {
        providerReportedCostNanodollars: null,
        providerReportedCostProvenance: 'unavailable',
        costCoverage: 'estimated',
      },
    });
    expect(JSON.stringify(run.artifact)).not.toContain(runnerd);
    const reference = run.artifact!.nativeExecution as { path: string; sha256: string };
    expect(fileSha256(join(work, 'artifacts', reference.path))).toBe(reference.sha256);
  });

  it.each([
    [
      'a hanging driver',
      {
        session: { runId: 'run_e2e', behaviour: 'hang' },
        limits: { turnTimeoutMs: 500, maxAgentTurns: 50, maxEstimatedCostNanodollars: 100_000_000 },
      },
      'provider_turn_timeout',
      true,
    ],
    [
      'a budget overrun',
      { limits: { turnTimeoutMs: 30_000, maxAgentTurns: 1, maxEstimatedCostNanodollars: 100_000_000 } },
      'provider_budget_reached',
      false,
    ],
    [
      'a runnerd digest mismatch',
      { runnerd: { path: join(outputDir, RUNNERD_FILE), sha256: `sha256:${'0'.repeat(64)}` } },
      'eval_orchestration_failure',
      false,
    ],
  ] as const)('%s: the failure artifact with its class, exit 2', (name, edit, failureClass, retryable) => {
    // (The table is read before beforeAll: the real runnerd path is filled in here.)
    const value = request(`attempt_${name.replaceAll(' ', '_')}`, edit);
    const run = session(
      'runnerd' in edit
        ? { ...value, runnerd: { ...(value.runnerd as object), ...edit.runnerd, path: runnerd } }
        : value,
    );
    expect(run.status).toBe(2);
    expect(run.artifact).toMatchObject({ infrastructureFailure: { class: failureClass, retryable } });
    expect(run.artifact).not.toHaveProperty('turn');
  });

  it('evals ingest stores the artifacts; evals report shows cost provenance and the infrastructure outcomes', () => {
    const store = `sqlite:${join(work, 'evalbook.sqlite')}`;
    const ingest = spawnSync(
      EVALS,
      [
        'ingest',
        join(work, 'artifacts', '*.json'),
        '--store',
        store,
        '--runnerd-sha256',
        runnerdSha256,
        '--json',
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
    const summary = JSON.parse(ingest.stdout) as {
      inserted: number;
      invalid: { input: string; issues: { code: string }[] }[];
    };
    // The digest-mismatch artifact has no bundle (no session ran): stored from the artifact alone as
    // the infrastructure failure it is (never a pass), like a real upstream artifact with no bundle.
    expect(summary.inserted, JSON.stringify(summary.invalid)).toBe(4);
    expect(summary.invalid).toEqual([]);
    expect(ingest.status, ingest.stderr).toBe(0);
    const report = spawnSync(EVALS, ['report', '--store', store, '--format', 'json', '--out', '-'], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(report.status, report.stderr).toBe(0);
    const attempts = (JSON.parse(report.stdout) as { attempts: Record<string, unknown>[] }).attempts;
    const byId = new Map(attempts.map((attempt) => [attempt.attemptId as string, attempt]));
    expect(byId.get('attempt_ok')).toMatchObject({
      status: 'solved',
      evalSession: { provider: 'paperclip_deterministic', runnerdSha256, infrastructureFailure: null },
      cost: {
        providerReportedNanodollars: null,
        estimateSource: 'runner',
        coverage: 'estimated',
        notes: expect.arrayContaining(['provider_cost_unavailable']) as unknown,
      },
    });
    const ok = byId.get('attempt_ok')!.cost as {
      estimatedNanodollars: number;
      legacyLedgerNanodollars: number;
      effectiveNanodollars: number;
    };
    expect(ok.legacyLedgerNanodollars).toBeGreaterThan(0);
    expect(ok.effectiveNanodollars).toBe(ok.estimatedNanodollars); // the legacy amount is never added
    expect(byId.get('attempt_a_hanging_driver')).toMatchObject({
      status: 'errored',
      statusReason: 'infrastructure: provider_turn_timeout (retryable)',
      failure: { classification: 'infrastructure', code: 'provider_turn_timeout', retryable: true },
    });
    expect(byId.get('attempt_a_runnerd_digest_mismatch')).toMatchObject({
      status: 'errored',
      failure: { classification: 'infrastructure', code: 'eval_orchestration_failure', retryable: false },
    });
    expect(byId.get('attempt_a_budget_overrun')).toMatchObject({
      status: 'over_budget',
      statusReason: 'provider_budget_reached (not retryable)',
    });
  }, 240_000);
});
