// Six-dimension compatibility negotiation between a runner release and an Evals consumer. Pure: no
// I/O, no clock. Either every dimension agrees and a receipt says what was negotiated, or one
// ContractError('paperclip_runner_eval_incompatible') lists every mismatch found, across all six
// dimensions at once, so a release team fixes them in one round trip.
import { createRequire } from 'node:module';

import { ContractError } from './errors.js';
import { NATIVE_EXECUTION_V1 } from './native-execution-types.js';
import { SCHEMA_IDS, schemaIssuesOf } from './schema-registry.js';

import type * as SemverModule from 'semver';

import type { Sha256Digest } from './digest.js';
import type { Issue } from './errors.js';
import type { RunnerdBuildMetadata } from './runnerd-metadata.js';

/**
 * semver (loaded with all its ranges and classes, ~30-90 ms) is needed only by a negotiation: every
 * command importing this package would pay for it (`evals validate` of one bundle among them).
 */
const require = createRequire(import.meta.url);
let semverModule: typeof SemverModule | undefined;
const semver = (): typeof SemverModule => (semverModule ??= require('semver') as typeof SemverModule);

export const EVALS_INTEGRATION_V1 = 'paperclip-runner/evals-integration/v1';
export const PACKAGE_BUILD_METADATA_V1 = 'paperclip-runner/build-metadata/v1';
export const CONSUMER_REQUIREMENTS_V1 = 'paperclip-evals/consumer-requirements/v1';

interface VersionRange {
  readonly minimumVersion: number;
  readonly maximumVersion: number;
}

/** What the packed package's `./evals` entry point says about itself (unknown fields kept). */
export interface PackageBuildMetadata {
  readonly schema: typeof PACKAGE_BUILD_METADATA_V1;
  readonly package: { readonly name: string; readonly version: string };
  readonly contracts: {
    readonly nativeExecution: number;
    readonly runnerdArtifact: number;
    readonly harnessDriver: number;
    readonly semanticCatalog: number;
    readonly [contract: string]: number;
  };
  readonly prp: VersionRange & { readonly name: string };
  readonly semanticCatalog: { readonly version: number; readonly sha256: Sha256Digest };
  readonly [field: string]: unknown;
}

export interface HarnessDriverDescriptor {
  readonly kind: string;
  readonly version: string;
  /** `prp.v<N>`: the PRP version the driver speaks. */
  readonly protocolVersion: string;
  /** A capability counts only when it is exactly `true`; absent is not true. */
  readonly capabilities: Readonly<Record<string, unknown>>;
  readonly [field: string]: unknown;
}

/** What the consumer requires before it runs anything. */
export interface ConsumerRequirements {
  readonly schema: typeof CONSUMER_REQUIREMENTS_V1;
  readonly consumer: string;
  /** The exact package version the consumer pins. */
  readonly packageVersion: string;
  /** The attempt bundle schema the consumer reads. */
  readonly nativeExecution: string;
  readonly prp: VersionRange & { readonly name?: string };
  readonly driver: {
    readonly contractVersion: number;
    readonly descriptor: HarnessDriverDescriptor;
    readonly requiredCapabilities: readonly string[];
  };
  readonly [field: string]: unknown;
}

export interface CompatibilityRequest {
  readonly package: PackageBuildMetadata;
  readonly runnerd: RunnerdBuildMetadata;
  readonly consumer: ConsumerRequirements;
  /** The semantic catalog the consumer holds: its contract version and RFC 8785 canonical digest. */
  readonly catalog: { readonly version: number; readonly sha256: string };
}

export interface CompatibilityReceipt {
  readonly schema: typeof EVALS_INTEGRATION_V1;
  readonly consumer: string;
  readonly packageVersion: string;
  readonly runnerdPackageVersion: string;
  readonly negotiatedPrpVersion: number;
  readonly nativeExecution: typeof NATIVE_EXECUTION_V1;
  readonly catalogSha256: string;
  readonly driverKind: string;
  readonly driverVersion: string;
}

export type CompatibilityComponent = 'package' | 'binary' | 'prp' | 'catalog' | 'driver' | 'nativeExecution';

export type CompatibilityIssueCode =
  | 'package_version_mismatch'
  | 'binary_package_version_mismatch'
  | 'binary_contract_version_mismatch'
  | 'native_execution_version_mismatch'
  | 'prp_name_mismatch'
  | 'prp_version_no_overlap'
  | 'catalog_version_mismatch'
  | 'catalog_digest_mismatch'
  | 'driver_contract_version_mismatch'
  | 'driver_protocol_version_mismatch'
  | 'driver_capability_unsupported';

export interface CompatibilityIssue extends Issue {
  readonly code: CompatibilityIssueCode;
  readonly component: CompatibilityComponent;
  readonly expected: string;
  readonly received: string;
}

