// Converter: one parsed native-execution bundle (+ its file digest, + the environment) → one ledger
// record and its score rows (the runner's observed checks, and the verdicts of the case's engine
// checks when ingest evaluated them). The bundle itself is kept as canonical JSON text addressed by
// its canonical digest, so unknown additive fields are never lost. Pure: no I/O, no clock.
import { canonicalize, isMissingCellArtifact, sha256Digest } from '@paperclip-evals/contract';

import type { AssertionResult, Layer } from '@paperclip-evals/checks';
import type {
  AnyEvalSessionArtifact,
  MissingCellArtifact,
  NativeExecution,
  Sha256Digest,
  ToolOutcome,
} from '@paperclip-evals/contract';
import type { EvalSessionEvidence } from '@paperclip-evals/node';

import { attemptCost } from './cost.js';
import type { AttemptCost } from './cost.js';
import { caseOf, configOf } from './environment.js';
import type { Environment } from './environment.js';

export interface AttemptKey {
  readonly runId: string;
  readonly caseId: string;
  readonly configId: string;
  readonly attemptId: string;
}

/**
 * pass · fail (the agent's work fell short) · soft_fail (a soft check fell short: shown, but the
 * attempt still counts as solved) · error (the check itself could not run: the harness, not the
 * agent) · not_evaluated (no verdict, with the reason).
 */
export type ScoreStatus = 'pass' | 'fail' | 'soft_fail' | 'error' | 'not_evaluated';

export interface ScoreRow {
  readonly checkId: string;
  /** The checks engine's layer of an engine check; null for a check the runner observed itself. */
  readonly layer: Layer | null;
  readonly status: ScoreStatus;
  /**
   * Runner checks: 1 pass, 0 fail. Engine checks: the engine's score in [0, 1]. null for an error or
   * a missing verdict (neither is a 0).
   */
  readonly score: number | null;
  /** Why it is not a pass: the failure explanation, or `<reason>: <explanation>` when not evaluated. */
  readonly reason: string | null;
  /** The runner's observation, or the engine's verdict row without its timing (null when absent). */
  readonly evidence: unknown;
}

/** A content reference and what ingest found when it checked the bytes. */
export type ReferenceVerification = 'verified' | 'unverified' | 'mismatched';

/** How many attempts had their artifacts (transcript included) verified, unverified, mismatched. */
export type ArtifactCounts = Record<ReferenceVerification, number>;

export const emptyArtifactCounts = (): ArtifactCounts => ({ verified: 0, unverified: 0, mismatched: 0 });

/**
 * The counts as every output says them, after "artifacts of the attempts: ": "3 verified, 1
 * unverified, 0 mismatched".
 */
export function artifactCountsText(counts: ArtifactCounts): string {
  return `${counts.verified} verified, ${counts.unverified} unverified, ${counts.mismatched} mismatched`;
}

/**
 * One attempt's artifacts as one word: mismatched when any reference's bytes differ, verified when
 * every reference was checked and matched, else unverified (no artifact root, a file absent there,
 * not a native artifact URI).
 */
export function attemptArtifactVerification(
  verifications: Iterable<ReferenceVerification>,
): ReferenceVerification {
  let all: ReferenceVerification = 'verified';
  for (const verification of verifications) {
    if (verification === 'mismatched') return 'mismatched';
    if (verification === 'unverified') all = 'unverified';
  }
  return all;
}

export interface ReferenceRecord {
  readonly role: 'transcript' | 'artifact';
  readonly uri: string;
  readonly sha256: string;
  readonly byteSize: number;
  readonly mediaType: string;
  readonly verification: ReferenceVerification;
}

export interface EnvironmentMismatch {
  readonly field: 'caseSha256' | 'configSha256' | 'case' | 'config';
  readonly expected: string | null;
  readonly received: string;
}

