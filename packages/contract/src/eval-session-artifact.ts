// The fail-closed parser of paperclip-runner/eval-session-artifact/v1, what a runner package's
// paperclip-runner-eval-session bin writes for one direct eval session: strict JSON text, our JSON
// Schema (schemas/runner/eval-session-artifact-v1.schema.json), then the rules a schema cannot
// express — one shape (success, with an accounting failure or not, or infrastructure failure), the
// provider's one driver, upstream's class table, cost provenance as seed 001 states it, timing in
// order; or upstream's artifact for a missing campaign cell (MissingCellArtifact), its own rules. Every issue is collected before one ContractError('paperclip_eval_session_artifact_invalid');
// a valid artifact comes back as the parsed object itself, so unknown additive fields survive.
// Pure: no I/O.
import { ContractError } from './errors.js';
import { readJsonText, unsafeNumberIssues } from './json-text.js';
import { blankTextIssues, instantMs } from './native-execution-fields.js';
import { SCHEMA_IDS, schemaIssuesOf } from './schema-registry.js';

import type { Issue } from './errors.js';
import type { JsonTextLimits, JudgeOptions } from './json-text.js';
import type { Place } from './native-execution-fields.js';
import type { ErrorObject } from './schema-registry.js';

export const EVAL_SESSION_ARTIFACT_V1 = 'paperclip-runner/eval-session-artifact/v1';

/** Upstream's providers (and ours, the deterministic stand-in) and the one driver each runs on. */
export const EVAL_SESSION_PROVIDER_DRIVERS: Readonly<Record<string, string>> = Object.freeze({
  codex: 'codex_app_server',
  opencode: 'opencode_server',
  claude_managed: 'claude_managed_agents_api',
  aws_agentcore: 'aws_agentcore_harness_api',
  acpx: 'acpx_runtime',
  paperclip_deterministic: 'paperclip_deterministic_harness',
});

/**
 * The classes an orchestrator states in an artifact it synthesizes for a try or cell that left none
 * of its own (docs/campaigns.md): upstream's campaign aggregate writes `ci_cell_artifact_missing`
 * for a matrix cell without artifact; Evals' campaign (`evals run`) the `eval_session_*` ones for a
 * session that hung, died, refused, wrote nothing usable or could not start.
 */
export const ORCHESTRATION_FAILURE_CLASSES = Object.freeze({
  /** Killed after limits.turnTimeoutMs plus grace: like upstream's provider_turn_timeout, retryable. */
  eval_session_timeout: { category: 'campaign_orchestration', retryable: true },
  /** Ended by a signal nobody sent: the runner died (like upstream's runner_infrastructure_failure). */
  eval_session_crashed: { category: 'runner_infrastructure', retryable: true },
  /** Exit 1: refused before any session (bad request, unreadable runnerd): the same request fails again. */
  eval_session_refused: { category: 'eval_orchestration', retryable: false },
  /** No artifact at --output. */
  eval_session_artifact_missing: { category: 'eval_orchestration', retryable: false },
  /** An artifact that is not a strict JSON eval-session artifact of this attempt, or that disagrees with its exit code. */
  eval_session_artifact_invalid: { category: 'eval_orchestration', retryable: false },
  /** An exit code the contract does not have. */
  eval_session_exit_unknown: { category: 'eval_orchestration', retryable: false },
  /**
   * Evals' campaign: the try's native bundle (valid, as `evals validate` reads it) that the ledger
   * refused to store (a digest conflict, an attempt not of the suite, another runnerd than the
   * qualified one, the store's own refusal) or that names another attempt than the planned one. The
   * same bytes are refused again: not retryable; the ledger's code is in diagnostics.ledgerCode.
   */
  eval_session_evidence_refused: { category: 'eval_orchestration', retryable: false },
  /** The process could not be started. */
  eval_session_not_started: { category: 'campaign_orchestration', retryable: false },
  /** Upstream's: a CI matrix cell (a shard) that left no artifact. */
  ci_cell_artifact_missing: { category: 'campaign_orchestration', retryable: false },
} as const);

