// The evals-qualification/v1 record: its types, the closed list of checks every record carries (in
// the order they run), the issue shape those checks report, schema validation of a finished record
// (schemas/evals/qualification-record-v1.schema.json) and its atomic write (temp file + rename).
import { createRequire } from 'node:module';
import { pointer, schemaIssuesOf } from '@paperclip-evals/contract';
import { writeOutputFile } from '@paperclip-evals/node';

import type {
  CompatibilityReceipt,
  ConsumerRequirements,
  PackageBuildMetadata,
  Issue,
  RunnerdBuildMetadata,
  Sha256Digest,
} from '@paperclip-evals/contract';

export const QUALIFICATION_RECORD_V1 = 'evals-qualification/v1';
export const QUALIFICATION_RECORD_V1_SCHEMA_ID =
  'https://paperclip-evals.dev/schemas/qualification-record/v1.json';

/** Every check of a qualification, in the order they run; a v1 record carries each exactly once. */
export const QUALIFICATION_CHECK_IDS = [
  /** SHA256SUMS, exactly one *.tgz, the host's paperclip-runnerd-<platform>-<arch>, the App's record. */
  'release-layout',
  /** SHA256SUMS parsed strictly; every listed file present and matching; nothing unlisted. */
  'sha256sums',
  /** The tarball scanned (paths, links, types, sizes) and extracted into a private directory. */
  'tarball-extract',
  /** package/package.json: name, version, the three entry points, no local dependency specs. */
  'package-manifest',
  /** An offline, isolated install of the extracted package into a fresh consumer outside the repo. */
  'consumer-install',
  /** The consumer probe ran and printed one valid report. */
  'consumer-probe',
  /** `.`, `./evals` and `./testing` load and export the documented names. */
  'entry-points',
  /** The root entry point exports contracts only: no test double by name or by identity. */
  'root-exports',
  /** Paths the exports map does not declare are refused (ERR_PACKAGE_PATH_NOT_EXPORTED). */
  'undeclared-subpaths',
  /** The package's build metadata is valid and names the packed package and version. */
  'build-metadata',
  /** Evals recomputes the semantic catalog's canonical digest; it matches the metadata. */
  'semantic-catalog',
  /** The seeded fixture is valid for both parsers; broken variants of it are refused by both. */
  'native-execution-fixture',
  /** The deterministic driver's conformance run passed every check. */
  'driver-conformance',
  /** runnerd resolved by path and SHA256SUMS digest, speaking the package's PRP range. */
  'runnerd-resolve',
  /** The App's clean-consumer-conformance record passed, names the tarball and runnerd Evals saw, and states a release runnerd. */
  'app-record',
  /** Six-dimension negotiation with Evals' own consumer requirements yields a receipt. */
  'negotiation',
  /** A deliberately incompatible consumer (PRP 99..99) is refused with prp_version_no_overlap. */
  'negotiation-fails-closed',
  /**
   * Only once the join holds: the package's paperclip-runner-eval-session bin ran Evals' request on
   * a private copy of runnerd; its artifact, bundle and files verify.
   */
  'runnerd-eval-session',
] as const;

export type QualificationCheckId = (typeof QUALIFICATION_CHECK_IDS)[number];
export type CheckStatus = 'pass' | 'fail' | 'skipped';

/** A contract Issue, optionally naming the release file or tarball entry it is about. */
export interface QualificationIssue extends Issue {
  /** A file of the release directory. */
  readonly file?: string;
  /** A path inside the tarball. */
  readonly entry?: string;
}

export interface QualificationCheck {
  readonly id: QualificationCheckId;
  readonly status: CheckStatus;
  /** One line: what was verified, why it failed, or which earlier check it could not run without. */
  readonly detail: string;
  /** Every issue found (failures only). */
  readonly issues?: readonly QualificationIssue[];
}

/** The harness driver conformance report as the package's `./testing` returned it. */
export interface ConformanceReport {
  readonly schema?: unknown;
  readonly contractVersion: number;
  readonly descriptor: {
    readonly kind: string;
    readonly version: string;
    readonly protocolVersion: string;
    readonly capabilities: Readonly<Record<string, unknown>>;
    readonly [field: string]: unknown;
  };
  readonly checks: Readonly<Record<string, unknown>>;
  readonly semanticToolCallCount: number;
  readonly [field: string]: unknown;
}

