// qualifyRelease: the Evals side of release qualification. Every check of QUALIFICATION_CHECK_IDS
// runs, in order, and every failure is reported; a check that cannot run without an earlier one is
// recorded as skipped with the reason. Everything temporary (the tarball copy, the extracted
// package, the consumer) lives in one private directory under os.tmpdir() that is removed on every
// outcome. No clock is read: a timestamp, if wanted, comes in as `evaluatedAt`.
import { constants as fsConstants } from 'node:fs';
import { chmod, copyFile, lstat, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  canonicalDigest,
  createSchemaAjv,
  digestFile,
  guardPrivatePath,
  isContractError,
  nativeExecutionIssues,
  negotiateCompatibility,
  parsePackageBuildMetadata,
  readJsonText,
  resolveRunnerdArtifact,
} from '@paperclip-evals/contract';

import { appRecordIssues } from './app-record.js';
import { installConsumer, runConsumerProbe } from './consumer.js';
import {
  completeConsumerRequirements,
  incompatibleConsumerRequirements,
  loadEvalsConsumerRequirements,
} from './consumer-requirements.js';
import { runEvalSessionCheck } from './eval-session.js';
import {
  RUNNER_PACKAGE_NAME,
  entryPointIssues,
  judgeConformance,
  manifestIssues,
  rootExportIssues,
  undeclaredSubpathIssues,
  undeclaredSubpaths,
} from './judgements.js';
import { pnpmCommand } from './processes.js';
import {
  QUALIFICATION_CHECK_IDS,
  QUALIFICATION_RECORD_V1,
  currentEvaluator,
  qualificationRecordIssues,
} from './record.js';
import { readReleaseLayout, verifySha256Sums } from './release-dir.js';
import { DEFAULT_TARBALL_LIMITS, extractTarball } from './tarball.js';

import type {
  CompatibilityReceipt,
  ConsumerRequirements,
  PackageBuildMetadata,
  RunnerdArtifact,
  Sha256Digest,
} from '@paperclip-evals/contract';

import type { PackageManifest } from './judgements.js';
import type { ProbeReport } from './probe.js';
import type {
  ConformanceReport,
  QualificationCheck,
  QualificationCheckId,
  QualificationIssue,
  QualificationRecord,
} from './record.js';
import type { TarballLimits } from './tarball.js';

/** Name prefix of the private work directory under os.tmpdir(). */
export const WORK_DIR_PREFIX = 'paperclip-evals-qualify-';
const MAX_MANIFEST_BYTES = 1024 * 1024;

export interface QualifyReleaseOptions {
  readonly releaseDir: string;
  /** Copied into the record as is (an RFC 3339 date-time); qualification reads no clock. */
  readonly evaluatedAt?: string;
  /** Which runnerd to resolve: paperclip-runnerd-<platform>-<arch> (default: this host). */
  readonly platform?: string;
  readonly arch?: string;
  /** The pnpm command line (default: pnpmCommand(env)). */
  readonly pnpm?: readonly string[];
  /** Where PAPERCLIP_EVALS_PNPM, npm_execpath and pnpm's variables are read (default process.env). */
  readonly env?: NodeJS.ProcessEnv;
  /** Parent of the private work directory (default os.tmpdir()); must be outside any package. */
  readonly tempDir?: string;
  readonly tarballLimits?: TarballLimits;
  readonly installTimeoutMs?: number;
  readonly probeTimeoutMs?: number;
  readonly metadataTimeoutMs?: number;
  /** Time for runnerd's eval session (default 30 s). */
  readonly evalSessionTimeoutMs?: number;
  /** The request runnerd runs (default: the committed evals-eval-session-request.json). */
  readonly evalSessionRequestFile?: string;
  /** Evals' consumer requirements (default: the committed evals-consumer-requirements.json). */
  readonly consumerRequirementsFile?: string;
}

/**
 * Qualifies one release directory and returns the evals-qualification/v1 record (qualified or not).
 * Rejects only when the release directory itself cannot be read (the fs error), when Evals' own
 * consumer requirements are broken, or on an internal error.
 */