export interface LedgerRecord {
  readonly key: AttemptKey;
  /** sha256 of the RFC 8785 canonical form of the bundle: the record's content identity. */
  readonly bundleDigest: Sha256Digest;
  /** sha256 of the bytes as read. */
  readonly fileSha256: string | null;
  readonly provenance: NativeExecution['provenance'];
  readonly runner: {
    readonly packageName: string;
    readonly packageVersion: string;
    readonly binarySha256: string;
    readonly driverKind: string;
    readonly driverVersion: string;
    readonly prpVersion: number;
    readonly nativeExecutionVersion: number;
    readonly catalogVersion: number;
    readonly catalogSha256: string;
  };
  readonly caseSha256: string;
  readonly configSha256: string;
  /**
   * When the attempt's first event was emitted (the runner's clock, as the bundle gives it): what
   * orders runs in reports. Records stored before this field have none.
   */
  readonly startedAt?: string;
  readonly terminal: {
    readonly turn: string;
    readonly run: string;
    readonly workDisposition: string;
  };
  /**
   * null: no failure. An eval-session infrastructure failure is `infrastructure` (or `budget`, for
   * a provider budget class) with the class as its code and whether a retry may help.
   */
  readonly failure: {
    readonly classification: string;
    readonly code: string;
    readonly message: string;
    readonly retryable?: boolean;
  } | null;
  /**
   * The eval-session artifact the attempt was ingested through, whole (its snapshot's raw receipts
   * included), with its digest. Absent: ingested as a bare native-execution bundle.
   */
  readonly evalSession?: EvalSessionRecord;
  readonly toolCalls: readonly {
    readonly callId: string;
    readonly operationId: string;
    readonly outcome: ToolOutcome | null;
    readonly denial: {
      readonly code: string;
      readonly authorizationBoundary: string;
      readonly retryable: boolean;
    } | null;
  }[];
  readonly denials: number;
  readonly transcript: {
    readonly complete: boolean;
    readonly eventCount: number;
    readonly omissionReason: string | null;
  };
  readonly references: readonly ReferenceRecord[];
  readonly usage: {
    readonly inputTokens: number;
    readonly outputTokens: number;
    readonly totalTokens: number;
    readonly requestCount: number;
    readonly durationMs: number;
  };
  readonly cost: AttemptCost;
  /** Empty when there is no environment or everything matches; never silently merged. */
  readonly environmentMismatch: readonly EnvironmentMismatch[];
  readonly scores: readonly ScoreRow[];
  /** The bundle's canonical JSON text (what `bundleDigest` digests). */
  readonly rawCanonical: string;
}

/** What the ledger keeps of an eval-session artifact. */
export interface EvalSessionRecord {
  readonly artifactSha256: string;
  readonly provider: string;
  readonly driver: string;
  readonly providerVersion: string | null;
  readonly requestedModel: string;
  /** null: no session ran (upstream's artifact for a missing campaign cell names no runnerd). */
  readonly runnerdSha256: string | null;
  /** null: the session ended without an infrastructure failure. */
  readonly infrastructureFailure: {
    readonly class: string;
    readonly category: string;
    readonly retryable: boolean;
  } | null;
  readonly artifact: AnyEvalSessionArtifact;
}

export interface ConvertOptions {
  readonly fileSha256?: string;
  readonly environment?: Environment;
  /** Verification per reference uri (from ingest); absent: unverified. */
  readonly verification?: ReadonlyMap<string, ReferenceVerification>;
  /** The checks engine's verdicts on the case's engine checks (ingest evaluates them over the trace). */
  readonly checkResults?: readonly AssertionResult[];
  /** The eval-session artifact the bundle came with (its parser checked they agree). */
  readonly evalSession?: EvalSessionEvidence;
}

/**
 * Score rows from the checks engine's verdicts. A hard failure of the spec itself (failure_class,
 * e.g. invalid_spec) is an error of the check, not a failure of the agent.
 */
