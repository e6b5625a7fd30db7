// The clean consumer: copied by check-clean-consumers.mjs into a temp project outside the repo,
// where the packed package is installed offline. It imports ONLY the package's declared exports
// (`.`, `./evals`, `./testing`) and Node builtins and runs every consumer check. When all pass it
// writes upstream's paperclip-runner/clean-consumer-conformance/v1 record to $RECORD_PATH (like
// upstream's gate: no record without a pass); otherwise it prints each failed check on stderr and
// exits 1. Inputs (environment): TARBALL_FILE, TARBALL_PATH, RUNNERD_FILE, RUNNERD_RELEASE (a
// release build: the gate built it so, and says so in artifacts.runnerd.buildProfile),
// SOURCE_COMMIT, RECORD_PATH.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as root from '@paperclipai/paperclip-runner';
import * as evals from '@paperclipai/paperclip-runner/evals';
import * as testing from '@paperclipai/paperclip-runner/testing';

const env = (name) => {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`clean consumer: ${name} is not set`);
  return value;
};

const checks = [];
async function check(id, body) {
  let detail;
  try {
    detail = await body();
  } catch (error) {
    detail = `threw ${error?.code ?? ''} ${error?.message ?? String(error)}`.trim();
  }
  checks.push({ id, passed: detail === true, detail: detail === true ? 'ok' : String(detail) });
}
const rejection = (promise) =>
  promise.then(
    () => 'resolved',
    (error) => ({ code: error?.code, issue: error?.issue, issues: error?.issues ?? [] }),
  );

const fileFacts = (path) => {
  const bytes = readFileSync(path);
  return { sha256: `sha256:${createHash('sha256').update(bytes).digest('hex')}`, byteSize: bytes.length };
};
const runnerdFacts = fileFacts(env('RUNNERD_RELEASE'));
const packageVersion = evals.PAPERCLIP_RUNNER_BUILD_METADATA.package.version;
let report;
let receipt;
let artifact;