export async function qualifyRelease(options: QualifyReleaseOptions): Promise<QualificationRecord> {
  if (options.evaluatedAt !== undefined && !isDateTime(options.evaluatedAt)) {
    throw new TypeError(
      `evaluatedAt must be an RFC 3339 date-time, received ${JSON.stringify(options.evaluatedAt)}`,
    );
  }
  const releaseDir = resolve(options.releaseDir);
  const baseRequirements = loadEvalsConsumerRequirements(options.consumerRequirementsFile);
  const layout = await readReleaseLayout(releaseDir, {
    ...(options.platform === undefined ? {} : { platform: options.platform }),
    ...(options.arch === undefined ? {} : { arch: options.arch }),
  });
  const workDir = await mkdtemp(join(options.tempDir ?? tmpdir(), WORK_DIR_PREFIX));
  // Removed on SIGINT/SIGTERM too (with every child's process group): contract's child-cleanup.
  const releaseWorkDir = guardPrivatePath(workDir);
  try {
    await chmod(workDir, 0o700);
    const run = new QualificationRun(releaseDir, workDir, options, baseRequirements);
    return await run.execute(layout);
  } finally {
    await rm(workDir, { recursive: true, force: true });
    releaseWorkDir();
  }
}

type Layout = Awaited<ReturnType<typeof readReleaseLayout>>;

