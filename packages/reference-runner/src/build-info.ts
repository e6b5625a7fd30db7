// The contract numbers and names this build implements, in one place: the package's build
// metadata (./evals) and paperclip-runnerd's `--build-metadata` are both made from them.
import { readPackageManifest } from './assets.js';
import { PRP_PROTOCOL_NAME } from './prp.js';
import { PAPERCLIP_RUNNER_SEMANTIC_CATALOG_SHA256, SEMANTIC_CATALOG_VERSION } from './semantic-catalog.js';

export const PACKAGE_NAME = '@paperclipai/paperclip-runner';
export const PAPERCLIP_RUNNER_BUILD_METADATA_SCHEMA = 'paperclip-runner/build-metadata/v1';
export const RUNNERD_BINARY_NAME = 'paperclip-runnerd';
export const PAPERCLIP_RUNNERD_BUILD_METADATA_SCHEMA = 'paperclip-runner/runnerd-build-metadata/v1';
export const PAPERCLIP_RUNNER_NATIVE_EXECUTION_SCHEMA = 'paperclip-runner/native-execution/v1';

/** Contract versions, independent of the package's semver (upstream's `contracts` keys). */
export const CONTRACT_VERSIONS = Object.freeze({
  evalIntegration: 1,
  nativeExecution: 1,
  runnerdArtifact: 1,
  prp: 1,
  semanticCatalog: 1,
  harnessDriver: 1,
  controlPlaneAdapter: 1,
  testkit: 1,
} as const);

export const PRP_VERSION_RANGE = Object.freeze({
  name: PRP_PROTOCOL_NAME,
  minimumVersion: 1,
  maximumVersion: 1,
} as const);

/** How a runnerd executable was compiled: stated by the gate that built it, never by runnerd. */
export type RunnerdBuildProfile = 'release' | 'debug';

export interface PaperclipRunnerBuildMetadata {
  readonly schema: typeof PAPERCLIP_RUNNER_BUILD_METADATA_SCHEMA;
  readonly package: { readonly name: typeof PACKAGE_NAME; readonly version: string };
  readonly contracts: typeof CONTRACT_VERSIONS;
  readonly prp: typeof PRP_VERSION_RANGE;
  readonly semanticCatalog: { readonly version: number; readonly sha256: string };
  readonly runnerd: {
    readonly binaryName: typeof RUNNERD_BINARY_NAME;
    readonly metadataSchema: typeof PAPERCLIP_RUNNERD_BUILD_METADATA_SCHEMA;
    readonly digestAlgorithm: 'sha256';
  };
}

/**
 * What `paperclip-runnerd --build-metadata` prints: upstream's eight fields, nothing else (other
 * builds may print more, e.g. prpTransportModes; the parser keeps only these).
 */
export interface PaperclipRunnerdBuildMetadata {
  readonly schema: typeof PAPERCLIP_RUNNERD_BUILD_METADATA_SCHEMA;
  readonly binaryName: typeof RUNNERD_BINARY_NAME;
  readonly packageName: typeof PACKAGE_NAME;
  readonly packageVersion: string;
  readonly binaryContractVersion: number;
  readonly nativeExecutionVersion: number;
  readonly harnessDriverVersion: number;
  readonly prp: { readonly name: string; readonly minimumVersion: number; readonly maximumVersion: number };
}

/** This package's version, from its own package.json (which must name this package). */
export function packageVersion(): string {
  const manifest = readPackageManifest();
  if (manifest.name !== PACKAGE_NAME) {
    throw new Error(`package.json names ${manifest.name}, not ${PACKAGE_NAME}`);
  }
  return manifest.version;
}

export function packageBuildMetadata(): PaperclipRunnerBuildMetadata {
  return {
    schema: PAPERCLIP_RUNNER_BUILD_METADATA_SCHEMA,
    package: { name: PACKAGE_NAME, version: packageVersion() },
    contracts: CONTRACT_VERSIONS,
    prp: PRP_VERSION_RANGE,
    semanticCatalog: { version: SEMANTIC_CATALOG_VERSION, sha256: PAPERCLIP_RUNNER_SEMANTIC_CATALOG_SHA256 },
    runnerd: {
      binaryName: RUNNERD_BINARY_NAME,
      metadataSchema: PAPERCLIP_RUNNERD_BUILD_METADATA_SCHEMA,
      digestAlgorithm: 'sha256',
    },
  };
}

export function runnerdBuildMetadata(): PaperclipRunnerdBuildMetadata {
  return {
    schema: PAPERCLIP_RUNNERD_BUILD_METADATA_SCHEMA,
    binaryName: RUNNERD_BINARY_NAME,
    packageName: PACKAGE_NAME,
    packageVersion: packageVersion(),
    binaryContractVersion: CONTRACT_VERSIONS.runnerdArtifact,
    nativeExecutionVersion: CONTRACT_VERSIONS.nativeExecution,
    harnessDriverVersion: CONTRACT_VERSIONS.harnessDriver,
    prp: { ...PRP_VERSION_RANGE },
  };
}