export function engineScoreRows(results: readonly AssertionResult[]): ScoreRow[] {
  return results.map((result) => {
    const { duration_ms: _timing, ...evidence } = result; // timing differs run to run; the verdict does not
    const base = { checkId: result.assertion_id, layer: result.layer ?? null, evidence };
    switch (result.status) {
      case 'pass':
        return { ...base, status: 'pass', score: result.score, reason: null };
      case 'soft_fail':
        return { ...base, status: 'soft_fail', score: result.score, reason: result.explanation };
      case 'hard_fail':
        return result.failure_class === undefined
          ? { ...base, status: 'fail', score: result.score, reason: result.explanation }
          : {
              ...base,
              status: 'error',
              score: null,
              reason: `${result.failure_class}: ${result.explanation}`,
            };
      case 'not_evaluated':
        return {
          ...base,
          status: 'not_evaluated',
          score: null,
          reason: `${result.reason ?? 'not_evaluated'}: ${result.explanation}`,
        };
    }
  });
}

/**
 * Score rows from `observations.checks`, plus a not_evaluated row per expected runner check with no
 * observation. An observation whose id is already taken (by an earlier one, or by an engine check of
 * the environment) is kept under `<id>#<index>`, never merged.
 */
export function scoreRows(
  observations: unknown,
  expectedChecks: readonly string[] = [],
  taken: Iterable<string> = [],
): ScoreRow[] {
  const rows: ScoreRow[] = [];
  const seen = new Set<string>(taken);
  const checks = (observations as { checks?: unknown } | null)?.checks;
  if (Array.isArray(checks))
    checks.forEach((check: unknown, index) => {
      const entry = typeof check === 'object' && check !== null ? (check as Record<string, unknown>) : {};
      let checkId = typeof entry.id === 'string' && entry.id !== '' ? entry.id : `#${index}`;
      if (seen.has(checkId)) checkId = `${checkId}#${index}`;
      seen.add(checkId);
      const evidence = check;
      if (typeof entry.error === 'string' || entry.status === 'error')
        rows.push({
          checkId,
          layer: null,
          status: 'error',
          score: null,
          reason: typeof entry.error === 'string' ? entry.error : 'check reported an error',
          evidence,
        });
      else if (entry.passed === true)
        rows.push({ checkId, layer: null, status: 'pass', score: 1, reason: null, evidence });
      else if (entry.passed === false)
        rows.push({ checkId, layer: null, status: 'fail', score: 0, reason: null, evidence });
      else
        rows.push({
          checkId,
          layer: null,
          status: 'not_evaluated',
          score: null,
          reason:
            entry.passed === undefined
              ? 'no verdict: passed is missing'
              : 'no verdict: passed is not a boolean',
          evidence,
        });
    });
  for (const checkId of expectedChecks)
    if (!seen.has(checkId))
      rows.push({
        checkId,
        layer: null,
        status: 'not_evaluated',
        score: null,
        reason: 'the environment expects this check; the bundle has no observation for it',
        evidence: null,
      });
  return rows;
}

/** What of an attempt says which suite it belongs to: its case and config, with their digests. */
export interface SuiteFields {
  readonly caseId: string;
  readonly configId: string;
  readonly caseSha256: string;
  readonly configSha256: string;
}

/**
 * How an attempt is not of the environment's suite: a case or config the environment lacks, or one
 * it has under another digest. Empty without an environment or when everything matches. The one
 * rule ingest refuses foreign attempts by (and keeps them apart by, with keepForeign).
 */
export function environmentMismatch(
  environment: Environment | undefined,
  fields: SuiteFields,
): EnvironmentMismatch[] {
  const mismatch: EnvironmentMismatch[] = [];
  if (environment === undefined) return mismatch;
  const envCase = caseOf(environment, fields.caseId);
  const envConfig = configOf(environment, fields.configId);
  if (envCase === undefined) mismatch.push({ field: 'case', expected: null, received: fields.caseId });
  else if (envCase.sha256 !== fields.caseSha256)
    mismatch.push({ field: 'caseSha256', expected: envCase.sha256, received: fields.caseSha256 });
  if (envConfig === undefined) mismatch.push({ field: 'config', expected: null, received: fields.configId });
  else if (envConfig.sha256 !== fields.configSha256)
    mismatch.push({ field: 'configSha256', expected: envConfig.sha256, received: fields.configSha256 });
  return mismatch;
}