/**
 * Every infrastructure failure class an artifact may state, each with its category and whether a
 * retry may help: upstream's session classes, then the orchestrators' (ORCHESTRATION_FAILURE_CLASSES).
 */
export const INFRASTRUCTURE_FAILURE_CLASSES = Object.freeze({
  provider_turn_timeout: { category: 'provider_lifecycle', retryable: true },
  provider_budget_reached: { category: 'provider_budget', retryable: false },
  provider_budget_coverage_unknown: { category: 'provider_budget', retryable: false },
  runner_infrastructure_failure: { category: 'runner_infrastructure', retryable: true },
  eval_orchestration_failure: { category: 'eval_orchestration', retryable: false },
  ...ORCHESTRATION_FAILURE_CLASSES,
} as const);
export type InfrastructureFailureClass = keyof typeof INFRASTRUCTURE_FAILURE_CLASSES;

export interface EvalSessionUsage {
  readonly agentTurns: number;
  readonly providerRequests: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedInputTokens: number;
  readonly reasoningTokens: number;
  readonly providerReportedCostNanodollars: number | null;
  readonly providerReportedCostProvenance: 'legacy_runner_usage_ledger' | 'unavailable';
  readonly estimatedCostNanodollars: number | null;
  readonly pricingVersion: string | null;
  readonly ratesUsdPerMillionTokens: {
    readonly input: number;
    readonly cachedInput: number;
    readonly output: number;
  } | null;
  readonly costCoverage: 'estimated' | 'unpriced' | 'legacy_ledger_and_estimate';
  readonly legacyLedgerCostNanodollars?: number | null;
  readonly [field: string]: unknown;
}

/** Upstream's CapabilityDevtoolsSnapshot (schema paperclip.capability.devtools.v1), as the parser vouches for it. */
export interface EvalSessionDevtools {
  readonly schema: 'paperclip.capability.devtools.v1';
  readonly currentRevision: number;
  readonly revisions: readonly {
    readonly revision: number;
    readonly at: string;
    readonly turnId: string | null;
    readonly operationId: string;
    readonly state: unknown;
  }[];
  readonly protocol: readonly {
    readonly id: string;
    readonly at: string;
    readonly turnId: string | null;
    readonly boundary: string;
    readonly event: string;
    readonly detail: unknown;
  }[];
  readonly runtime: unknown;
  readonly authority: unknown;
  readonly providerTrace?: Readonly<Record<string, unknown>> | null;
  readonly [field: string]: unknown;
}

/** Upstream's CapabilityIssueThreadSnapshot (schema paperclip.capability.issue-thread-view.v1), as the parser vouches for it. */
export interface EvalSessionIssueThread {
  readonly schema: 'paperclip.capability.issue-thread-view.v1';
  readonly sessionId: string;
  readonly mode: 'live' | 'fake' | 'replay';
  readonly identity: Readonly<Record<string, unknown>>;
  readonly issue: Readonly<Record<string, unknown>>;
  readonly turns: readonly {
    readonly id: string;
    readonly ordinal: number;
    readonly mode: 'live' | 'fake' | 'replay';
    readonly toolCallCount: number;
    readonly at: string;
    readonly stoppedByUser: boolean;
    readonly items: readonly { readonly kind: string; readonly id: string; readonly at: string }[];
  }[];
  readonly composer: Readonly<Record<string, unknown>>;
  readonly evidence: Readonly<Record<string, readonly Readonly<Record<string, unknown>>[]>>;
  readonly connection: { readonly state: 'connected' | 'reconnecting' | 'closed'; readonly attempt: number };
  readonly replay: { readonly ordinal: number; readonly total: number } | null;
  readonly renderedAt: string;
  readonly [field: string]: unknown;
}

/**
 * Upstream's class of the artifact its campaign aggregate writes for a matrix cell that retained
 * none (MissingCellArtifact): never a session's.
 */
export const CELL_ARTIFACT_MISSING = 'ci_cell_artifact_missing';

