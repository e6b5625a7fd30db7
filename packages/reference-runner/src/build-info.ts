// The contract numbers and names this build implements, in one place: the package's build
// metadata (./evals) and paperclip-runnerd's `--build-metadata` are both made from them.
import { readPackageManifest } from './assets.js';
import { PRP_PROTOCOL_NAME } from './prp.js';
import { SEMANTIC_CATALOG, SEMANTIC_CATALOG_SHA256 } from './semantic-catalog.js';

export const PACKAGE_NAME = '@paperclipai/paperclip-runner';
export const PACKAGE_BUILD_METADATA_SCHEMA = 'paperclip-runner/build-metadata/v1';
export const RUNNERD_BINARY_NAME = 'paperclip-runnerd';
export const RUNNERD_BUILD_METADATA_SCHEMA = 'paperclip-runner/runnerd-build-metadata/v1';
export const NATIVE_EXECUTION_SCHEMA_NAME = 'paperclip-runner/native-execution/v1';

/** Contract versions, independent of the package's semver. */
export const CONTRACT_VERSIONS = Object.freeze({
  nativeExecution: 1,
  runnerdArtifact: 1,
  harnessDriver: 1,
  semanticCatalog: 1,
  evalIntegration: 1,
  prp: 1,
} as const);

export const PRP_VERSION_RANGE = Object.freeze({
  name: PRP_PROTOCOL_NAME,
  minimumVersion: 1,
  maximumVersion: 1,
} as const);

/** How runnerd carries PRP events: written as NDJSON transcripts beside each attempt bundle. */
export const RUNNERD_PRP_TRANSPORT_MODES: readonly string[] = Object.freeze(['transcript_file']);

export type RunnerdBuildProfile = 'release' | 'debug';

export interface PackageBuildMetadata {
  readonly schema: typeof PACKAGE_BUILD_METADATA_SCHEMA;
  readonly package: { readonly name: typeof PACKAGE_NAME; readonly version: string };
  readonly contracts: typeof CONTRACT_VERSIONS;
  readonly prp: typeof PRP_VERSION_RANGE;
  readonly semanticCatalog: { readonly version: number; readonly sha256: string };
  readonly runnerd: {
    readonly binaryName: typeof RUNNERD_BINARY_NAME;
    readonly metadataSchema: typeof RUNNERD_BUILD_METADATA_SCHEMA;
    readonly digestAlgorithm: 'sha256';
  };
}

/** What `paperclip-runnerd --build-metadata` prints; unknown fields may appear in other builds. */
export interface RunnerdBuildMetadata {
  readonly schema: typeof RUNNERD_BUILD_METADATA_SCHEMA;
  readonly binaryName: string;
  readonly packageName: string;
  readonly packageVersion: string;
  readonly binaryContractVersion: number;
  readonly nativeExecutionVersion: number;
  readonly harnessDriverVersion: number;
  readonly prp: { readonly name: string; readonly minimumVersion: number; readonly maximumVersion: number };
  readonly prpTransportModes?: readonly string[];
  readonly buildProfile?: RunnerdBuildProfile;
  readonly [field: string]: unknown;
}

/** This package's version, from its own package.json (which must name this package). */
export function packageVersion(): string {
  const manifest = readPackageManifest();
  if (manifest.name !== PACKAGE_NAME) {
    throw new Error(`package.json names ${manifest.name}, not ${PACKAGE_NAME}`);
  }
  return manifest.version;
}

export function packageBuildMetadata(): PackageBuildMetadata {
  return {
    schema: PACKAGE_BUILD_METADATA_SCHEMA,
    package: { name: PACKAGE_NAME, version: packageVersion() },
    contracts: CONTRACT_VERSIONS,
    prp: PRP_VERSION_RANGE,
    semanticCatalog: { version: SEMANTIC_CATALOG.version, sha256: SEMANTIC_CATALOG_SHA256 },
    runnerd: {
      binaryName: RUNNERD_BINARY_NAME,
      metadataSchema: RUNNERD_BUILD_METADATA_SCHEMA,
      digestAlgorithm: 'sha256',
    },
  };
}

export function runnerdBuildMetadata(buildProfile: RunnerdBuildProfile): RunnerdBuildMetadata {
  return {
    schema: RUNNERD_BUILD_METADATA_SCHEMA,
    binaryName: RUNNERD_BINARY_NAME,
    packageName: PACKAGE_NAME,
    packageVersion: packageVersion(),
    binaryContractVersion: CONTRACT_VERSIONS.runnerdArtifact,
    nativeExecutionVersion: CONTRACT_VERSIONS.nativeExecution,
    harnessDriverVersion: CONTRACT_VERSIONS.harnessDriver,
    prp: { ...PRP_VERSION_RANGE },
    prpTransportModes: [...RUNNERD_PRP_TRANSPORT_MODES],
    buildProfile,
  };
}
