// What qualification's checks share: the options and input of one qualification, the value each
// check gives the checks after it (CheckValues), what a check contributes to the record
// (RecordFacts), and the helpers that turn issues into a pass or a fail.
import type {
  CompatibilityReceipt,
  ConsumerRequirements,
  PackageBuildMetadata,
  Sha256Digest,
} from '@paperclip-evals/contract';
import type { RunnerdArtifact } from '@paperclip-evals/node';

import type { PackageManifest } from '../judgements.js';
import type { ProbeReport } from '../probe.js';
import type { ConformanceReport, QualificationCheckId, QualificationIssue } from '../record.js';
import type { ReleaseLayout, Sha256SumsVerification } from '../release-dir.js';
import type { TarballLimits } from '../tarball.js';
import type { CheckDefinition, Outcome, Ran, Skip, Unmet, Values } from './runner.js';

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
  /** Told as each check starts and as each is decided (pass, fail or skipped), in run order. */
  readonly onCheck?: (event: QualificationCheckEvent) => void;
}

/** A check starting, or decided (with its status and detail), as the nth of `total`. */
export type QualificationCheckEvent =
  | {
      readonly kind: 'start';
      readonly id: QualificationCheckId;
      readonly index: number;
      readonly total: number;
    }
  | {
      readonly kind: 'done';
      readonly id: QualificationCheckId;
      readonly status: 'pass' | 'fail' | 'skipped';
      readonly detail: string;
      readonly index: number;
      readonly total: number;
    };

/** One qualification's input: read before any check runs, never changed by one. */
export interface QualificationInput {
  /** Absolute. */
  readonly releaseDir: string;
  /** The private 0700 work directory. */
  readonly workDir: string;
  readonly options: QualifyReleaseOptions;
  readonly baseRequirements: ConsumerRequirements;
  readonly layout: ReleaseLayout;
}

/** What each check gives the checks that need or use it (a check not listed gives nothing). */
export interface CheckValues {
  readonly 'release-layout': ReleaseLayout;
  readonly sha256sums: Sha256SumsVerification;
  /** The digest of the bytes extracted; packageDir only when extraction was safe. */
  readonly 'tarball-extract': { readonly sha256: Sha256Digest; readonly packageDir: string | null };
  /** manifest is null when package.json is not a readable JSON object. */
  readonly 'package-manifest': {
    readonly manifest: PackageManifest | null;
    readonly version: string | null;
  };
  readonly 'consumer-install': { readonly consumerDir: string; readonly manifest: PackageManifest };
  readonly 'consumer-probe': ProbeReport;
  /** The probe report, judged: what loaded is in it. */
  readonly 'entry-points': ProbeReport;
  readonly 'build-metadata': PackageBuildMetadata;
  readonly 'semantic-catalog': { readonly version: number; readonly sha256: Sha256Digest };
  readonly 'driver-conformance': ConformanceReport;
  /** The resolved runnerd and its file name in the release directory. */
  readonly 'runnerd-resolve': { readonly file: string; readonly artifact: RunnerdArtifact };
  /**
   * What negotiation-fails-closed negotiates again, with an incompatible consumer, and the receipt
   * (null when the join did not hold: nothing may run then).
   */
  readonly negotiation: {
    readonly receipt: CompatibilityReceipt | null;
    readonly request: {
      readonly package: PackageBuildMetadata;
      readonly runnerd: RunnerdArtifact['buildMetadata'];
      readonly catalog: { readonly version: number; readonly sha256: Sha256Digest };
    };
    readonly consumer: ConsumerRequirements;
  };
}