export interface EvalSessionInfrastructureFailure {
  readonly class: InfrastructureFailureClass;
  readonly category: string;
  readonly retryable: boolean;
  readonly diagnostics?: Readonly<Record<string, unknown>>;
}

export interface EvalSessionArtifact {
  readonly schema: typeof EVAL_SESSION_ARTIFACT_V1;
  readonly attemptId: string;
  readonly build: {
    readonly package: { readonly name: string; readonly version: string };
    readonly [field: string]: unknown;
  };
  readonly runnerd: { readonly path: '[withheld]'; readonly sha256: string };
  readonly requestedModel: string;
  readonly provider: string;
  readonly driver: string;
  readonly providerVersion: string | null;
  readonly providerSessionId: string | null;
  readonly turn?: { readonly turnId: string; readonly status: string; readonly assistantText: string };
  readonly snapshot?: Readonly<Record<string, unknown>>;
  /**
   * Upstream's, additive: its eval-session's two projections of the live session in a success
   * artifact (the failure shape has neither); kept whole, each held to the shape upstream types
   * (the schema's $defs devtools / issueThread; refused as devtools_invalid / issue_thread_invalid).
   */
  readonly devtools?: EvalSessionDevtools;
  readonly issueThread?: EvalSessionIssueThread;
  readonly usage?: EvalSessionUsage;
  readonly timing: { readonly startedAt: string; readonly finishedAt: string; readonly durationMs: number };
  readonly infrastructureError?: string;
  readonly infrastructureFailure?: EvalSessionInfrastructureFailure;
  /**
   * Upstream's newer variant: a completed turn whose budget check failed or whose cost coverage is
   * unknown (the success shape, exit 2), classified from the same table.
   */
  readonly accountingError?: string;
  readonly accountingFailure?: EvalSessionInfrastructureFailure;
  /** Ours, additive: the native-execution/v1 bundle beside the artifact, by its file's digest. */
  readonly nativeExecution?: { readonly path: string; readonly sha256: string; readonly byteSize: number };
  /**
   * Ours, additive: the planned attempt the artifact is of (a campaign's synthesized artifact states
   * it), so one read alone is stored under that run, case and config instead of `eval-session`.
   */
  readonly evalCase?: {
    readonly runId: string;
    readonly caseId: string;
    readonly caseSha256: string;
    readonly configId: string;
    readonly configSha256: string;
    /** The sha256 of the lane's profile (per-provider fields and flags) the try ran; absent: none. */
    readonly laneProfileSha256?: string;
  };
  /** Ours, additive: who wrote an artifact the session itself did not (e.g. `paperclip-evals campaign`). */
  readonly synthesizedBy?: string;
  readonly [field: string]: unknown;
}

/**
 * The artifact upstream's campaign aggregate (scripts/runner-protocol-eval-campaign.mjs,
 * syntheticAttempt) writes for a matrix cell that retained no attempt artifact: no session ran, so it
 * has no build, runnerd, providerSessionId or timing; `usage` is `{}` (cost unknown, never zero) and
 * `turn` is `{status: "failed"}`. What it is: an infrastructure failure of that cell
 * (ci_cell_artifact_missing), never a pass and never a behaviour result.
 */
export interface MissingCellArtifact {
  readonly schema: typeof EVAL_SESSION_ARTIFACT_V1;
  readonly attemptId: string;
  readonly createdAt: string;
  readonly requestedModel: string;
  readonly provider: string;
  readonly driver: string;
  readonly providerVersion: string | null;
  readonly usage: Readonly<Record<string, never>>;
  readonly turn: { readonly status: 'failed' };
  readonly snapshot?: Readonly<Record<string, unknown>>;
  readonly infrastructureError?: string;
  readonly infrastructureFailure: EvalSessionInfrastructureFailure & {
    readonly class: typeof CELL_ARTIFACT_MISSING;
  };
  readonly evalCase?: NonNullable<EvalSessionArtifact['evalCase']>;
  // A cell that retained nothing states no session (the parser refuses each: missing_cell_states_session).
  readonly build?: undefined;
  readonly runnerd?: undefined;
  readonly providerSessionId?: undefined;
  readonly timing?: undefined;
  readonly nativeExecution?: undefined;
  /** The aggregate's placeholder, `{revisions: []}`. */
  readonly devtools?: { readonly revisions: readonly never[] };
  readonly issueThread?: undefined;
  readonly accountingError?: undefined;
  readonly accountingFailure?: undefined;
  readonly [field: string]: unknown;
}