/** A record but for the bundle's canonical form and its digest (convertBundleFields). */
export type RecordFields = Omit<LedgerRecord, 'bundleDigest' | 'rawCanonical'>;

/**
 * Converts one parsed bundle. Throws EvalbookError paperclip_evalbook_cost_inconsistent when its
 * cost figures disagree and paperclip_evalbook_cost_out_of_range when one passes the safe bound.
 */
export function convertBundle(bundle: NativeExecution, options: ConvertOptions = {}): LedgerRecord {
  return withCanonicalForm(convertBundleFields(bundle, options), bundle);
}

/** The record with the bundle's RFC 8785 form and its digest (what identifies its content). */
export function withCanonicalForm(fields: RecordFields, bundle: NativeExecution): LedgerRecord {
  const rawCanonical = canonicalize(bundle);
  const { key, ...rest } = fields;
  // = canonicalDigest(bundle), without canonicalising twice; members in the stored record's order.
  return { key, bundleDigest: sha256Digest(rawCanonical), ...rest, rawCanonical };
}

/**
 * convertBundle without the canonical form: what ingest needs of a bundle the store already holds
 * from the same bytes (its cost refusals and suite check), and the rest of every record.
 */
export function convertBundleFields(bundle: NativeExecution, options: ConvertOptions = {}): RecordFields {
  const { runId, caseId, configId, attemptId } = bundle.identity;
  const environment = options.environment;
  const envCase = caseOf(environment, caseId);
  const envConfig = configOf(environment, configId);
  const mismatch = environmentMismatch(environment, {
    caseId,
    configId,
    caseSha256: bundle.input.caseSha256,
    configSha256: bundle.input.configSha256,
  });
  const engineRows = engineScoreRows(options.checkResults ?? []);
  const runnerRows = scoreRows(
    bundle.observations,
    (envCase?.checks ?? []).filter((check) => check.type === undefined).map((check) => check.id),
    engineRows.map((row) => row.checkId),
  );
  const tools = bundle.semanticTools;
  const outcomes = new Map(tools.results.map((result) => [result.callId, result.outcome]));
  const denials = new Map(tools.denials.map((denial) => [denial.callId, denial]));
  const verification = options.verification;
  const reference = (
    role: ReferenceRecord['role'],
    ref: NativeExecution['transcript'] | NativeExecution['artifacts'][number],
  ): ReferenceRecord => ({
    role,
    uri: ref.uri,
    sha256: ref.sha256,
    byteSize: ref.byteSize,
    mediaType: ref.mediaType,
    verification: verification?.get(ref.uri) ?? 'unverified',
  });
  const failure = bundle.failure;
  const session = options.evalSession?.artifact;
  const infrastructure = session?.infrastructureFailure ?? session?.accountingFailure;
  return {
    key: { runId, caseId, configId, attemptId },
    fileSha256: options.fileSha256 ?? null,
    provenance: bundle.provenance,
    runner: {
      packageName: bundle.runner.package.name,
      packageVersion: bundle.runner.package.version,
      binarySha256: bundle.runner.binary.sha256,
      driverKind: bundle.runner.driverKind,
      driverVersion: bundle.runner.driverVersion,
      prpVersion: bundle.runner.prpVersion,
      nativeExecutionVersion: bundle.runner.nativeExecutionVersion,
      catalogVersion: bundle.runner.catalogVersion,
      catalogSha256: bundle.runner.catalogSha256,
    },
    caseSha256: bundle.input.caseSha256,
    configSha256: bundle.input.configSha256,
    ...(bundle.events[0] === undefined ? {} : { startedAt: bundle.events[0].emittedAt }),
    terminal: {
      turn: bundle.terminal.turnTerminalState,
      run: bundle.terminal.runTerminalState,
      workDisposition: bundle.terminal.reportedWorkDisposition,
    },
    failure:
      failure === null
        ? null
        : {
            classification: failure.classification,
            code: failure.code,
            message: failure.message,
            ...(infrastructure === undefined ? {} : { retryable: infrastructure.retryable }),
          },
    ...(options.evalSession === undefined ? {} : { evalSession: evalSessionRecord(options.evalSession) }),
    toolCalls: tools.calls.map((call) => {
      const denial = denials.get(call.callId);
      return {
        callId: call.callId,
        operationId: call.operationId,
        outcome: outcomes.get(call.callId) ?? null,
        denial:
          denial === undefined
            ? null
            : {
                code: denial.code,
                authorizationBoundary: denial.authorizationBoundary,
                retryable: denial.retryable,
              },
      };
    }),
    denials: tools.denials.length,
    transcript: {
      complete: bundle.transcript.complete,
      eventCount: bundle.transcript.eventCount,
      omissionReason: bundle.transcript.omissionReason,
    },
    references: [
      reference('transcript', bundle.transcript),
      ...bundle.artifacts.map((artifact) => reference('artifact', artifact)),
    ],
    usage: {
      inputTokens: bundle.usage.inputTokens,
      outputTokens: bundle.usage.outputTokens,
      totalTokens: bundle.usage.totalTokens,
      requestCount: bundle.usage.requestCount,
      durationMs: bundle.usage.durationMs,
    },
    cost: attemptCost(bundle.usage, envConfig?.model, environment?.pricing),
    environmentMismatch: mismatch,
    scores: [...engineRows, ...runnerRows],
  };
}