await check('exports.installedFromTarball', () => {
  const entry = realpathSync(fileURLToPath(import.meta.resolve('@paperclipai/paperclip-runner')));
  const here = realpathSync(fileURLToPath(new URL('.', import.meta.url)));
  return entry.startsWith(join(here, 'node_modules')) || `resolved to ${entry}, outside this consumer`;
});
await check('exports.undeclaredSubpathRefused', async () => {
  const outcome = await rejection(import('@paperclipai/paperclip-runner/dist/testing.js'));
  return (
    outcome.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED' ||
    `importing dist/testing.js: ${JSON.stringify(outcome)}`
  );
});
await check('exports.rootHasNoTestDouble', () => {
  const doubles = Object.keys(root).filter((name) =>
    /Fake|Deterministic|Conformance|Mock|Stub|Testing/i.test(name),
  );
  return doubles.length === 0 || `the root exports ${doubles.join(', ')}`;
});
await check('buildMetadata.matchesPackage', () => {
  const { package: pkg, semanticCatalog } = evals.PAPERCLIP_RUNNER_BUILD_METADATA;
  if (pkg.name !== '@paperclipai/paperclip-runner' || !/^\d+\.\d+\.\d+/.test(pkg.version))
    return `metadata names ${pkg.name}@${pkg.version}`;
  const digest = `sha256:${createHash('sha256').update(evals.canonicalCapabilitySemanticCatalog(), 'utf8').digest('hex')}`;
  return (
    (semanticCatalog.sha256 === digest && evals.PAPERCLIP_RUNNER_SEMANTIC_CATALOG_SHA256 === digest) ||
    'catalog digest differs'
  );
});
let seeded;
await check('nativeFixture.valid', async () => {
  seeded = await evals.loadPaperclipNativeExecutionFixture();
  if (seeded.usage.cost !== null) return 'the no-spend seeded fixture carries a cost receipt';
  const denied = seeded.semanticTools.results.filter((result) => result.outcome === 'denied');
  return (
    (denied.length > 0 && denied.length === seeded.semanticTools.denials.length) ||
    'the seeded fixture does not preserve its denied tool effect'
  );
});
await check('nativeFixture.tamperedRefused', () => {
  const bundle = JSON.parse(JSON.stringify(seeded));
  bundle.usage.totalTokens += 1;
  try {
    evals.parsePaperclipNativeExecution(bundle);
    return 'a bundle whose token totals do not add up was accepted';
  } catch (error) {
    return error.code === 'paperclip_native_execution_invalid' || `threw ${error.code}`;
  }
});
await check('conformance.passed', async () => {
  report = await testing.runHarnessDriverConformance({ driver: new testing.DeterministicHarnessDriver() });
  const failed = Object.entries(report.checks).filter(([, passed]) => passed !== true);
  return failed.length === 0 || `failed: ${failed.map(([name]) => name).join(', ')}`;
});
await check('runnerd.resolved', async () => {
  artifact = await evals.resolvePaperclipRunnerdArtifact({
    executablePath: env('RUNNERD_RELEASE'),
    expectedSha256: runnerdFacts.sha256,
  });
  return (
    artifact.buildMetadata.packageVersion === packageVersion ||
    `runnerd is ${artifact.buildMetadata.packageVersion}`
  );
});
await check('runnerd.wrongDigestRefused', async () => {
  const outcome = await rejection(
    evals.resolvePaperclipRunnerdArtifact({
      executablePath: env('RUNNERD_RELEASE'),
      expectedSha256: `sha256:${'0'.repeat(64)}`,
    }),
  );
  return outcome.issue === 'digest_mismatch' || JSON.stringify(outcome);
});
const fixture = await testing.loadHarnessDriverConformanceFixture();
const descriptor = await new testing.DeterministicHarnessDriver().descriptor();
const requirement = () => ({
  consumer: 'paperclip-runner-clean-consumer',
  packageVersion,
  runnerd: artifact.buildMetadata,
  nativeExecutionVersion: evals.PAPERCLIP_RUNNER_BUILD_METADATA.contracts.nativeExecution,
  prp: { minimumVersion: 1, maximumVersion: 1 },
  catalog: evals.PAPERCLIP_RUNNER_BUILD_METADATA.semanticCatalog,
  driver: {
    contractVersion: evals.PAPERCLIP_RUNNER_BUILD_METADATA.contracts.harnessDriver,
    descriptor,
    requiredCapabilities: fixture.requiredCapabilities,
  },
});
await check('negotiation.compatible', () => {
  receipt = evals.assertPaperclipRunnerEvalCompatibility(requirement());
  return receipt.schema === 'paperclip-runner/evals-integration/v1' || 'no receipt';
});
await check('negotiation.incompatibleRefused', () => {
  const broken = requirement();
  try {
    evals.assertPaperclipRunnerEvalCompatibility({
      ...broken,
      runnerd: { ...broken.runnerd, binaryContractVersion: 999 },
    });
    return 'binaryContractVersion 999 was accepted';
  } catch (error) {
    const codes = (error.issues ?? []).map((issue) => issue.code);
    return (
      (error.code === 'paperclip_runner_eval_incompatible' &&
        codes.includes('binary_contract_version_mismatch')) ||
      `threw ${error.code}: ${codes}`
    );
  }
});
await check('evalSession.bin', async () => {
  // The package's bin as npm linked it into this consumer (never a path into the App's repo).
  const bin = join(
    dirname(fileURLToPath(import.meta.url)),
    'node_modules',
    '.bin',
    'paperclip-runner-eval-session',
  );
  const dir = mkdtempSync(join(tmpdir(), 'paperclip-clean-consumer-attempt-'));
  const request = join(dir, 'request.json');
  writeFileSync(
    request,
    JSON.stringify({
      schema: 'paperclip-runner/eval-session-request/v1',
      attemptId: 'attempt_clean_consumer_1',
      prompt: 'Approve publishing the incident summary.',
      model: 'paperclip-deterministic-1',
      provider: 'paperclip_deterministic',
      runnerd: { path: env('RUNNERD_RELEASE'), sha256: runnerdFacts.sha256 },
      limits: { turnTimeoutMs: 30000, maxAgentTurns: 50, maxEstimatedCostNanodollars: 100000000 },
      session: { runId: 'run_clean_consumer', seed: 'clean-consumer', behaviour: 'deny_tool' },
      evalCase: {
        caseId: 'case_clean_consumer',
        caseSha256: `sha256:${'1'.repeat(64)}`,
        configId: 'config_clean_consumer',
        configSha256: `sha256:${'2'.repeat(64)}`,
      },
    }),
  );
  const output = join(dir, 'artifact.json');
  const exit = await new Promise((resolve) => {
    execFile(
      bin,
      ['--request', request, '--output', output],
      { env: { PATH: process.env.PATH ?? '' } },
      (error) => resolve(error === null ? 0 : error.code),
    );
  });
  try {
    if (exit !== 0) return `paperclip-runner-eval-session exited ${exit}`;
    const artifact = JSON.parse(readFileSync(output, 'utf8'));
    if (artifact.runnerd?.path !== '[withheld]') return 'the artifact states the runnerd path';
    const bundle = evals.parsePaperclipNativeExecution(
      JSON.parse(readFileSync(join(dir, artifact.nativeExecution.path), 'utf8')),
    );
    return bundle.runner.binary.sha256 === runnerdFacts.sha256 || 'the bundle names another binary';
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const failed = checks.filter((entry) => !entry.passed);
if (failed.length > 0) {
  process.stderr.write(failed.map((entry) => `  ${entry.id}: ${entry.detail}\n`).join(''));
  process.exit(1);
}
const tarball = fileFacts(env('TARBALL_PATH'));
const record = {
  schema: 'paperclip-runner/clean-consumer-conformance/v1',
  recordedAt: new Date().toISOString(),
  sourceCommit: env('SOURCE_COMMIT'),
  platform: { os: process.platform, arch: process.arch },
  artifacts: {
    package: { filename: env('TARBALL_FILE'), ...tarball },
    runnerd: { filename: env('RUNNERD_FILE'), ...runnerdFacts, buildProfile: 'release' },
  },
  consumer: {
    installMode: 'offline-packed-artifact',
    imports: [
      '@paperclipai/paperclip-runner',
      '@paperclipai/paperclip-runner/evals',
      '@paperclipai/paperclip-runner/testing',
    ],
    appSourceTreeImports: false,
    providerCalls: 0,
  },
  checks: {
    packageExportsResolved: true,
    nativeExecutionFixture: { schema: seeded.schema, rejectedToolEffectPreserved: true },
    evalCompatibility: receipt,
    evalMismatchFailedClosed: true,
    harnessDriverConformance: report,
    runnerdDigest: true,
    // Ours (additive): runnerd ran an eval session and its bundle names its digest.
    runnerdEvalSession: true,
  },
  // Ours (additive): every consumer check by id, each passed.
  consumerChecks: checks,
};
writeFileSync(env('RECORD_PATH'), `${JSON.stringify(record, null, 2)}\n`);