export interface Evaluator {
  readonly name: string;
  readonly version: string;
  readonly node: string;
  readonly platform: string;
  readonly arch: string;
}

/** This package and the host it runs on, as the record names them. */
export function currentEvaluator(): Evaluator {
  const manifest = createRequire(import.meta.url)('../package.json') as { name: string; version: string };
  return {
    name: manifest.name,
    version: manifest.version,
    node: process.version,
    platform: process.platform,
    arch: process.arch,
  };
}

export interface QualificationRecord {
  readonly schema: typeof QUALIFICATION_RECORD_V1;
  /** True exactly when every check passed. */
  readonly qualified: boolean;
  /** Absolute path of the release directory. */
  readonly releaseDir: string;
  /** Only when the caller supplied it: qualification itself reads no clock. */
  readonly evaluatedAt?: string;
  /** What judged the release, and where. */
  readonly evaluator: Evaluator;
  readonly package: {
    readonly name: string | null;
    readonly version: string | null;
    /** File name of the tarball in the release directory. */
    readonly tarball: string | null;
    /** Digest of the bytes that were extracted. */
    readonly tarballSha256: Sha256Digest | null;
    /** The package's build metadata, when valid (absent in older records): what a campaign negotiates with. */
    readonly buildMetadata?: PackageBuildMetadata | null;
  };
  readonly runnerd: {
    readonly file: string | null;
    readonly sha256: Sha256Digest | null;
    readonly byteSize: number | null;
    readonly buildMetadata: RunnerdBuildMetadata | null;
    /**
     * As the App's gate record states it (artifacts.runnerd.buildProfile) for this very runnerd
     * (its digest matches SHA256SUMS and the record); runnerd itself never says. Null otherwise.
     */
    readonly buildProfile: 'release' | 'debug' | null;
  };
  /** The negotiation receipt, when negotiation succeeded. */
  readonly receipt: CompatibilityReceipt | null;
  /** The consumer requirements negotiated with (packageVersion and driver.descriptor filled in). */
  readonly consumerRequirements: ConsumerRequirements | null;
  readonly conformance: ConformanceReport | null;
  readonly checks: readonly QualificationCheck[];
  readonly digests: {
    /** Of the SHA256SUMS file itself. */
    readonly sha256sums: Sha256Digest | null;
    /** Every regular file of the release directory (other than SHA256SUMS), as computed. */
    readonly files: Readonly<Record<string, Sha256Digest>>;
    /** RFC 8785 canonical digests of documents read from the package. */
    readonly buildMetadata: Sha256Digest | null;
    readonly semanticCatalog: Sha256Digest | null;
    readonly nativeExecutionSchema: Sha256Digest | null;
    readonly seededFixture: Sha256Digest | null;
    readonly consumerRequirements: Sha256Digest | null;
  };
}

/** Every way `value` is not a valid evals-qualification/v1 record ([] when it is one). */
export function qualificationRecordIssues(value: unknown): Issue[] {
  const issues: Issue[] = schemaIssuesOf(QUALIFICATION_RECORD_V1_SCHEMA_ID, value, () => 'schema_violation');
  if (issues.length > 0) return issues;
  // What the schema cannot say: each check exactly once, in the documented order.
  const ids = (value as QualificationRecord).checks.map((check) => check.id);
  if (ids.join(',') !== QUALIFICATION_CHECK_IDS.join(',')) {
    issues.push({
      code: 'checks_incomplete',
      message: 'a record carries every check exactly once, in the documented order',
      path: pointer('checks'),
      expected: QUALIFICATION_CHECK_IDS.join(','),
      received: ids.join(','),
    });
  }
  return issues;
}

/**
 * Writes the record as pretty JSON: atomically to a file (a reader never sees half a record), in
 * place to a device or FIFO; anything else is refused (node's writeOutputFile).
 */
export async function writeQualificationRecord(path: string, record: QualificationRecord): Promise<void> {
  await writeOutputFile(path, (write) => write(`${JSON.stringify(record, null, 2)}\n`));
}