function evalSessionRecord(evidence: EvalSessionEvidence): EvalSessionRecord {
  const { artifact } = evidence;
  const failure = artifact.infrastructureFailure ?? artifact.accountingFailure;
  return {
    artifactSha256: evidence.artifactSha256,
    provider: artifact.provider,
    driver: artifact.driver,
    providerVersion: artifact.providerVersion,
    requestedModel: artifact.requestedModel,
    runnerdSha256: isMissingCellArtifact(artifact) ? null : artifact.runnerd.sha256,
    infrastructureFailure:
      failure === undefined
        ? null
        : { class: failure.class, category: failure.category, retryable: failure.retryable },
    artifact,
  };
}

/** What a record read from an eval-session artifact alone says in place of native-execution evidence. */
export const NO_NATIVE_EVIDENCE = 'no native-execution evidence: recording missing';
/** The case of an artifact read alone: an eval-session artifact names none. */
export const ARTIFACT_CASE_ID = 'eval-session:no-case';
/** The run of an artifact read alone: an eval-session artifact names none. */
export const ARTIFACT_RUN_ID = 'eval-session';
/** A failed or interrupted turn of an artifact read alone: a behaviour result (upstream scores it). */
export const PROVIDER_TURN_FAILURE = 'provider_turn';

/**
 * The key of an eval-session artifact read alone. One that states its planned attempt (our additive
 * `evalCase`, which a campaign's synthesized artifact carries) is keyed by it, digests included, so
 * `--env` judges it like a bundle. Otherwise it names no run, case or config: the run and case are
 * fixed labels and the config is what the session ran (`<provider>/<requestedModel>`).
 */
export function artifactSuiteFields(artifact: {
  readonly attemptId: string;
  readonly provider: string;
  readonly requestedModel: string;
  readonly evalCase?: {
    readonly runId: string;
    readonly caseId: string;
    readonly caseSha256: string;
    readonly configId: string;
    readonly configSha256: string;
  };
}): SuiteFields & AttemptKey {
  const planned = artifact.evalCase;
  if (planned !== undefined)
    return {
      runId: planned.runId,
      caseId: planned.caseId,
      configId: planned.configId,
      attemptId: artifact.attemptId,
      caseSha256: planned.caseSha256,
      configSha256: planned.configSha256,
    };
  return {
    runId: ARTIFACT_RUN_ID,
    caseId: ARTIFACT_CASE_ID,
    configId: `${artifact.provider}/${artifact.requestedModel}`,
    attemptId: artifact.attemptId,
    caseSha256: '',
    configSha256: '',
  };
}