/** One qualification's state, filled in check by check. */
class QualificationRun {
  readonly #checks = new Map<QualificationCheckId, QualificationCheck>();
  #packageName: string | null = null;
  #packageVersion: string | null = null;
  #tarballSha256: Sha256Digest | null = null;
  #runnerdSha256: Sha256Digest | null = null;
  #runnerdByteSize: number | null = null;
  #artifact: RunnerdArtifact | null = null;
  #receipt: CompatibilityReceipt | null = null;
  #requirements: ConsumerRequirements | null = null;
  #conformance: ConformanceReport | null = null;
  #metadata: PackageBuildMetadata | null = null;
  #catalog: { version: number; sha256: Sha256Digest } | null = null;
  readonly #digests = {
    buildMetadata: null as Sha256Digest | null,
    semanticCatalog: null as Sha256Digest | null,
    nativeExecutionSchema: null as Sha256Digest | null,
    seededFixture: null as Sha256Digest | null,
    consumerRequirements: null as Sha256Digest | null,
  };

  constructor(
    readonly releaseDir: string,
    readonly workDir: string,
    readonly options: QualifyReleaseOptions,
    readonly baseRequirements: ConsumerRequirements,
  ) {}

  #pass(id: QualificationCheckId, detail: string): void {
    this.#checks.set(id, { id, status: 'pass', detail });
  }

  #fail(id: QualificationCheckId, detail: string, issues: readonly QualificationIssue[]): void {
    this.#checks.set(id, { id, status: 'fail', detail, issues });
  }

  #skip(id: QualificationCheckId, reason: string): void {
    this.#checks.set(id, { id, status: 'skipped', detail: reason });
  }

  #judge(
    id: QualificationCheckId,
    issues: readonly QualificationIssue[],
    passDetail: string,
    failDetail: string,
  ): boolean {
    if (issues.length === 0) this.#pass(id, passDetail);
    else this.#fail(id, `${failDetail} (${issues.length} issue${issues.length === 1 ? '' : 's'})`, issues);
    return issues.length === 0;
  }

  async execute(layout: Layout): Promise<QualificationRecord> {
    // 1–2. What the directory holds, and SHA256SUMS.
    this.#judge(
      'release-layout',
      layout.issues,
      `SHA256SUMS, ${layout.tarball ?? '?'}, ${layout.runnerd ?? '?'} and the App's record are present`,
      'the release directory does not have the expected layout',
    );
    const sums = await verifySha256Sums(this.releaseDir, layout);
    this.#judge(
      'sha256sums',
      sums.issues,
      `SHA256SUMS lists exactly the ${sums.verifiedCount} files of the directory and every digest matches`,
      'SHA256SUMS does not verify the release directory',
    );

    // 3–4. The tarball, extracted safely, and its package.json.
    const packageDir = await this.#extract(layout, sums.computed);
    let manifest: PackageManifest | null = null;
    if (packageDir === null)
      this.#skip('package-manifest', 'needs tarball-extract: nothing safe was extracted');
    else manifest = await this.#readManifest(packageDir);

    // 5–6. The isolated consumer and its probe.
    const report = await this.#probe(packageDir, manifest);

    // 7–13. What the probe saw, judged by Evals.
    this.#judgeProbe(report);

    // 14. runnerd, by path and the SHA256SUMS digest.
    await this.#resolveRunnerd(layout, sums.expected, sums.computed);

    // 15. runnerd runs Evals' eval-session request and writes a bundle that verifies.
    await this.#runEvalSession(layout);

    // 16. The App's record agrees with what Evals computed.
    await this.#checkAppRecord(layout);

    // 17–18. Negotiation, and proof that it fails closed.
    this.#negotiate();

    return this.#record(layout, sums.sumsSha256, sums.computed);
  }

  async #extract(layout: Layout, computed: Readonly<Record<string, Sha256Digest>>): Promise<string | null> {
    const id = 'tarball-extract';
    if (layout.tarball === null) {
      this.#skip(id, 'needs release-layout: there is no single *.tgz to extract');
      return null;
    }
    // The bytes extracted are the bytes hashed: a private copy, digested, then scanned and extracted.
    const copy = join(this.workDir, 'package.tgz');
    await copyFile(join(this.releaseDir, layout.tarball), copy, fsConstants.COPYFILE_EXCL);
    this.#tarballSha256 = (await digestFile(copy)).digest;
    const issues: QualificationIssue[] = [];
    const listed = computed[layout.tarball];
    if (listed !== undefined && listed !== this.#tarballSha256) {
      issues.push({
        code: 'tarball_changed',
        message: `${layout.tarball} changed while it was being qualified`,
        file: layout.tarball,
        expected: listed,
        received: this.#tarballSha256,
      });
    }
    const destination = join(this.workDir, 'extract');
    await mkdir(destination, { mode: 0o700 });
    const extraction = await extractTarball(
      copy,
      destination,
      this.options.tarballLimits ?? DEFAULT_TARBALL_LIMITS,
    );
    issues.push(...extraction.issues);
    const ok = this.#judge(
      id,
      issues,
      `${extraction.entries.length} entries (${extraction.totalBytes} bytes) under package/ extracted into a private directory`,
      'the tarball is not safe to extract',
    );
    return ok ? extraction.packageDir : null;
  }

  async #readManifest(packageDir: string): Promise<PackageManifest | null> {
    const id = 'package-manifest';
    const path = join(packageDir, 'package.json');
    let manifest: unknown;
    try {
      const stats = await lstat(path);
      if (!stats.isFile()) throw new Error('package/package.json is not a regular file');
      const text = readJsonText(await readFile(path), { maxBytes: MAX_MANIFEST_BYTES });
      if (!text.ok) {
        this.#fail(id, 'package/package.json is not strict JSON', text.issues);
        return null;
      }
      manifest = text.value;
    } catch (error) {
      this.#fail(id, 'the tarball has no readable package/package.json', [
        {
          code: 'package_json_missing',
          message: `package/package.json cannot be read: ${error instanceof Error ? error.message : String(error)}`,
          entry: 'package/package.json',
        },
      ]);
      return null;
    }
    if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) {
      this.#fail(id, 'package/package.json is not a JSON object', [
        {
          code: 'package_json_not_object',
          message: 'package/package.json is not a JSON object',
          entry: 'package/package.json',
        },
      ]);
      return null;
    }
    const parsed = manifest as PackageManifest;
    if (typeof parsed.name === 'string') this.#packageName = parsed.name;
    if (typeof parsed.version === 'string') this.#packageVersion = parsed.version;
    this.#judge(
      id,
      manifestIssues(parsed),
      `${RUNNER_PACKAGE_NAME} ${String(parsed.version)} declares ., ./evals and ./testing`,
      'package/package.json is not what a consumer can rely on',
    );
    return parsed;
  }

  async #probe(packageDir: string | null, manifest: PackageManifest | null): Promise<ProbeReport | null> {
    if (packageDir === null || manifest === null || manifest.name !== RUNNER_PACKAGE_NAME) {
      const reason =
        packageDir === null
          ? 'needs tarball-extract: nothing safe was extracted'
          : `needs package-manifest: the tarball does not pack ${RUNNER_PACKAGE_NAME}`;
      this.#skip('consumer-install', reason);
      this.#skip('consumer-probe', 'needs consumer-install');
      return null;
    }
    const env = this.options.env ?? process.env;
    const consumerDir = join(this.workDir, 'consumer');
    const installed = await installConsumer({
      consumerDir,
      packageName: RUNNER_PACKAGE_NAME,
      packageDir,
      pnpm: this.options.pnpm ?? pnpmCommand(env),
      env,
      ...(this.options.installTimeoutMs === undefined ? {} : { timeoutMs: this.options.installTimeoutMs }),
    });
    if (!this.#judge('consumer-install', installed.issues, installed.detail, installed.detail)) {
      this.#skip('consumer-probe', 'needs consumer-install');
      return null;
    }
    const probed = await runConsumerProbe({
      consumerDir,
      input: { packageName: RUNNER_PACKAGE_NAME, undeclaredSubpaths: undeclaredSubpaths(manifest) },
      env,
      ...(this.options.probeTimeoutMs === undefined ? {} : { timeoutMs: this.options.probeTimeoutMs }),
    });
    this.#judge('consumer-probe', probed.issues, probed.detail, probed.detail);
    return probed.report;
  }

  #judgeProbe(report: ProbeReport | null): void {
    if (report === null) {
      for (const id of [
        'entry-points',
        'root-exports',
        'undeclared-subpaths',
        'build-metadata',
        'semantic-catalog',
        'native-execution-fixture',
        'driver-conformance',
      ] as const) {
        this.#skip(id, 'needs consumer-probe: no probe report');
      }
      return;
    }
    this.#judge(
      'entry-points',
      entryPointIssues(report),
      '., ./evals and ./testing load and export the documented names',
      'the public entry points are incomplete',
    );
    if (report.entryPoints['.'].loaded) {
      this.#judge(
        'root-exports',
        rootExportIssues(report),
        'the root entry point exports no test double',
        'the root entry point leaks test doubles',
      );
    } else this.#skip('root-exports', 'needs entry-points: the root entry point did not load');
    this.#judge(
      'undeclared-subpaths',
      undeclaredSubpathIssues(report),
      `${report.undeclared.length} undeclared subpaths refused with ERR_PACKAGE_PATH_NOT_EXPORTED`,
      'undeclared subpaths are reachable',
    );

    const evals = report.evals;
    if (evals === null) {
      for (const id of ['build-metadata', 'semantic-catalog', 'native-execution-fixture'] as const) {
        this.#skip(id, 'needs entry-points: ./evals did not load');
      }
    } else {
      this.#judgeBuildMetadata(evals.buildMetadata);
      this.#judgeCatalog(evals.semanticCatalog, evals.semanticCatalogSha256);
      this.#judgeFixture(evals);
    }

    if (report.conformance === null)
      this.#skip('driver-conformance', 'needs entry-points: ./testing did not load');
    else {
      const judged = judgeConformance(report.conformance, this.#metadata?.contracts.harnessDriver ?? null);
      this.#conformance = judged.report;
      this.#judge(
        'driver-conformance',
        judged.issues,
        `the deterministic driver passed ${Object.keys(judged.report?.checks ?? {}).length} conformance checks`,
        'the harness driver does not conform',
      );
    }
  }

  #judgeBuildMetadata(captured: NonNullable<ProbeReport['evals']>['buildMetadata']): void {
    const id = 'build-metadata';
    if (!captured.ok) {
      this.#fail(id, 'PAPERCLIP_RUNNER_BUILD_METADATA cannot be read', [
        {
          code: 'build_metadata_unavailable',
          message: `${captured.error.name}: ${captured.error.message}`,
          received: captured.error,
        },
      ]);
      return;
    }
    this.#digests.buildMetadata = canonicalDigestOrNull(captured.value);
    let metadata: PackageBuildMetadata;
    try {
      metadata = parsePackageBuildMetadata(captured.value);
    } catch (error) {
      if (!isContractError(error)) throw error;
      this.#fail(id, 'the package build metadata is invalid', error.issues);
      return;
    }
    this.#metadata = metadata;
    const issues: QualificationIssue[] = [];
    if (metadata.package.version !== this.#packageVersion) {
      issues.push({
        code: 'metadata_version_mismatch',
        message: `the build metadata says ${metadata.package.version}, the packed package.json ${String(this.#packageVersion)}`,
        path: '/package/version',
        expected: this.#packageVersion ?? 'a package.json version',
        received: metadata.package.version,
      });
    }
    this.#judge(
      id,
      issues,
      `paperclip-runner/build-metadata/v1 for ${metadata.package.name} ${metadata.package.version}`,
      'the build metadata does not describe the packed package',
    );
  }

  #judgeCatalog(
    catalog: NonNullable<ProbeReport['evals']>['semanticCatalog'],
    declared: NonNullable<ProbeReport['evals']>['semanticCatalogSha256'],
  ): void {
    const id = 'semantic-catalog';
    if (this.#metadata === null) {
      this.#skip(id, 'needs build-metadata: no valid metadata to compare the catalog with');
      return;
    }
    const expected = this.#metadata.semanticCatalog;
    if (!catalog.ok) {
      this.#fail(id, 'SEMANTIC_CATALOG cannot be read', [
        {
          code: 'catalog_unavailable',
          message: `${catalog.error.name}: ${catalog.error.message}`,
          received: catalog.error,
        },
      ]);
      return;
    }
    const issues: QualificationIssue[] = [];
    let digest: Sha256Digest | null = null;
    try {
      digest = canonicalDigest(catalog.value);
    } catch (error) {
      issues.push({
        code: 'catalog_not_canonicalizable',
        message: `SEMANTIC_CATALOG has no RFC 8785 canonical form: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
    this.#digests.semanticCatalog = digest;
    const version = (catalog.value as { version?: unknown } | null)?.version;
    if (typeof version !== 'number' || version !== expected.version) {
      issues.push({
        code: 'catalog_version_mismatch',
        message: `SEMANTIC_CATALOG.version is ${JSON.stringify(version)}, the build metadata says ${expected.version}`,
        path: '/semanticCatalog/version',
        expected: expected.version,
        received: version ?? 'missing',
      });
    }
    if (digest !== null && digest !== expected.sha256) {
      issues.push({
        code: 'catalog_digest_mismatch',
        message: "Evals' canonical digest of SEMANTIC_CATALOG differs from the build metadata's",
        path: '/semanticCatalog/sha256',
        expected: expected.sha256,
        received: digest,
      });
    }
    if (!declared.ok || declared.value !== digest) {
      issues.push({
        code: 'catalog_declared_digest_mismatch',
        message: "SEMANTIC_CATALOG_SHA256 differs from Evals' canonical digest of SEMANTIC_CATALOG",
        expected: digest,
        received: declared.ok ? declared.value : declared.error,
      });
    }
    if (digest !== null && typeof version === 'number') this.#catalog = { version, sha256: digest };
    this.#judge(
      id,
      issues,
      `catalog v${String(version)} recomputed: ${String(digest)}`,
      'the semantic catalog does not match its metadata',
    );
  }

  #judgeFixture(evals: NonNullable<ProbeReport['evals']>): void {
    const id = 'native-execution-fixture';
    const issues: QualificationIssue[] = [];
    if (
      evals.nativeExecutionSchema.ok &&
      typeof evals.nativeExecutionSchema.value === 'object' &&
      evals.nativeExecutionSchema.value !== null
    ) {
      this.#digests.nativeExecutionSchema = canonicalDigestOrNull(evals.nativeExecutionSchema.value);
    } else {
      issues.push({
        code: 'native_execution_schema_unavailable',
        message: 'NATIVE_EXECUTION_SCHEMA is not a JSON object',
        received: evals.nativeExecutionSchema.ok
          ? evals.nativeExecutionSchema.value
          : evals.nativeExecutionSchema.error,
      });
    }
    if (!evals.fixture.ok) {
      issues.push({
        code: 'fixture_unavailable',
        message: `loadSeededNativeExecutionFixture failed: ${evals.fixture.error.name}: ${evals.fixture.error.message}`,
        received: evals.fixture.error,
      });
      this.#judge(id, issues, 'the seeded fixture loaded', 'the seeded fixture cannot be checked');
      return;
    }
    this.#digests.seededFixture = canonicalDigestOrNull(evals.fixture.value);
    const ours = nativeExecutionIssues(evals.fixture.value);
    const theirs = evals.packageVerdict;
    if (!theirs.ran) {
      issues.push({
        code: 'package_parser_failed',
        message: `the package's parseNativeExecution did not give a verdict: ${theirs.error.name}: ${theirs.error.message}`,
        received: theirs.error,
      });
    } else if (theirs.valid !== (ours.length === 0)) {
      issues.push({
        code: 'parser_verdict_mismatch',
        message: `Evals' parser finds the seeded fixture ${ours.length === 0 ? 'valid' : 'invalid'}, the package's parser ${theirs.valid ? 'valid' : 'invalid'}`,
        expected: ours.length === 0 ? 'valid' : { invalid: ours.map((issue) => issue.code) },
        received: theirs.valid ? 'valid' : { invalid: theirs.issueCodes },
      });
    }
    if (ours.length === 0) issues.push(...brokenVariantIssues(evals.brokenVariants));
    if (ours.length > 0) {
      issues.push({
        code: 'fixture_invalid',
        message: `Evals' parser rejects the seeded fixture with ${ours.length} issue(s): ${[...new Set(ours.map((issue) => issue.code))].join(', ')}`,
        expected: 'a valid paperclip-runner/native-execution/v1 bundle',
        received: ours.slice(0, 20),
      });
    }
    this.#judge(
      id,
      issues,
      `the seeded fixture is valid for both Evals' parser and the package's, and both refuse its ${evals.brokenVariants.length} broken variants (${evals.brokenVariants.map((variant) => variant.name).join(', ')})`,
      'the seeded fixture does not pass both parsers, or a broken variant of it is accepted',
    );
  }

  async #resolveRunnerd(
    layout: Layout,
    expected: ReadonlyMap<string, Sha256Digest>,
    computed: Readonly<Record<string, Sha256Digest>>,
  ): Promise<void> {
    const id = 'runnerd-resolve';
    if (layout.runnerd === null) {
      this.#skip(id, 'needs release-layout: there is no runnerd for this host');
      return;
    }
    const path = join(this.releaseDir, layout.runnerd);
    this.#runnerdSha256 = computed[layout.runnerd] ?? null;
    this.#runnerdByteSize = (await lstat(path)).size;
    const expectedSha256 = expected.get(layout.runnerd);
    if (expectedSha256 === undefined) {
      this.#skip(id, `needs sha256sums: SHA256SUMS gives no digest for ${layout.runnerd}`);
      return;
    }
    try {
      this.#artifact = await resolveRunnerdArtifact({
        executablePath: path,
        expectedSha256,
        ...(this.options.metadataTimeoutMs === undefined
          ? {}
          : { metadataTimeoutMs: this.options.metadataTimeoutMs }),
      });
    } catch (error) {
      if (!isContractError(error)) throw error;
      this.#fail(
        id,
        `${layout.runnerd} did not resolve: ${error.issues.map((issue) => issue.code).join(', ')}`,
        error.issues,
      );
      return;
    }
    this.#runnerdSha256 = this.#artifact.sha256;
    this.#runnerdByteSize = this.#artifact.byteSize;
    const profile = this.#artifact.buildProfile;
    const issues: QualificationIssue[] =
      profile === 'release'
        ? []
        : [
            {
              code: 'build_profile_not_release',
              message:
                profile === undefined
                  ? `${layout.runnerd} does not state its build profile; only a release build qualifies`
                  : `${layout.runnerd} is a ${profile} build; only a release build qualifies`,
              component: 'runnerd',
              file: layout.runnerd,
              expected: 'release',
              received: profile ?? 'not stated',
            },
          ];
    // runnerd and the package are built from the same source: they state the same PRP range.
    const theirs = this.#artifact.buildMetadata.prp;
    const ours = this.#metadata?.prp;
    if (
      ours !== undefined &&
      (theirs.name !== ours.name ||
        theirs.minimumVersion !== ours.minimumVersion ||
        theirs.maximumVersion !== ours.maximumVersion)
    ) {
      issues.push({
        code: 'runnerd_prp_range_mismatch',
        message: `${layout.runnerd} speaks ${theirs.name} ${theirs.minimumVersion}..${theirs.maximumVersion}, the package's build metadata ${ours.name} ${ours.minimumVersion}..${ours.maximumVersion}`,
        component: 'prp',
        file: layout.runnerd,
        path: '/prp',
        expected: {
          name: ours.name,
          minimumVersion: ours.minimumVersion,
          maximumVersion: ours.maximumVersion,
        },
        received: {
          name: theirs.name,
          minimumVersion: theirs.minimumVersion,
          maximumVersion: theirs.maximumVersion,
        },
      });
    }
    this.#judge(
      id,
      issues,
      `${layout.runnerd} verified (${this.#artifact.sha256}), release build of ${this.#artifact.buildMetadata.packageVersion}, PRP ${theirs.minimumVersion}..${theirs.maximumVersion} as the package states`,
      `${layout.runnerd} is not a release build of the package's PRP range`,
    );
  }

  async #runEvalSession(layout: Layout): Promise<void> {
    const id = 'runnerd-eval-session';
    const artifact = this.#artifact;
    if (layout.runnerd === null || artifact === null) {
      this.#skip(id, 'needs runnerd-resolve: no verified runnerd to run');
      return;
    }
    if (this.#packageVersion === null) {
      this.#skip(id, "needs package-manifest: no package version to hold the bundle's runner to");
      return;
    }
    const result = await runEvalSessionCheck({
      runnerdPath: join(this.releaseDir, layout.runnerd),
      expectedSha256: artifact.sha256,
      packageVersion: this.#packageVersion,
      workDir: this.workDir,
      ...(this.options.evalSessionTimeoutMs === undefined
        ? {}
        : { timeoutMs: this.options.evalSessionTimeoutMs }),
      ...(this.options.evalSessionRequestFile === undefined
        ? {}
        : { requestFile: this.options.evalSessionRequestFile }),
    });
    this.#judge(id, result.issues, result.detail, result.detail);
  }

  async #checkAppRecord(layout: Layout): Promise<void> {
    const id = 'app-record';
    const missing = [
      layout.appRecord === null ? 'release-layout (an App record that is one strict JSON object)' : null,
      layout.tarball === null || this.#tarballSha256 === null ? 'tarball-extract (a tarball digest)' : null,
      layout.runnerd === null || this.#runnerdSha256 === null ? 'sha256sums (a runnerd digest)' : null,
      this.#packageVersion === null ? 'package-manifest (a package version)' : null,
    ].filter((item): item is string => item !== null);
    if (
      missing.length > 0 ||
      layout.appRecord === null ||
      layout.tarball === null ||
      layout.runnerd === null ||
      this.#tarballSha256 === null ||
      this.#runnerdSha256 === null ||
      this.#packageVersion === null
    ) {
      this.#skip(id, `needs ${missing.join(', ')}`);
      return;
    }
    const bytes = await readFile(join(this.releaseDir, layout.appRecord));
    this.#judge(
      id,
      appRecordIssues(bytes, {
        file: layout.appRecord,
        tarball: { fileName: layout.tarball, sha256: this.#tarballSha256 },
        runnerd: { fileName: layout.runnerd, sha256: this.#runnerdSha256 },
        packageVersion: this.#packageVersion,
      }),
      `${layout.appRecord} passed and names ${layout.tarball}, ${layout.runnerd} and ${this.#packageVersion} with the digests Evals computed`,
      `${layout.appRecord} does not agree with the release`,
    );
  }

  #negotiate(): void {
    const metadata = this.#metadata;
    const catalog = this.#catalog;
    const conformance = this.#conformance;
    const artifact = this.#artifact;
    const packageVersion = this.#packageVersion;
    if (
      metadata === null ||
      catalog === null ||
      conformance === null ||
      artifact === null ||
      packageVersion === null
    ) {
      const missing = [
        metadata === null ? 'build-metadata' : null,
        catalog === null ? 'semantic-catalog' : null,
        conformance === null ? 'driver-conformance (a report with a driver descriptor)' : null,
        artifact === null ? 'runnerd-resolve (runnerd build metadata)' : null,
        packageVersion === null ? 'package-manifest (a package version)' : null,
      ].filter((item): item is string => item !== null);
      const reason = `needs ${missing.join(', ')}`;
      this.#skip('negotiation', reason);
      this.#skip('negotiation-fails-closed', reason);
      return;
    }
    const consumer = completeConsumerRequirements(this.baseRequirements, {
      packageVersion,
      descriptor: conformance.descriptor,
    });
    this.#requirements = consumer;
    this.#digests.consumerRequirements = canonicalDigest(consumer);
    const request = { package: metadata, runnerd: artifact.buildMetadata, catalog };
    try {
      this.#receipt = negotiateCompatibility({ ...request, consumer });
      this.#pass(
        'negotiation',
        `compatible: prp.v${this.#receipt.negotiatedPrpVersion}, driver ${this.#receipt.driverKind}@${this.#receipt.driverVersion}, catalog ${this.#receipt.catalogSha256}`,
      );
    } catch (error) {
      if (!isContractError(error)) throw error;
      this.#fail(
        'negotiation',
        `incompatible with ${consumer.consumer}: ${error.issues.map((issue) => issue.code).join(', ')}`,
        error.issues,
      );
    }

    const incompatible = incompatibleConsumerRequirements(consumer);
    try {
      negotiateCompatibility({ ...request, consumer: incompatible });
      this.#fail('negotiation-fails-closed', 'the negotiator accepted a consumer that speaks only PRP 99', [
        {
          code: 'negotiation_did_not_fail_closed',
          message: 'negotiating with a consumer PRP range of 99..99 succeeded; the negotiator must refuse it',
          component: 'prp',
          expected: 'paperclip_runner_eval_incompatible with prp_version_no_overlap',
          received: 'a receipt',
        },
      ]);
    } catch (error) {
      if (!isContractError(error)) throw error;
      const codes = error.issues.map((issue) => issue.code);
      if (error.code === 'paperclip_runner_eval_incompatible' && codes.includes('prp_version_no_overlap')) {
        this.#pass(
          'negotiation-fails-closed',
          'a consumer speaking only PRP 99 is refused with prp_version_no_overlap',
        );
      } else {
        this.#fail('negotiation-fails-closed', 'the negotiator refused PRP 99..99 for the wrong reason', [
          {
            code: 'negotiation_wrong_refusal',
            message: `negotiating with PRP 99..99 failed with ${error.code} (${codes.join(', ')}), not prp_version_no_overlap`,
            component: 'prp',
            expected: 'prp_version_no_overlap',
            received: codes,
          },
        ]);
      }
    }
  }

  #record(
    layout: Layout,
    sumsSha256: Sha256Digest | null,
    files: Readonly<Record<string, Sha256Digest>>,
  ): QualificationRecord {
    const checks = QUALIFICATION_CHECK_IDS.map((id) => {
      const check = this.#checks.get(id);
      if (check === undefined) throw new Error(`internal: check ${id} was never decided`);
      return check;
    });
    const record: QualificationRecord = {
      schema: QUALIFICATION_RECORD_V1,
      qualified: checks.every((check) => check.status === 'pass'),
      releaseDir: this.releaseDir,
      ...(this.options.evaluatedAt === undefined ? {} : { evaluatedAt: this.options.evaluatedAt }),
      evaluator: currentEvaluator(),
      package: {
        name: this.#packageName === '' ? null : this.#packageName,
        version: this.#packageVersion === '' ? null : this.#packageVersion,
        tarball: layout.tarball,
        tarballSha256: this.#tarballSha256,
      },
      runnerd: {
        file: layout.runnerd,
        sha256: this.#runnerdSha256,
        byteSize: this.#runnerdByteSize,
        buildMetadata: this.#artifact?.buildMetadata ?? null,
        buildProfile: this.#artifact?.buildProfile ?? null,
      },
      receipt: this.#receipt,
      consumerRequirements: this.#requirements,
      conformance: this.#conformance,
      checks,
      digests: { sha256sums: sumsSha256, files, ...this.#digests },
    };
    const issues = qualificationRecordIssues(record);
    if (issues.length > 0) {
      throw new Error(
        `internal: the qualification record breaks its schema: ${JSON.stringify(issues, null, 2)}`,
      );
    }
    return record;
  }
}