/** Every valid eval-session/v1 artifact: a session's, or a missing cell's (isMissingCellArtifact). */
export type AnyEvalSessionArtifact = EvalSessionArtifact | MissingCellArtifact;

/** Whether a valid artifact is upstream's missing-cell artifact (its class says so; never a session's). */
export function isMissingCellArtifact(artifact: AnyEvalSessionArtifact): artifact is MissingCellArtifact {
  return artifact.infrastructureFailure?.class === CELL_ARTIFACT_MISSING;
}

/** Parses artifact bytes (or text); throws ContractError listing every issue. */
export function parseEvalSessionArtifact(
  input: Uint8Array | string,
  options: JsonTextLimits = {},
): AnyEvalSessionArtifact {
  const text = readJsonText(input, options);
  if (!text.ok) throw invalidArtifact(text.issues);
  assertEvalSessionArtifact(text.value, { strictlyRead: true });
  return text.value;
}

export function assertEvalSessionArtifact(
  value: unknown,
  options: JudgeOptions = {},
): asserts value is AnyEvalSessionArtifact {
  const issues = evalSessionArtifactIssues(value, options);
  if (issues.length > 0) throw invalidArtifact(issues);
}

export function isEvalSessionArtifact(value: unknown): value is AnyEvalSessionArtifact {
  return evalSessionArtifactIssues(value).length === 0;
}

const issue = (code: string, path: string, message: string, expected: unknown, received: unknown): Issue => ({
  code,
  path,
  message,
  expected,
  received: received === undefined ? 'missing' : received,
});

/** Every issue of an already-parsed value; [] means it is a valid artifact. */
export function evalSessionArtifactIssues(value: unknown, options: JudgeOptions = {}): Issue[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return [issue('json_not_object', '', 'the artifact is not a JSON object', 'a JSON object', value)];
  const artifact = value as Record<string, unknown>;
  if (artifact.schema !== EVAL_SESSION_ARTIFACT_V1)
    return [
      issue(
        'artifact_schema_unknown',
        '/schema',
        `the artifact does not declare ${EVAL_SESSION_ARTIFACT_V1}`,
        EVAL_SESSION_ARTIFACT_V1,
        artifact.schema,
      ),
    ];
  // A value that never was text is held to the text's number rule (as the native parser's API is).
  const schemaIssues = [
    ...(options.strictlyRead === true ? [] : unsafeNumberIssues(value)),
    ...schemaIssuesOf(SCHEMA_IDS.evalSessionArtifactV1, value, ruleFor),
  ];
  if (schemaIssues.length > 0) return schemaIssues; // the rules below read fields the schema vouches for
  const valid = value as AnyEvalSessionArtifact;
  return [
    ...blankTextIssues(artifact, ARTIFACT_TEXT_PLACES),
    ...(isMissingCellArtifact(valid) ? missingCellIssues(valid) : semanticIssues(valid)),
  ];
}

/**
 * Every text field of the artifact (the schema's `$defs/text`; a test holds the two equal): when
 * present, text with something besides whitespace, as upstream's `text()` and the native parser's
 * text_required mean it. Upstream's bin copies attemptId and requestedModel from a request its parser
 * refuses when either is blank, so an artifact it wrote never holds whitespace alone there.
 */
export const ARTIFACT_TEXT_PLACES: readonly Place[] = [
  ['attemptId'],
  ['requestedModel'],
  ['infrastructureError'],
  ['accountingError'],
  ['synthesizedBy'],
  ['turn', 'turnId'],
  ['evalCase', 'runId'],
  ['evalCase', 'caseId'],
  ['evalCase', 'configId'],
  ['nativeExecution', 'path'],
];

