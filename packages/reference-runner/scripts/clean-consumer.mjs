// The clean consumer: copied by check-clean-consumers.mjs into a temp project outside the repo,
// where the packed package is installed offline. It imports ONLY the package's declared exports
// (`.`, `./evals`, `./testing`) and Node builtins, runs every consumer check, and writes the
// paperclip-runner/consumer-conformance/v1 record to $RECORD_PATH. Inputs (environment):
// TARBALL_FILE, TARBALL_SHA256, RUNNERD_FILE (the release name), RUNNERD_RELEASE,
// RUNNERD_RELEASE_SHA256, RUNNERD_DEBUG, RUNNERD_DEBUG_SHA256, RECORD_PATH.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
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

const manifest = createRequire(import.meta.url)('@paperclipai/paperclip-runner/package.json');
let report;
let receipt;
let artifact;

await check('exports.installedFromTarball', () => {
  const entry = realpathSync(fileURLToPath(import.meta.resolve('@paperclipai/paperclip-runner')));
  const here = realpathSync(fileURLToPath(new URL('.', import.meta.url)));
  return entry.startsWith(join(here, 'node_modules')) || `resolved to ${entry}, outside this consumer`;
});
await check('exports.undeclaredSubpathRefused', async () => {
  const outcome = await rejection(import('@paperclipai/paperclip-runner/dist/testing/index.js'));
  return (
    outcome.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED' ||
    `importing dist/testing/index.js: ${JSON.stringify(outcome)}`
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
  if (pkg.name !== manifest.name || pkg.version !== manifest.version)
    return `metadata names ${pkg.name}@${pkg.version}`;
  return semanticCatalog.sha256 === evals.canonicalSha256(evals.SEMANTIC_CATALOG) || 'catalog digest differs';
});
await check('nativeFixture.valid', () => {
  const bundle = evals.parseNativeExecution(evals.loadSeededNativeExecutionFixture());
  return bundle.schema === 'paperclip-runner/native-execution/v1' || 'not a native-execution/v1 bundle';
});
await check('nativeFixture.tamperedRefused', () => {
  const bundle = JSON.parse(JSON.stringify(evals.loadSeededNativeExecutionFixture()));
  bundle.usage.totalTokens += 1;
  try {
    evals.parseNativeExecution(bundle);
    return 'a bundle whose token totals do not add up was accepted';
  } catch (error) {
    return error.code === 'paperclip_native_execution_invalid' || `threw ${error.code}`;
  }
});
await check('conformance.passed', async () => {
  report = await testing.runHarnessDriverConformance({ driver: new testing.DeterministicHarnessDriver() });
  const failed = Object.entries(report.checks).filter(([, passed]) => !passed);
  return report.passed || `failed: ${failed.map(([name]) => name).join(', ')}`;
});
await check('runnerd.resolved', async () => {
  artifact = await evals.resolvePaperclipRunnerdArtifact({
    executablePath: env('RUNNERD_RELEASE'),
    expectedSha256: env('RUNNERD_RELEASE_SHA256'),
    requiredBuildProfile: 'release',
  });
  return (
    artifact.buildMetadata.packageVersion === manifest.version ||
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
await check('runnerd.debugRefused', async () => {
  const debug = await evals.resolvePaperclipRunnerdArtifact({
    executablePath: env('RUNNERD_DEBUG'),
    expectedSha256: env('RUNNERD_DEBUG_SHA256'),
  });
  if (debug.buildMetadata.buildProfile !== 'debug')
    return `the debug build says ${debug.buildMetadata.buildProfile}`;
  const outcome = await rejection(
    evals.resolvePaperclipRunnerdArtifact({
      executablePath: env('RUNNERD_DEBUG'),
      expectedSha256: env('RUNNERD_DEBUG_SHA256'),
      requiredBuildProfile: 'release',
    }),
  );
  return (
    outcome.issue === 'metadata_invalid' || `a debug runnerd was not refused: ${JSON.stringify(outcome)}`
  );
});

const fixture = testing.loadHarnessDriverConformanceFixture();
const requirement = () => ({
  consumer: 'paperclip-runner-clean-consumer',
  packageVersion: manifest.version,
  runnerd: artifact.buildMetadata,
  nativeExecutionVersion: 1,
  prp: { minimumVersion: 1, maximumVersion: 1 },
  catalog: { version: evals.SEMANTIC_CATALOG.version, sha256: evals.SEMANTIC_CATALOG_SHA256 },
  driver: {
    contractVersion: evals.CONTRACT_VERSIONS.harnessDriver,
    descriptor: new testing.DeterministicHarnessDriver().descriptor,
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
      runnerd: { path: env('RUNNERD_RELEASE'), sha256: env('RUNNERD_RELEASE_SHA256') },
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
    const bundle = evals.parseNativeExecution(
      JSON.parse(readFileSync(join(dir, artifact.nativeExecution.path), 'utf8')),
    );
    return bundle.runner.binary.sha256 === env('RUNNERD_RELEASE_SHA256') || 'the bundle names another binary';
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const record = {
  schema: 'paperclip-runner/consumer-conformance/v1',
  passed: checks.every((entry) => entry.passed),
  package: { name: manifest.name, version: manifest.version },
  tarball: { fileName: env('TARBALL_FILE'), sha256: env('TARBALL_SHA256') },
  runnerd: {
    fileName: env('RUNNERD_FILE'),
    sha256: env('RUNNERD_RELEASE_SHA256'),
    byteSize: artifact?.byteSize ?? null,
    buildMetadata: artifact?.buildMetadata ?? null,
  },
  host: { platform: process.platform, arch: process.arch, node: process.version },
  conformance: report ?? null,
  negotiation: receipt ?? null,
  checks,
};
writeFileSync(env('RECORD_PATH'), `${JSON.stringify(record, null, 2)}\n`);
process.exitCode = record.passed ? 0 : 1;