/** What a check contributes to the record (merged in check order). */
export interface RecordFacts {
  /** The digest of SHA256SUMS itself, and of every regular file of the directory. */
  readonly sha256sums?: Sha256Digest | null;
  readonly files?: Readonly<Record<string, Sha256Digest>>;
  readonly packageName?: string | null;
  readonly packageVersion?: string | null;
  readonly tarballSha256?: Sha256Digest;
  readonly packageBuildMetadata?: PackageBuildMetadata;
  readonly runnerdSha256?: Sha256Digest | null;
  readonly runnerdByteSize?: number;
  /** The App record's artifacts.runnerd.buildProfile, when that record names this runnerd. */
  readonly runnerdBuildProfile?: 'release' | 'debug' | null;
  readonly artifact?: RunnerdArtifact;
  readonly receipt?: CompatibilityReceipt;
  readonly consumerRequirements?: ConsumerRequirements;
  readonly conformance?: ConformanceReport | null;
  readonly digests?: {
    readonly buildMetadata?: Sha256Digest | null;
    readonly semanticCatalog?: Sha256Digest | null;
    readonly nativeExecutionSchema?: Sha256Digest | null;
    readonly seededFixture?: Sha256Digest | null;
    readonly consumerRequirements?: Sha256Digest | null;
  };
}

type Provider = keyof CheckValues;

/** The typed view of the values a check reads. */
export interface CheckInputs {
  need<K extends Provider>(id: K): CheckValues[K];
  found<K extends Provider>(id: K): CheckValues[K] | undefined;
}

export type CheckOutcome = Outcome<QualificationCheckId, unknown, RecordFacts>;

/** One check of qualification: {id, needs, run}. */
export interface QualificationCheckDefinition {
  readonly id: QualificationCheckId;
  readonly needs: readonly QualificationCheckId[];
  readonly uses?: readonly QualificationCheckId[];
  readonly unavailable?: string;
  run(input: QualificationInput, values: CheckInputs): CheckOutcome | Promise<CheckOutcome>;
}

/** Adapts a qualification check to the generic runner (the typed view over its values). */
export function toDefinition(
  check: QualificationCheckDefinition,
): CheckDefinition<QualificationCheckId, QualificationInput, RecordFacts> {
  return {
    id: check.id,
    needs: check.needs,
    ...(check.uses === undefined ? {} : { uses: check.uses }),
    ...(check.unavailable === undefined ? {} : { unavailable: check.unavailable }),
    run: (input, values: Values<QualificationCheckId>) =>
      check.run(input, {
        need: <K extends Provider>(id: K) => values.need(id) as CheckValues[K],
        found: <K extends Provider>(id: K) => values.found(id) as CheckValues[K] | undefined,
      }),
  };
}

/** Pass when there is no issue, fail (with the count) otherwise. */
export function judge<V>(
  issues: readonly QualificationIssue[],
  passDetail: string,
  failDetail: string,
  extra: { readonly value?: V; readonly facts?: RecordFacts } = {},
): Ran<V, RecordFacts> {
  const base =
    issues.length === 0
      ? { status: 'pass' as const, detail: passDetail }
      : {
          status: 'fail' as const,
          detail: `${failDetail} (${issues.length} issue${issues.length === 1 ? '' : 's'})`,
          issues,
        };
  return { ...base, ...extra };
}

export function fail(
  detail: string,
  issues: readonly QualificationIssue[],
  facts?: RecordFacts,
): Ran<never, RecordFacts> {
  return { status: 'fail', detail, issues, ...(facts === undefined ? {} : { facts }) };
}

/** Skipped because a need's value lacks what this check needs ("needs <need>: <why>"). */
export function lacking(
  unmet: readonly Unmet<QualificationCheckId>[],
  facts?: RecordFacts,
): Skip<QualificationCheckId, RecordFacts> {
  return { status: 'skipped', unmet, ...(facts === undefined ? {} : { facts }) };
}

/**
 * Skipped because something outside the release is missing ("needs <what>: <why>"), never a pass:
 * what this check would prove is left unproven, and the record says what it needs.
 */
export function missing(
  what: string,
  why: string,
  facts?: RecordFacts,
): Skip<QualificationCheckId, RecordFacts> {
  return { status: 'skipped', unmet: [{ missing: what, why }], ...(facts === undefined ? {} : { facts }) };
}