/** What a missing cell's artifact states beside its class would be a session's: none of it may be there. */
const SESSION_FIELDS = [
  'build',
  'runnerd',
  'providerSessionId',
  'timing',
  // Its `devtools` is the aggregate's placeholder (no revisions: the schema's missingCell); an issue
  // thread would be a session's.
  'issueThread',
  'nativeExecution',
  'accountingError',
  'accountingFailure',
] as const;

/**
 * The rules of upstream's missing-cell artifact: its provider's one driver and its class's category
 * and retryability (as every artifact's), and no session field beside it — a cell that retained
 * nothing cannot state a build, a runnerd, a provider session or timing.
 */
function missingCellIssues(artifact: MissingCellArtifact): Issue[] {
  const issues = [...driverIssues(artifact), ...failureClassIssues(artifact)];
  const stated: Readonly<Record<string, unknown>> = artifact;
  for (const field of SESSION_FIELDS)
    if (stated[field] !== undefined)
      issues.push(
        issue(
          'missing_cell_states_session',
          `/${field}`,
          `an artifact of class ${CELL_ARTIFACT_MISSING} is of a cell that retained no session: it states no ${field}`,
          `no ${field}`,
          field,
        ),
      );
  return issues;
}

function driverIssues(artifact: AnyEvalSessionArtifact): Issue[] {
  const driver = EVAL_SESSION_PROVIDER_DRIVERS[artifact.provider];
  return driver === artifact.driver
    ? []
    : [
        issue(
          'provider_driver_mismatch',
          '/driver',
          `provider ${artifact.provider} runs on ${driver ?? 'no known driver'}`,
          driver,
          artifact.driver,
        ),
      ];
}

/**
 * Upstream's per-provider members (its eval-session writes each only for its provider: the managed
 * profile and retained session for claude_managed, the AgentCore profile for aws_agentcore, the ACPX
 * agent, profile and diagnostic candidate for acpx; their shapes are the schema's, from the request
 * its parser accepted). One on another provider's artifact is refused; the retained session says
 * whether there is a provider session, as upstream derives it.
 */
const PROVIDER_FIELDS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  claude_managed: ['managedProfile', 'retainedSession', 'retainedSessionStatus'],
  aws_agentcore: ['agentCoreProfile'],
  acpx: ['acpxAgent', 'acpxProfile', 'diagnosticCandidateProfile'],
});

function providerFieldIssues(artifact: EvalSessionArtifact): Issue[] {
  const issues: Issue[] = [];
  const stated: Readonly<Record<string, unknown>> = artifact;
  for (const [provider, fields] of Object.entries(PROVIDER_FIELDS))
    for (const field of fields)
      if (stated[field] !== undefined && artifact.provider !== provider)
        issues.push(
          issue(
            'provider_field_mismatch',
            `/${field}`,
            `upstream's eval-session writes ${field} only for provider ${provider}`,
            `no ${field} for provider ${artifact.provider}`,
            stated[field],
          ),
        );
  // Upstream's request parser: agentVersion a canonical positive int32 string (the schema has its form).
  const managed = stated.managedProfile as { agentVersion?: unknown } | undefined;
  if (typeof managed?.agentVersion === 'string' && BigInt(managed.agentVersion) > 2_147_483_647n)
    issues.push(
      issue(
        'schema_violation',
        '/managedProfile/agentVersion',
        'agentVersion is a positive int32 (upstream refuses a larger one)',
        'at most 2147483647',
        managed.agentVersion,
      ),
    );
  const retained = artifact.providerSessionId !== null;
  if (stated.retainedSession !== undefined && stated.retainedSession !== retained)
    issues.push(
      issue(
        'retained_session_mismatch',
        '/retainedSession',
        'retainedSession says whether the artifact has a providerSessionId',
        retained,
        stated.retainedSession,
      ),
    );
  const status = retained ? 'retained' : 'unknown';
  if (stated.retainedSessionStatus !== undefined && stated.retainedSessionStatus !== status)
    issues.push(
      issue(
        'retained_session_mismatch',
        '/retainedSessionStatus',
        'retainedSessionStatus is retained with a providerSessionId, unknown without',
        status,
        stated.retainedSessionStatus,
      ),
    );
  if (
    stated.diagnosticCandidateProfile !== undefined &&
    stated.acpxAgent !== undefined &&
    stated.diagnosticCandidateProfile !== stated.acpxAgent
  )
    issues.push(
      issue(
        'provider_field_mismatch',
        '/diagnosticCandidateProfile',
        "the diagnostic candidate profile is the session's ACPX agent (upstream's --candidate-profile must match it)",
        stated.acpxAgent,
        stated.diagnosticCandidateProfile,
      ),
    );
  return issues;
}