/**
 * An eval-session artifact's cost from its `usage`, by the rules of a bundle's (attemptCost: a
 * provider figure read by its provenance, the runner's estimate kept with its pricingVersion, the
 * legacy amount apart); omitted usage is unknown (unpriced, note `usage_omitted`), never zero. What
 * the ledger stores of an artifact alone, and what a campaign's budget counts of a try's artifact.
 * Throws EvalbookError paperclip_evalbook_cost_inconsistent as attemptCost does.
 */
export function artifactCost(usage: EvalSessionEvidence['artifact']['usage']): AttemptCost {
  if (usage === undefined)
    return {
      ...attemptCost({ inputTokens: 0, outputTokens: 0, cost: null }, undefined, undefined),
      notes: ['usage_omitted'],
    };
  return attemptCost(
    {
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cost: null,
      providerReportedCostNanodollars: usage.providerReportedCostNanodollars,
      providerReportedCostProvenance: usage.providerReportedCostProvenance,
      estimatedCostNanodollars: usage.estimatedCostNanodollars,
      ...(usage.pricingVersion === null ? {} : { pricingVersion: usage.pricingVersion }),
      costCoverage: usage.costCoverage,
      ...(usage.legacyLedgerCostNanodollars === undefined
        ? {}
        : { legacyLedgerCostNanodollars: usage.legacyLedgerCostNanodollars }),
    },
    undefined,
    undefined,
  );
}

/**
 * Converts an eval-session artifact that came with no native-execution bundle (upstream's artifacts
 * never carry one). It has no checks, events or transcript, so it never counts as solved: an
 * infrastructure failure is stored as one (the class, its category and retryability), a failed or
 * interrupted turn as a behaviour result (`provider_turn`), and any other turn as a record whose
 * transcript is missing (incomplete: NO_NATIVE_EVIDENCE). Cost comes from its `usage` with the same
 * rules as a bundle's; omitted usage is unknown (unpriced, note `usage_omitted`), never zero. The
 * record's digest is the artifact's canonical digest, so re-ingesting it is a duplicate.
 */
export function convertArtifact(evidence: EvalSessionEvidence, options: ConvertOptions = {}): LedgerRecord {
  const { artifact } = evidence;
  if (isMissingCellArtifact(artifact)) return convertMissingCell(evidence, artifact, options);
  const rawCanonical = canonicalize(artifact);
  const fields = artifactSuiteFields(artifact);
  const usage = artifact.usage;
  // A completed turn over budget (upstream's accountingFailure) is that failure, as an infrastructure one is.
  const infrastructure = artifact.infrastructureFailure ?? artifact.accountingFailure;
  const turn = artifact.turn;
  const turnFailed = turn !== undefined && turn.status !== 'completed';
  const cost = artifactCost(usage);
  const build = artifact.build as Record<string, unknown>;
  const numberAt = (...path: string[]): number => {
    let value: unknown = build;
    for (const key of path)
      value =
        typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
    return typeof value === 'number' ? value : 0; // not stated by the artifact: 0 is "unknown" here
  };
  return {
    key: {
      runId: fields.runId,
      caseId: fields.caseId,
      configId: fields.configId,
      attemptId: fields.attemptId,
    },
    bundleDigest: sha256Digest(rawCanonical),
    fileSha256: options.fileSha256 ?? evidence.artifactSha256,
    provenance: 'live',
    runner: {
      packageName: artifact.build.package.name,
      packageVersion: artifact.build.package.version,
      binarySha256: artifact.runnerd.sha256,
      driverKind: artifact.driver,
      driverVersion: artifact.providerVersion ?? '',
      prpVersion: numberAt('prp', 'maximumVersion'),
      nativeExecutionVersion: numberAt('contracts', 'nativeExecution'),
      catalogVersion: numberAt('semanticCatalog', 'version'),
      catalogSha256: '',
    },
    caseSha256: fields.caseSha256,
    configSha256: fields.configSha256,
    startedAt: artifact.timing.startedAt,
    terminal: {
      // A failure artifact has no turn: it did not complete (the failure says why).
      turn: turn?.status ?? 'failed',
      run: infrastructure !== undefined || turnFailed ? 'failed' : 'succeeded',
      workDisposition: 'unknown',
    },
    failure:
      infrastructure !== undefined
        ? {
            classification: infrastructure.category === 'provider_budget' ? 'budget' : 'infrastructure',
            code: infrastructure.class,
            message: artifact.infrastructureError ?? artifact.accountingError ?? infrastructure.class,
            retryable: infrastructure.retryable,
          }
        : turnFailed
          ? {
              classification: PROVIDER_TURN_FAILURE,
              code: `provider_turn_${turn.status}`,
              message: `the provider turn ended ${turn.status}`,
            }
          : null,
    evalSession: evalSessionRecord(evidence),
    toolCalls: [],
    denials: 0,
    transcript: { complete: false, eventCount: 0, omissionReason: NO_NATIVE_EVIDENCE },
    references: [],
    usage: {
      inputTokens: usage?.inputTokens ?? 0,
      outputTokens: usage?.outputTokens ?? 0,
      totalTokens: (usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0),
      requestCount: usage?.providerRequests ?? 0,
      durationMs: artifact.timing.durationMs,
    },
    cost,
    environmentMismatch: environmentMismatch(options.environment, fields),
    scores: [],
    rawCanonical,
  };
}