/** Fewest broken variants of the seeded fixture the package's parser must be shown to refuse. */
const MIN_BROKEN_VARIANTS = 2;

/** The package's parser must refuse every broken variant the probe made, as Evals' parser does. */
function brokenVariantIssues(
  variants: NonNullable<ProbeReport['evals']>['brokenVariants'],
): QualificationIssue[] {
  const issues: QualificationIssue[] = [];
  const refusedByEvals = variants.filter((variant) => nativeExecutionIssues(variant.bundle).length > 0);
  if (refusedByEvals.length < MIN_BROKEN_VARIANTS) {
    issues.push({
      code: 'broken_variants_too_few',
      message: `only ${refusedByEvals.length} broken variant(s) of the seeded fixture could be made (Evals' parser refuses them); at least ${MIN_BROKEN_VARIANTS} are needed to show the package's parser fails closed`,
      expected: `at least ${MIN_BROKEN_VARIANTS}`,
      received: variants.map((variant) => variant.name),
    });
  }
  for (const variant of refusedByEvals) {
    const verdict = variant.verdict;
    if (!verdict.ran) {
      issues.push({
        code: 'package_parser_failed',
        message: `the package's parseNativeExecution did not give a verdict on the ${variant.name} variant: ${verdict.error.name}: ${verdict.error.message}`,
        received: verdict.error,
      });
    } else if (verdict.valid) {
      issues.push({
        code: 'package_parser_accepts_broken',
        message: `the package's parseNativeExecution accepts the seeded fixture with ${variant.name}; Evals' parser refuses it`,
        expected: { invalid: [...new Set(nativeExecutionIssues(variant.bundle).map((issue) => issue.code))] },
        received: 'valid',
      });
    }
  }
  return issues;
}

let dateTimeValidator: ReturnType<ReturnType<typeof createSchemaAjv>['compile']> | undefined;

function isDateTime(text: string): boolean {
  dateTimeValidator ??= createSchemaAjv().compile({ type: 'string', format: 'date-time' });
  return dateTimeValidator(text) === true;
}

function canonicalDigestOrNull(value: unknown): Sha256Digest | null {
  try {
    return canonicalDigest(value);
  } catch {
    return null;
  }
}