function failureClassIssues(artifact: AnyEvalSessionArtifact): Issue[] {
  const issues: Issue[] = [];
  for (const [field, failure] of [
    ['infrastructureFailure', artifact.infrastructureFailure],
    ['accountingFailure', artifact.accountingFailure],
  ] as const) {
    if (failure === undefined) continue;
    const known = INFRASTRUCTURE_FAILURE_CLASSES[failure.class];
    if (failure.category !== known.category)
      issues.push(
        issue(
          'failure_class_mismatch',
          `/${field}/category`,
          `${failure.class} is of category ${known.category}`,
          known.category,
          failure.category,
        ),
      );
    if (failure.retryable !== known.retryable)
      issues.push(
        issue(
          'failure_class_mismatch',
          `/${field}/retryable`,
          `${failure.class} is ${known.retryable ? '' : 'not '}retryable`,
          known.retryable,
          failure.retryable,
        ),
      );
  }
  return issues;
}

function ruleFor(error: ErrorObject, path: string): string {
  // Upstream's two views of a session: their own codes, so a malformed view is told from the rest.
  if (path === '/devtools' || path.startsWith('/devtools/')) return 'devtools_invalid';
  if (path === '/issueThread' || path.startsWith('/issueThread/')) return 'issue_thread_invalid';
  const pattern = (error.params as { pattern?: unknown }).pattern;
  if ((typeof pattern === 'string' && pattern.startsWith('^sha256:')) || path.endsWith('/sha256'))
    return 'digest_malformed';
  if (path === '/runnerd/path') return 'runnerd_path_not_withheld';
  if (path === '/timing/startedAt' || path === '/timing/finishedAt') return 'timestamp_invalid';
  if (path.startsWith('/usage/') && path.endsWith('Nanodollars')) return 'cost_nanodollars_invalid';
  return 'schema_violation';
}

function semanticIssues(artifact: EvalSessionArtifact): Issue[] {
  const issues: Issue[] = [];
  const failed = artifact.infrastructureFailure !== undefined || artifact.infrastructureError !== undefined;
  if (failed) {
    if (artifact.infrastructureFailure === undefined || artifact.infrastructureError === undefined)
      issues.push(
        issue(
          'artifact_failure_incomplete',
          artifact.infrastructureFailure === undefined ? '/infrastructureFailure' : '/infrastructureError',
          'a failure artifact states both infrastructureError and infrastructureFailure',
          'both',
          'one of them',
        ),
      );
    if (artifact.turn !== undefined)
      issues.push(
        issue(
          'artifact_shape_ambiguous',
          '/turn',
          'an artifact is a success (turn) or an infrastructure failure, never both',
          'no turn beside infrastructureFailure',
          artifact.turn,
        ),
      );
  } else
    for (const field of ['turn', 'snapshot', 'usage'] as const)
      // Upstream omits usage when it has none; only a completed turn must account for its usage.
      if (artifact[field] === undefined && (field !== 'usage' || artifact.turn?.status === 'completed'))
        issues.push(
          issue(
            'artifact_success_incomplete',
            `/${field}`,
            `a success artifact states ${field} (or it is an infrastructure failure and says so)`,
            field,
            undefined,
          ),
        );

  issues.push(...driverIssues(artifact), ...providerFieldIssues(artifact));

  if (artifact.accountingFailure !== undefined || artifact.accountingError !== undefined) {
    if (artifact.accountingFailure === undefined || artifact.accountingError === undefined)
      issues.push(
        issue(
          'artifact_accounting_incomplete',
          artifact.accountingFailure === undefined ? '/accountingFailure' : '/accountingError',
          'an accounting failure states both accountingError and accountingFailure',
          'both',
          'one of them',
        ),
      );
    if (artifact.turn?.status !== 'completed')
      issues.push(
        issue(
          'artifact_shape_ambiguous',
          '/accountingFailure',
          'an accounting failure is of a completed turn (the success shape), never of an infrastructure failure',
          'a completed turn beside accountingFailure',
          artifact.turn?.status ?? 'no turn',
        ),
      );
  }

  issues.push(...failureClassIssues(artifact));

  if (artifact.usage !== undefined) issues.push(...usageIssues(artifact.usage));

  const { startedAt, finishedAt } = artifact.timing;
  if (instantMs(finishedAt) < instantMs(startedAt))
    issues.push(
      issue(
        'timing_out_of_order',
        '/timing/finishedAt',
        'the session finished before it started',
        `at or after ${startedAt}`,
        finishedAt,
      ),
    );
  return issues;
}