/** The ledger's message for upstream's artifact of a missing campaign cell. */
export const MISSING_CELL_MESSAGE =
  "the campaign's matrix cell retained no attempt artifact (upstream's aggregate wrote this one in its place): no session ran";

/**
 * Upstream's artifact for a campaign matrix cell that retained none, as what it is: an
 * infrastructure failure of that cell (ci_cell_artifact_missing, not retryable) — never solved and
 * never a behaviour result (its `turn: {status: "failed"}` is the aggregate's placeholder, not a
 * provider turn), its cost unknown (usage `{}`: unpriced, note usage_omitted, never zero). No
 * session ran, so the runner's package, binary and versions are unknown (empty, 0) and timing is
 * only when the artifact was written (createdAt; duration 0). Keyed like any artifact alone (its
 * evalCase when it states one, else `eval-session` / `<provider>/<requestedModel>`).
 */
function convertMissingCell(
  evidence: EvalSessionEvidence,
  artifact: MissingCellArtifact,
  options: ConvertOptions,
): LedgerRecord {
  const rawCanonical = canonicalize(artifact);
  const fields = artifactSuiteFields(artifact);
  const failure = artifact.infrastructureFailure;
  return {
    key: {
      runId: fields.runId,
      caseId: fields.caseId,
      configId: fields.configId,
      attemptId: fields.attemptId,
    },
    bundleDigest: sha256Digest(rawCanonical),
    fileSha256: options.fileSha256 ?? evidence.artifactSha256,
    provenance: 'live',
    runner: {
      packageName: '',
      packageVersion: '',
      binarySha256: '',
      driverKind: artifact.driver,
      driverVersion: artifact.providerVersion ?? '',
      prpVersion: 0,
      nativeExecutionVersion: 0,
      catalogVersion: 0,
      catalogSha256: '',
    },
    caseSha256: fields.caseSha256,
    configSha256: fields.configSha256,
    startedAt: artifact.createdAt,
    terminal: { turn: 'failed', run: 'failed', workDisposition: 'unknown' },
    failure: {
      classification: 'infrastructure',
      code: failure.class,
      message: artifact.infrastructureError ?? MISSING_CELL_MESSAGE,
      retryable: failure.retryable,
    },
    evalSession: evalSessionRecord(evidence),
    toolCalls: [],
    denials: 0,
    transcript: { complete: false, eventCount: 0, omissionReason: NO_NATIVE_EVIDENCE },
    references: [],
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0, requestCount: 0, durationMs: 0 },
    cost: artifactCost(undefined),
    environmentMismatch: environmentMismatch(options.environment, fields),
    scores: [],
    rawCanonical,
  };
}