/** Negotiates the whole join; returns the receipt or throws every mismatch at once. */
export function negotiateCompatibility(request: CompatibilityRequest): CompatibilityReceipt {
  const { package: release, runnerd, consumer, catalog } = request;
  const issues: CompatibilityIssue[] = [];
  const mismatch = (
    code: CompatibilityIssueCode,
    component: CompatibilityComponent,
    expected: unknown,
    received: unknown,
    message: string,
  ): void => {
    issues.push({ code, component, expected: String(expected), received: String(received), message });
  };
  const releaseVersion = release.package.version;

  // Package: the consumer's pin is exactly the loaded package.
  if (semver().valid(consumer.packageVersion) === null || consumer.packageVersion !== releaseVersion) {
    mismatch(
      'package_version_mismatch',
      'package',
      releaseVersion,
      consumer.packageVersion,
      semver().valid(consumer.packageVersion) === null
        ? `${consumer.consumer} pins package version ${JSON.stringify(consumer.packageVersion)}, which is not an exact semver version`
        : `${consumer.consumer} pins package ${consumer.packageVersion}, but the loaded package is ${releaseVersion}`,
    );
  }

  // Binary: runnerd was built from this package, for its artifact contract.
  if (runnerd.packageVersion !== releaseVersion) {
    mismatch(
      'binary_package_version_mismatch',
      'binary',
      releaseVersion,
      runnerd.packageVersion,
      `runnerd was built for package ${runnerd.packageVersion}, not ${releaseVersion}`,
    );
  }
  if (runnerd.binaryContractVersion !== release.contracts.runnerdArtifact) {
    mismatch(
      'binary_contract_version_mismatch',
      'binary',
      release.contracts.runnerdArtifact,
      runnerd.binaryContractVersion,
      'runnerd implements a different binary artifact contract than the package',
    );
  }

  // Native output: both sides select native-execution/v1.
  const consumerReadsV1 = consumer.nativeExecution === NATIVE_EXECUTION_V1;
  const runnerdWritesPackageVersion = runnerd.nativeExecutionVersion === release.contracts.nativeExecution;
  if (!consumerReadsV1 || !runnerdWritesPackageVersion || release.contracts.nativeExecution !== 1) {
    mismatch(
      'native_execution_version_mismatch',
      'nativeExecution',
      `${NATIVE_EXECUTION_V1} (contract 1) from package, runnerd and consumer`,
      `package ${release.contracts.nativeExecution}; runnerd ${runnerd.nativeExecutionVersion}; consumer ${consumer.nativeExecution}`,
      'consumer and runnerd must both select paperclip-runner/native-execution/v1',
    );
  }

  // PRP: one protocol family; the version is upstream's: the package and the consumer pick one, and
  // runnerd must speak exactly that one (selectPrpVersion).
  const names = [release.prp.name, runnerd.prp.name, consumer.prp.name ?? release.prp.name];
  if (new Set(names).size > 1) {
    mismatch(
      'prp_name_mismatch',
      'prp',
      release.prp.name,
      `runnerd ${runnerd.prp.name}; consumer ${consumer.prp.name ?? '(any)'}`,
      'package, runnerd and consumer must speak the same protocol family',
    );
  }
  const negotiatedPrpVersion = selectPrpVersion(release.prp, consumer.prp, runnerd.prp);
  if (negotiatedPrpVersion === null) {
    mismatch(
      'prp_version_no_overlap',
      'prp',
      rangeText(release.prp),
      `consumer ${rangeText(consumer.prp)}; runnerd ${rangeText(runnerd.prp)}`,
      prpNoOverlapMessage(release.prp, consumer.prp, runnerd.prp),
    );
  }

  // Semantic catalog: same contract version and same canonical content.
  if (catalog.version !== release.semanticCatalog.version) {
    mismatch(
      'catalog_version_mismatch',
      'catalog',
      release.semanticCatalog.version,
      catalog.version,
      'the semantic catalog contract version differs from the package',
    );
  }
  if (catalog.sha256 !== release.semanticCatalog.sha256) {
    mismatch(
      'catalog_digest_mismatch',
      'catalog',
      release.semanticCatalog.sha256,
      catalog.sha256,
      "the semantic catalog's canonical digest differs from the package",
    );
  }

  // Harness driver: contract version, negotiated PRP, and every required capability explicitly true.
  const { descriptor } = consumer.driver;
  if (
    consumer.driver.contractVersion !== release.contracts.harnessDriver ||
    runnerd.harnessDriverVersion !== release.contracts.harnessDriver
  ) {
    mismatch(
      'driver_contract_version_mismatch',
      'driver',
      release.contracts.harnessDriver,
      `consumer ${consumer.driver.contractVersion}; runnerd ${runnerd.harnessDriverVersion}`,
      'consumer and runnerd harness-driver contract versions must match the package',
    );
  }
  // The driver is held to the negotiated PRP version only: with none (prp_version_no_overlap) there is
  // nothing to hold it to, and upstream reports no driver protocol issue.
  if (negotiatedPrpVersion !== null && descriptor.protocolVersion !== `prp.v${negotiatedPrpVersion}`) {
    mismatch(
      'driver_protocol_version_mismatch',
      'driver',
      `prp.v${negotiatedPrpVersion}`,
      descriptor.protocolVersion,
      `driver ${descriptor.kind}@${descriptor.version} does not speak the negotiated PRP version`,
    );
  }
  for (const capability of [...new Set(consumer.driver.requiredCapabilities)].sort()) {
    const value = descriptor.capabilities[capability];
    if (value !== true) {
      mismatch(
        'driver_capability_unsupported',
        'driver',
        `${capability}=true`,
        `${capability}=${value === undefined ? '(absent)' : JSON.stringify(value)}`,
        `driver ${descriptor.kind}@${descriptor.version} does not declare required capability ${capability} as true`,
      );
    }
  }

  if (issues.length > 0 || negotiatedPrpVersion === null) {
    throw new ContractError(
      'paperclip_runner_eval_incompatible',
      `runner release ${releaseVersion} is incompatible with ${consumer.consumer}: ${issues.map((issue) => issue.code).join(', ')}`,
      issues,
    );
  }
  return {
    schema: EVALS_INTEGRATION_V1,
    consumer: consumer.consumer,
    packageVersion: releaseVersion,
    runnerdPackageVersion: runnerd.packageVersion,
    negotiatedPrpVersion,
    nativeExecution: NATIVE_EXECUTION_V1,
    catalogSha256: release.semanticCatalog.sha256,
    driverKind: descriptor.kind,
    driverVersion: descriptor.version,
  };
}