/**
 * Cost provenance (seed 001): no provider figure ⇔ provenance unavailable (a missing receipt is not
 * a free request); an estimate names its price list and rates; the coverage says what the figures
 * are. A legacy ledger amount is kept apart and never prices the attempt.
 */
function usageIssues(usage: EvalSessionUsage): Issue[] {
  const issues: Issue[] = [];
  const provider = usage.providerReportedCostNanodollars;
  const estimate = usage.estimatedCostNanodollars;
  if ((provider === null) !== (usage.providerReportedCostProvenance === 'unavailable'))
    issues.push(
      issue(
        'usage_provenance_mismatch',
        '/usage/providerReportedCostProvenance',
        provider === null
          ? 'no provider figure: its provenance is unavailable'
          : 'a provider figure has a provenance other than unavailable',
        provider === null ? 'unavailable' : 'legacy_runner_usage_ledger',
        usage.providerReportedCostProvenance,
      ),
    );
  if (estimate !== null && (usage.pricingVersion === null || usage.ratesUsdPerMillionTokens === null))
    issues.push(
      issue(
        'usage_pricing_missing',
        usage.pricingVersion === null ? '/usage/pricingVersion' : '/usage/ratesUsdPerMillionTokens',
        'an estimate names the price list and rates behind it',
        'the pricingVersion and rates of estimatedCostNanodollars',
        null,
      ),
    );
  if (estimate === null && usage.pricingVersion !== null)
    issues.push(
      issue(
        'usage_pricing_without_estimate',
        '/usage/pricingVersion',
        'a price list without an estimate',
        null,
        usage.pricingVersion,
      ),
    );
  const legacy = usage.legacyLedgerCostNanodollars ?? null;
  const coverageHolds = {
    estimated: estimate !== null,
    unpriced: estimate === null,
    legacy_ledger_and_estimate:
      estimate !== null &&
      (legacy !== null || usage.providerReportedCostProvenance === 'legacy_runner_usage_ledger'),
  }[usage.costCoverage];
  if (!coverageHolds)
    issues.push(
      issue(
        'usage_coverage_mismatch',
        '/usage/costCoverage',
        `the cost figures do not make the coverage ${usage.costCoverage}`,
        estimate === null ? 'unpriced' : 'estimated',
        usage.costCoverage,
      ),
    );
  return issues;
}

export function invalidArtifact(issues: readonly Issue[]): ContractError {
  const first = issues[0];
  const summary =
    first === undefined ? '' : `: ${first.code} at ${first.path === '' ? '(root)' : (first.path ?? '')}`;
  const more = issues.length > 1 ? ` (+${issues.length - 1} more)` : '';
  return new ContractError(
    'paperclip_eval_session_artifact_invalid',
    `invalid eval-session artifact${summary}${more}`,
    issues,
  );
}
