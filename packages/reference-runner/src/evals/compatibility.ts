// Compatibility negotiation between this package, a paperclip-runnerd build and an Evals consumer,
// checked as one join before any provider process starts: package, binary, PRP, semantic catalog,
// harness driver and native output. Either a receipt, or one error listing every issue found.
import { CONTRACT_VERSIONS, PACKAGE_NAME, PRP_VERSION_RANGE, packageBuildMetadata } from '../build-info.js';
import { PaperclipRunnerEvalCompatibilityError } from '../errors.js';

import type { PaperclipRunnerdBuildMetadata } from '../build-info.js';
import type { PaperclipRunnerIssue } from '../errors.js';
import type { HarnessDriverDescriptor, RequiredHarnessDriverCapability } from '../runner-contracts.js';

export const PAPERCLIP_RUNNER_EVAL_INTEGRATION_SCHEMA = 'paperclip-runner/evals-integration/v1';

export type PaperclipRunnerEvalCompatibilityIssueCode =
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

export interface PaperclipRunnerEvalCompatibilityIssue extends PaperclipRunnerIssue {
  readonly code: PaperclipRunnerEvalCompatibilityIssueCode;
  readonly component: 'package' | 'binary' | 'prp' | 'catalog' | 'driver' | 'nativeExecution';
  readonly expected: string;
  readonly received: string;
}

/** What an Evals consumer brings to the join. */
export interface PaperclipRunnerEvalCompatibilityRequirement {
  readonly consumer: string;
  /** The exact package version the consumer pins. */
  readonly packageVersion: string;
  /** The build metadata the resolved runnerd printed. */
  readonly runnerd: PaperclipRunnerdBuildMetadata;
  /** The native-execution contract version the consumer reads. */
  readonly nativeExecutionVersion: number;
  readonly prp: { readonly name?: string; readonly minimumVersion: number; readonly maximumVersion: number };
  readonly catalog: { readonly version: number; readonly sha256: string };
  readonly driver: {
    readonly contractVersion: number;
    readonly descriptor: HarnessDriverDescriptor;
    readonly requiredCapabilities: readonly RequiredHarnessDriverCapability[];
  };
}

export interface PaperclipRunnerEvalCompatibilityReceipt {
  readonly schema: typeof PAPERCLIP_RUNNER_EVAL_INTEGRATION_SCHEMA;
  readonly consumer: string;
  readonly packageVersion: string;
  readonly runnerdPackageVersion: string;
  readonly negotiatedPrpVersion: number;
  readonly catalogSha256: string;
  readonly driverKind: string;
  readonly driverVersion: string;
}

/** The higher end two PRP ranges both reach, when it is inside both; else null. */
function negotiateProtocolVersion(
  a: { readonly minimumVersion: number; readonly maximumVersion: number },
  b: { readonly minimumVersion: number; readonly maximumVersion: number },
): number | null {
  const selected = Math.min(a.maximumVersion, b.maximumVersion);
  return selected >= Math.max(a.minimumVersion, b.minimumVersion) ? selected : null;
}