/**
 * Upstream's `negotiateProtocolVersion(a, b)` (src/protocol/replay-contract.ts): the higher end both
 * ranges reach, min(a.max, b.max), when it is inside both, else null.
 */
export function negotiateVersion(a: VersionRange, b: VersionRange): number | null {
  const selected = Math.min(a.maximumVersion, b.maximumVersion);
  return selected >= Math.max(a.minimumVersion, b.minimumVersion) ? selected : null;
}

/**
 * The PRP version as upstream's `assertPaperclipRunnerEvalCompatibility` selects it, in its order:
 * first the package's range against the consumer's picks one version, then runnerd must speak that
 * exact version. A version all three share is not enough: package 1..2, consumer 1..2 and runnerd
 * 1..1 pick 2, which runnerd lacks, so nothing is negotiated (not 1).
 */
export function selectPrpVersion(
  release: VersionRange,
  consumer: VersionRange,
  runnerd: VersionRange,
): number | null {
  const picked = negotiateVersion(release, consumer);
  return picked === null
    ? null
    : negotiateVersion({ minimumVersion: picked, maximumVersion: picked }, runnerd);
}

/** Which of the two steps failed, in words. */
function prpNoOverlapMessage(release: VersionRange, consumer: VersionRange, runnerd: VersionRange): string {
  const picked = negotiateVersion(release, consumer);
  return picked === null
    ? `the package (PRP ${rangeText(release)}) and the consumer (PRP ${rangeText(consumer)}) share no PRP version: give the consumer a prp range that overlaps the package's`
    : `the package and the consumer pick PRP ${picked} (the highest both speak), which runnerd (PRP ${rangeText(runnerd)}) does not speak: use a runnerd that speaks PRP ${picked}, or lower the consumer's prp.maximumVersion to a version runnerd speaks`;
}

const rangeText = (range: VersionRange): string => `${range.minimumVersion}..${range.maximumVersion}`;

/** Validates a package's build metadata document; throws `paperclip_contract_document_invalid`. */
export function parsePackageBuildMetadata(value: unknown): PackageBuildMetadata {
  assertDocument(SCHEMA_IDS.packageBuildMetadataV1, 'package build metadata', value, (metadata) => {
    const { contracts, semanticCatalog } = metadata as PackageBuildMetadata;
    return contracts.semanticCatalog === semanticCatalog.version
      ? []
      : [
          {
            code: 'catalog_version_inconsistent',
            message: 'the package names two different semantic catalog versions',
            path: '/semanticCatalog/version',
            expected: contracts.semanticCatalog,
            received: semanticCatalog.version,
          },
        ];
  });
  return value as PackageBuildMetadata;
}

/** Validates a consumer requirements document; throws `paperclip_contract_document_invalid`. */
export function parseConsumerRequirements(value: unknown): ConsumerRequirements {
  assertDocument(SCHEMA_IDS.consumerRequirementsV1, 'consumer requirements', value);
  return value as ConsumerRequirements;
}

function assertDocument(
  schemaId: string,
  what: string,
  value: unknown,
  invariants: (valid: unknown) => Issue[] = () => [],
): void {
  const issues = schemaIssuesOf(schemaId, value, () => 'schema_violation');
  if (issues.length === 0) issues.push(...invariants(value));
  const range = (value as { prp?: Partial<VersionRange> } | null)?.prp;
  if (
    issues.length === 0 &&
    range !== undefined &&
    Number(range.minimumVersion) > Number(range.maximumVersion)
  ) {
    issues.push({
      code: 'prp_range_inverted',
      message: 'prp.minimumVersion is above prp.maximumVersion',
      path: '/prp/minimumVersion',
      expected: `at most ${String(range.maximumVersion)}`,
      received: range.minimumVersion,
    });
  }
  if (issues.length > 0) {
    throw new ContractError(
      'paperclip_contract_document_invalid',
      `invalid ${what}: ${issues.length} issue(s)`,
      issues,
    );
  }
}