/** Negotiates the whole join; returns the receipt or throws `paperclip_runner_eval_incompatible` with every issue. */
export function assertPaperclipRunnerEvalCompatibility(
  requirement: PaperclipRunnerEvalCompatibilityRequirement,
): PaperclipRunnerEvalCompatibilityReceipt {
  const release = packageBuildMetadata();
  const version = release.package.version;
  const { runnerd, driver } = requirement;
  const issues: PaperclipRunnerEvalCompatibilityIssue[] = [];
  const check = (
    ok: boolean,
    code: PaperclipRunnerEvalCompatibilityIssueCode,
    component: PaperclipRunnerEvalCompatibilityIssue['component'],
    expected: unknown,
    received: unknown,
    message: string,
  ): void => {
    if (!ok)
      issues.push({ code, component, expected: String(expected), received: String(received), message });
  };

  check(
    requirement.packageVersion === version,
    'package_version_mismatch',
    'package',
    version,
    requirement.packageVersion,
    `${requirement.consumer} pins ${PACKAGE_NAME}@${requirement.packageVersion}, but ${version} is loaded`,
  );
  check(
    runnerd.packageVersion === version && (runnerd.packageName as string) === PACKAGE_NAME,
    'binary_package_version_mismatch',
    'binary',
    `${PACKAGE_NAME}@${version}`,
    `${runnerd.packageName}@${runnerd.packageVersion}`,
    'runnerd was built from another package version',
  );
  check(
    runnerd.binaryContractVersion === CONTRACT_VERSIONS.runnerdArtifact,
    'binary_contract_version_mismatch',
    'binary',
    CONTRACT_VERSIONS.runnerdArtifact,
    runnerd.binaryContractVersion,
    'runnerd implements another binary artifact contract',
  );
  check(
    requirement.nativeExecutionVersion === CONTRACT_VERSIONS.nativeExecution &&
      runnerd.nativeExecutionVersion === CONTRACT_VERSIONS.nativeExecution,
    'native_execution_version_mismatch',
    'nativeExecution',
    CONTRACT_VERSIONS.nativeExecution,
    `consumer ${requirement.nativeExecutionVersion}; runnerd ${runnerd.nativeExecutionVersion}`,
    'consumer and runnerd must both select paperclip-runner/native-execution/v1',
  );

  const names = new Set([
    PRP_VERSION_RANGE.name,
    runnerd.prp.name,
    requirement.prp.name ?? PRP_VERSION_RANGE.name,
  ]);
  check(
    names.size === 1,
    'prp_name_mismatch',
    'prp',
    PRP_VERSION_RANGE.name,
    `runnerd ${runnerd.prp.name}; consumer ${requirement.prp.name ?? '(any)'}`,
    'package, runnerd and consumer must speak one protocol family',
  );
  // Upstream's order: this package and the consumer pick one version, then runnerd must speak it.
  const picked = negotiateProtocolVersion(PRP_VERSION_RANGE, requirement.prp);
  const negotiatedPrpVersion =
    picked === null
      ? null
      : negotiateProtocolVersion({ minimumVersion: picked, maximumVersion: picked }, runnerd.prp);
  check(
    negotiatedPrpVersion !== null,
    'prp_version_no_overlap',
    'prp',
    `${PRP_VERSION_RANGE.minimumVersion}..${PRP_VERSION_RANGE.maximumVersion}`,
    `consumer ${requirement.prp.minimumVersion}..${requirement.prp.maximumVersion}; runnerd ${runnerd.prp.minimumVersion}..${runnerd.prp.maximumVersion}`,
    picked === null
      ? 'this package and the consumer share no PRP version'
      : `this package and the consumer pick PRP ${picked}, which runnerd does not speak`,
  );

  check(
    requirement.catalog.version === release.semanticCatalog.version,
    'catalog_version_mismatch',
    'catalog',
    release.semanticCatalog.version,
    requirement.catalog.version,
    'semantic catalog contract version differs',
  );
  check(
    requirement.catalog.sha256 === release.semanticCatalog.sha256,
    'catalog_digest_mismatch',
    'catalog',
    release.semanticCatalog.sha256,
    requirement.catalog.sha256,
    'semantic catalog content digest differs',
  );

  check(
    driver.contractVersion === CONTRACT_VERSIONS.harnessDriver &&
      runnerd.harnessDriverVersion === CONTRACT_VERSIONS.harnessDriver,
    'driver_contract_version_mismatch',
    'driver',
    CONTRACT_VERSIONS.harnessDriver,
    `consumer ${driver.contractVersion}; runnerd ${runnerd.harnessDriverVersion}`,
    'harness driver contract versions differ',
  );
  // Held to the negotiated version only: with none, there is nothing to hold the driver to.
  const expectedProtocol = `prp.v${negotiatedPrpVersion ?? '(none)'}`;
  check(
    negotiatedPrpVersion === null || driver.descriptor.protocolVersion === expectedProtocol,
    'driver_protocol_version_mismatch',
    'driver',
    expectedProtocol,
    driver.descriptor.protocolVersion,
    `driver ${driver.descriptor.kind} does not speak the negotiated PRP version`,
  );
  for (const capability of [...new Set(driver.requiredCapabilities)].sort()) {
    const value: unknown = (driver.descriptor.capabilities as unknown as Record<string, unknown>)[capability];
    check(
      value === true,
      'driver_capability_unsupported',
      'driver',
      `${capability}=true`,
      `${capability}=${value === undefined ? '(absent)' : JSON.stringify(value)}`,
      `driver ${driver.descriptor.kind} does not declare ${capability}`,
    );
  }

  if (issues.length > 0 || negotiatedPrpVersion === null) {
    throw new PaperclipRunnerEvalCompatibilityError(
      requirement.consumer,
      `${PACKAGE_NAME}@${version} is incompatible with ${requirement.consumer}: ${issues.map((issue) => `${issue.code}: ${issue.message}`).join('; ')}`,
      issues,
    );
  }
  return {
    schema: PAPERCLIP_RUNNER_EVAL_INTEGRATION_SCHEMA,
    consumer: requirement.consumer,
    packageVersion: version,
    runnerdPackageVersion: runnerd.packageVersion,
    negotiatedPrpVersion,
    catalogSha256: release.semanticCatalog.sha256,
    driverKind: driver.descriptor.kind,
    driverVersion: driver.descriptor.version,
  };
}
