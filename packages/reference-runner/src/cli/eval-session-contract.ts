// The direct eval-session contract of the paperclip-runner-eval-session bin: the request
// (paperclip-runner/eval-session-request/v1), parsed fail-closed with every issue listed; the
// artifact (paperclip-runner/eval-session-artifact/v1) it writes; the infrastructure failure
// classes; and the usage with its cost provenance (seed 001: a direct session has no provider
// receipt). Names and shapes follow upstream's src/cli/eval-session-contract.ts (paperclipai/
// paperclip, packages/paperclip-runner; see docs/eval-session.md for what matches and what is
// ours). The deterministic provider, its session knobs and the evalCase/nativeExecution fields are
// ours. Pure: no I/O.
import { PaperclipRunnerError } from '../errors.js';
import { DETERMINISTIC_BEHAVIOURS, DETERMINISTIC_HANG_BEHAVIOUR } from '../testing/deterministic-driver.js';

import type { PaperclipRunnerBuildMetadata } from '../build-info.js';
import type { PaperclipRunnerIssue } from '../errors.js';
import type { DeterministicBehaviour, DeterministicPricing } from '../testing/deterministic-driver.js';
import type {
  CapabilityDevtoolsSnapshot,
  CapabilityIssueThreadSnapshot,
} from '../session/eval-session-views.js';

export const EVAL_SESSION_REQUEST_SCHEMA = 'paperclip-runner/eval-session-request/v1';
export const EVAL_SESSION_ARTIFACT_SCHEMA = 'paperclip-runner/eval-session-artifact/v1';
/** The only `runnerd.path` an artifact ever states: the real path is never written. */
export const WITHHELD = '[withheld]';

/** Each provider and the one driver it runs on (upstream's five, and our deterministic stand-in). */
export const EVAL_SESSION_PROVIDER_DRIVERS = Object.freeze({
  codex: 'codex_app_server',
  opencode: 'opencode_server',
  claude_managed: 'claude_managed_agents_api',
  aws_agentcore: 'aws_agentcore_harness_api',
  acpx: 'acpx_runtime',
  paperclip_deterministic: 'paperclip_deterministic_harness',
} as const);
export type EvalSessionProvider = keyof typeof EVAL_SESSION_PROVIDER_DRIVERS;
export type EvalSessionDriver = (typeof EVAL_SESSION_PROVIDER_DRIVERS)[EvalSessionProvider];
/** Upstream's default when a request names no provider. */
export const DEFAULT_EVAL_SESSION_PROVIDER: EvalSessionProvider = 'codex';
/**
 * Ours: the deterministic harness driver standing in for a live provider. No network, no
 * credentials, no spend; the only provider this reference runner runs.
 */
export const DETERMINISTIC_PROVIDER = 'paperclip_deterministic' satisfies EvalSessionProvider;

export interface EvalSessionLimits {
  /** A turn not ended within this is cancelled: provider_turn_timeout (retryable). */
  readonly turnTimeoutMs: number;
  /** More agent turns (model requests) than this: provider_budget_reached. */
  readonly maxAgentTurns: number;
  /** An estimated or ledger cost above this: provider_budget_reached. */
  readonly maxEstimatedCostNanodollars: number;
}

/** Upstream's `session` (CreateCapabilityLiveSessionInput); the deterministic provider reads the fields below. */
export interface EvalSessionInput {
  readonly provider?: string;
  readonly requestedModel?: string;
  readonly workingDirectory?: string;
  /** Upstream's name: the run the session belongs to (the native bundle's identity.runId). */
  readonly runId: string;
  readonly sessionId?: string;
  /**
   * The deterministic driver's seed (default: the attemptId): text (ours), or upstream's fixture
   * seed object (`CapabilityFixtureSeed | CapabilityFixtureState`, its type of `session.seed`), which
   * seeds the driver by its canonical JSON.
   */
  readonly seed?: string | Readonly<Record<string, unknown>>;
  /** Ours: what the deterministic agent does (default succeed; `hang` never ends its turn). */
  readonly behaviour?: DeterministicBehaviour;
  /**
   * Ours: per requested model, what the deterministic agent does instead of `behaviour` (a suite's
   * case can then come out differently for two configs: the stand-in for one model being better at
   * a case than another). The request's `model` is looked up; a model not listed gets `behaviour`.
   */
  readonly behaviourByModel?: Readonly<Record<string, DeterministicBehaviour>>;
  /**
   * Ours: the price list of the deterministic driver's own ledger figure (the artifact's
   * legacyLedgerCostNanodollars); null: it keeps none. Default: the driver's list.
   */
  readonly pricing?: DeterministicPricing | null;
  readonly [field: string]: unknown;
}

/** Ours: the case and config the attempt runs, named in the native bundle written beside the artifact. */
export interface EvalCase {
  readonly caseId: string;
  readonly caseSha256: string;
  readonly configId: string;
  readonly configSha256: string;
}

export interface EvalSessionRequest {
  readonly schema: typeof EVAL_SESSION_REQUEST_SCHEMA;
  readonly attemptId: string;
  readonly prompt: string;
  readonly model: string;
  readonly provider: EvalSessionProvider;
  readonly driver: EvalSessionDriver;
  readonly runnerd: { readonly path: string; readonly sha256: string };
  readonly limits: EvalSessionLimits;
  readonly session: EvalSessionInput;
  readonly evalCase: EvalCase;
}

const IDENTIFIER = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
const REQUEST_DIGEST = /^(?:sha256:)?[0-9a-fA-F]{64}$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';
const isPositiveSafeInteger = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
const shown = (value: unknown): string => (value === undefined ? 'missing' : JSON.stringify(value));

/**
 * The request, fail closed: every issue is listed in one PaperclipRunnerError
 * (`paperclip_eval_session_request_invalid`), each with its code and JSON pointer. Unknown
 * top-level fields are kept and ignored, as upstream does.
 */
export function parseEvalSessionRequest(value: unknown): EvalSessionRequest {
  const issues: PaperclipRunnerIssue[] = [];
  const issue = (code: string, path: string, message: string, expected: string, received: unknown): void => {
    issues.push({ code, path, message, expected, received: shown(received) });
  };
  if (!isObject(value)) {
    issue('request_not_object', '', 'the request is not a JSON object', 'a JSON object', value);
    throw invalid(issues);
  }
  if (value.schema !== EVAL_SESSION_REQUEST_SCHEMA)
    issue(
      'schema_unsupported',
      '/schema',
      'unsupported request schema',
      EVAL_SESSION_REQUEST_SCHEMA,
      value.schema,
    );
  for (const field of ['attemptId', 'prompt', 'model'] as const)
    if (!isText(value[field]))
      issue(
        'text_required',
        `/${field}`,
        `${field} must be a non-empty string`,
        'non-empty text',
        value[field],
      );
  if (isText(value.attemptId) && !IDENTIFIER.test(value.attemptId))
    issue(
      'attempt_id_invalid',
      '/attemptId',
      'attemptId names files: it must be an identifier',
      IDENTIFIER.source,
      value.attemptId,
    );

  const provider = value.provider ?? DEFAULT_EVAL_SESSION_PROVIDER;
  const providerText = typeof provider === 'string' ? provider : JSON.stringify(provider);
  const known = typeof provider === 'string' && Object.hasOwn(EVAL_SESSION_PROVIDER_DRIVERS, provider);
  if (!known)
    issue(
      'provider_unknown',
      '/provider',
      'unknown provider',
      Object.keys(EVAL_SESSION_PROVIDER_DRIVERS).join(' | '),
      provider,
    );
  const derived = known ? EVAL_SESSION_PROVIDER_DRIVERS[provider as EvalSessionProvider] : undefined;
  if (derived !== undefined && value.driver !== undefined && value.driver !== derived)
    issue(
      'provider_driver_mismatch',
      '/driver',
      `provider/driver mismatch: ${providerText} runs on ${derived}`,
      derived,
      value.driver,
    );
  if (known && provider !== DETERMINISTIC_PROVIDER)
    issue(
      'provider_unavailable',
      '/provider',
      `this reference runner runs no live provider: ${providerText} is not available here (use ${DETERMINISTIC_PROVIDER})`,
      DETERMINISTIC_PROVIDER,
      provider,
    );
  if (value.nativeResume !== undefined)
    issue(
      'native_resume_unsupported',
      '/nativeResume',
      'nativeResume is not supported by a direct eval session',
      'absent',
      value.nativeResume,
    );
  if (
    value.includeCollaborationModeInstructions !== undefined &&
    value.includeCollaborationModeInstructions !== true
  )
    issue(
      'collaboration_mode_instructions_invalid',
      '/includeCollaborationModeInstructions',
      'includeCollaborationModeInstructions may only be true (or absent)',
      'true or absent',
      value.includeCollaborationModeInstructions,
    );

  const runnerd = value.runnerd;
  if (!isObject(runnerd))
    issue('runnerd_invalid', '/runnerd', 'runnerd must be {path, sha256}', '{path, sha256}', runnerd);
  else {
    if (!isText(runnerd.path))
      issue(
        'runnerd_path_invalid',
        '/runnerd/path',
        'runnerd.path must be a non-empty string',
        'a file path',
        runnerd.path,
      );
    if (typeof runnerd.sha256 !== 'string' || !REQUEST_DIGEST.test(runnerd.sha256))
      issue(
        'runnerd_digest_invalid',
        '/runnerd/sha256',
        'runnerd.sha256 must be a sha256 digest',
        'sha256:<64 hex>',
        runnerd.sha256,
      );
  }

  const limits = value.limits;
  if (!isObject(limits))
    issue(
      'limits_invalid',
      '/limits',
      'limits must be an object',
      '{turnTimeoutMs, maxAgentTurns, maxEstimatedCostNanodollars}',
      limits,
    );
  else
    for (const field of ['turnTimeoutMs', 'maxAgentTurns', 'maxEstimatedCostNanodollars'] as const)
      if (!isPositiveSafeInteger(limits[field]))
        issue(
          'limit_invalid',
          `/limits/${field}`,
          `limits.${field} must be a positive safe integer`,
          'an integer from 1 to 2^53 − 1',
          limits[field],
        );

  const session = value.session;
  if (!isObject(session))
    issue('session_invalid', '/session', 'session must be an object', 'an object', session);
  else {
    if (session.provider !== undefined && session.provider !== provider)
      issue(
        'session_provider_mismatch',
        '/session/provider',
        'session.provider must be the request provider',
        providerText,
        session.provider,
      );
    if (session.requestedModel !== undefined && session.requestedModel !== value.model)
      issue(
        'session_model_mismatch',
        '/session/requestedModel',
        'session.requestedModel must be the request model',
        shown(value.model),
        session.requestedModel,
      );
    if (typeof session.runId !== 'string' || !IDENTIFIER.test(session.runId))
      issue(
        'session_run_id_invalid',
        '/session/runId',
        'session.runId (the run the attempt belongs to) must be an identifier',
        IDENTIFIER.source,
        session.runId,
      );
    if (
      session.sessionId !== undefined &&
      (typeof session.sessionId !== 'string' || !IDENTIFIER.test(session.sessionId))
    )
      issue(
        'session_id_invalid',
        '/session/sessionId',
        'session.sessionId must be an identifier',
        IDENTIFIER.source,
        session.sessionId,
      );
    if (session.seed !== undefined && !isText(session.seed) && !isObject(session.seed))
      issue(
        'session_seed_invalid',
        '/session/seed',
        "session.seed must be non-empty text or upstream's fixture seed object",
        'non-empty text, or an object (CapabilityFixtureSeed | CapabilityFixtureState)',
        session.seed,
      );
    const behaviours: readonly unknown[] = [...DETERMINISTIC_BEHAVIOURS, DETERMINISTIC_HANG_BEHAVIOUR];
    const pricing = session.pricing;
    if (
      pricing !== undefined &&
      pricing !== null &&
      !(
        isObject(pricing) &&
        isText(pricing.currency) &&
        Number.isSafeInteger(pricing.inputMicrosPerMillionTokens) &&
        (pricing.inputMicrosPerMillionTokens as number) >= 0 &&
        Number.isSafeInteger(pricing.outputMicrosPerMillionTokens) &&
        (pricing.outputMicrosPerMillionTokens as number) >= 0
      )
    )
      issue(
        'session_pricing_invalid',
        '/session/pricing',
        'session.pricing must be {currency, inputMicrosPerMillionTokens, outputMicrosPerMillionTokens} or null',
        '{currency, inputMicrosPerMillionTokens, outputMicrosPerMillionTokens} with non-negative safe integers, or null',
        pricing,
      );
    if (session.behaviour !== undefined && !behaviours.includes(session.behaviour))
      issue(
        'session_behaviour_unknown',
        '/session/behaviour',
        'unknown deterministic behaviour',
        behaviours.join(' | '),
        session.behaviour,
      );
    const byModel = session.behaviourByModel;
    if (byModel !== undefined) {
      if (!isObject(byModel))
        issue(
          'session_behaviour_by_model_invalid',
          '/session/behaviourByModel',
          'session.behaviourByModel must map model names to deterministic behaviours',
          '{"<model>": "<behaviour>", …}',
          byModel,
        );
      else
        for (const [model, behaviour] of Object.entries(byModel))
          if (!behaviours.includes(behaviour))
            issue(
              'session_behaviour_unknown',
              `/session/behaviourByModel/${model.replaceAll('~', '~0').replaceAll('/', '~1')}`,
              'unknown deterministic behaviour',
              behaviours.join(' | '),
              behaviour,
            );
    }
  }

  const evalCase = value.evalCase;
  if (!isObject(evalCase))
    issue(
      'eval_case_invalid',
      '/evalCase',
      'evalCase must name the case and config',
      '{caseId, caseSha256, configId, configSha256}',
      evalCase,
    );
  else {
    for (const field of ['caseId', 'configId'] as const)
      if (typeof evalCase[field] !== 'string' || !IDENTIFIER.test(evalCase[field]))
        issue(
          'eval_case_id_invalid',
          `/evalCase/${field}`,
          `evalCase.${field} must be an identifier`,
          IDENTIFIER.source,
          evalCase[field],
        );
    for (const field of ['caseSha256', 'configSha256'] as const)
      if (typeof evalCase[field] !== 'string' || !DIGEST.test(evalCase[field]))
        issue(
          'eval_case_digest_invalid',
          `/evalCase/${field}`,
          `evalCase.${field} must be a sha256 digest`,
          'sha256:<64 lowercase hex>',
          evalCase[field],
        );
  }

  if (issues.length > 0) throw invalid(issues);
  return { ...value, provider, driver: derived } as unknown as EvalSessionRequest;
}

function invalid(issues: readonly PaperclipRunnerIssue[]): PaperclipRunnerError {
  return new PaperclipRunnerError(
    'paperclip_eval_session_request_invalid',
    `invalid eval-session request: ${issues.map((entry) => `${entry.path || '/'} ${entry.message}`).join('; ')}`,
    issues,
  );
}

/** Upstream's classes (and category, retryability) of an infrastructure failure. */
export const INFRASTRUCTURE_FAILURE_CLASSES = Object.freeze({
  provider_turn_timeout: { category: 'provider_lifecycle', retryable: true },
  provider_budget_reached: { category: 'provider_budget', retryable: false },
  provider_budget_coverage_unknown: { category: 'provider_budget', retryable: false },
  runner_infrastructure_failure: { category: 'runner_infrastructure', retryable: true },
  eval_orchestration_failure: { category: 'eval_orchestration', retryable: false },
} as const);
export type InfrastructureFailureClass = keyof typeof INFRASTRUCTURE_FAILURE_CLASSES;

export interface InfrastructureFailure {
  readonly class: InfrastructureFailureClass;
  readonly category: (typeof INFRASTRUCTURE_FAILURE_CLASSES)[InfrastructureFailureClass]['category'];
  readonly retryable: boolean;
  readonly diagnostics: Readonly<Record<string, unknown>>;
}

/** A failure inside the session block: the artifact is still written (failure shape), exit 2. */
export class EvalSessionInfrastructureError extends Error {
  override readonly name = 'EvalSessionInfrastructureError';
  constructor(
    readonly failureClass: InfrastructureFailureClass,
    message: string,
    readonly diagnostics: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
  }

  get infrastructureFailure(): InfrastructureFailure {
    return {
      class: this.failureClass,
      ...INFRASTRUCTURE_FAILURE_CLASSES[this.failureClass],
      diagnostics: this.diagnostics,
    };
  }
}

/** USD per million tokens, as upstream's model pricing states them. */
export interface RatesUsdPerMillionTokens {
  readonly input: number;
  readonly cachedInput: number;
  readonly output: number;
}

/** Ours: the pinned price list the deterministic provider's attempts are estimated with. */
export const MODEL_PRICING_VERSION = 'paperclip-deterministic-list-prices-2026-12-01';
export const MODEL_PRICING: Readonly<Record<string, RatesUsdPerMillionTokens>> = Object.freeze({
  'paperclip-deterministic-1': Object.freeze({ input: 2.5, cachedInput: 0.25, output: 10 }),
  // A second priced model, so a suite can compare two configs of the stand-in (the demo does).
  'paperclip-deterministic-2': Object.freeze({ input: 1, cachedInput: 0.1, output: 4 }),
});

export type ProviderReportedCostProvenance = 'legacy_runner_usage_ledger' | 'unavailable';
export type EvalSessionCostCoverage = 'estimated' | 'unpriced' | 'legacy_ledger_and_estimate';

/** The artifact's `usage`: token totals over the receipts, and the cost figures with their provenance. */
export interface EvalSessionUsage {
  readonly agentTurns: number;
  readonly providerRequests: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedInputTokens: number;
  readonly reasoningTokens: number;
  /** A direct session has no provider receipt: always null (unknown, never a free request). */
  readonly providerReportedCostNanodollars: null;
  readonly providerReportedCostProvenance: 'unavailable';
  readonly estimatedCostNanodollars: number | null;
  readonly pricingVersion: string | null;
  readonly ratesUsdPerMillionTokens: RatesUsdPerMillionTokens | null;
  readonly costCoverage: 'estimated' | 'unpriced';
  /** The driver's own, unverified ledger amount: never added to the estimate; a 0 proves nothing. */
  readonly legacyLedgerCostNanodollars: number | null;
}

/** One raw usage receipt as the driver reported it (kept in the artifact's snapshot). */
export interface UsageReceipt {
  readonly receiptId: string;
  readonly turnId: string;
  readonly providerCalls: number;
  readonly providerRequests: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedInputTokens: number;
  readonly reasoningTokens: number;
  /** The driver's cost figure as reported (null: none). Not provider billing. */
  readonly reportedCost: { readonly currency: string; readonly amountMicros: number } | null;
}

const MAX = BigInt(Number.MAX_SAFE_INTEGER);
function bounded(value: bigint, what: string): number {
  if (value > MAX) throw new RangeError(`${what} ${value} nanodollars is above the safe-integer bound`);
  return Number(value);
}
/** A rate in USD per million tokens as exact integer micro-USD (at most 6 decimals). */
function rateMicros(usd: number): bigint {
  const micros = Math.round(usd * 1_000_000);
  if (!Number.isSafeInteger(micros) || micros < 0 || Math.abs(micros / 1_000_000 - usd) > 1e-12)
    throw new RangeError(`rate ${usd} USD per million tokens has more than 6 decimals`);
  return BigInt(micros);
}

/**
 * Upstream's estimate: uncached = max(0, input − cached); nanodollars = round(uncached·input +
 * cached·cachedInput + output·output) with rates in USD per million tokens (× 1000 per token).
 * Exact (BigInt, micro-USD rates), rounded once, half up. Reasoning tokens are not priced apart.
 */
export function estimateModelCostNanodollars(
  rates: RatesUsdPerMillionTokens,
  tokens: { readonly inputTokens: number; readonly cachedInputTokens: number; readonly outputTokens: number },
): number {
  const cached = BigInt(Math.min(tokens.cachedInputTokens, tokens.inputTokens));
  const uncached = BigInt(tokens.inputTokens) - cached;
  const picodollars =
    uncached * rateMicros(rates.input) +
    cached * rateMicros(rates.cachedInput) +
    BigInt(tokens.outputTokens) * rateMicros(rates.output);
  return bounded((picodollars + 500n) / 1000n, 'estimated cost');
}

/** The usage of a direct session from its receipts (de-duplicated by receiptId), priced as seed 001 says. */
export function evalSessionUsage(receipts: readonly UsageReceipt[], model: string): EvalSessionUsage {
  const unique = [...new Map(receipts.map((receipt) => [receipt.receiptId, receipt])).values()];
  const sum = (field: keyof Omit<UsageReceipt, 'receiptId' | 'turnId' | 'reportedCost'>): number =>
    unique.reduce((total, receipt) => total + receipt[field], 0);
  const tokens = {
    inputTokens: sum('inputTokens'),
    outputTokens: sum('outputTokens'),
    cachedInputTokens: sum('cachedInputTokens'),
  };
  const rates = Object.hasOwn(MODEL_PRICING, model) ? (MODEL_PRICING[model] ?? null) : null;
  const estimated = rates === null ? null : estimateModelCostNanodollars(rates, tokens);
  const ledger = unique.filter((receipt) => receipt.reportedCost?.currency === 'USD');
  return {
    agentTurns: sum('providerCalls'),
    providerRequests: sum('providerRequests'),
    ...tokens,
    reasoningTokens: sum('reasoningTokens'),
    providerReportedCostNanodollars: null,
    providerReportedCostProvenance: 'unavailable',
    estimatedCostNanodollars: estimated,
    pricingVersion: rates === null ? null : MODEL_PRICING_VERSION,
    ratesUsdPerMillionTokens: rates,
    costCoverage: estimated === null ? 'unpriced' : 'estimated',
    legacyLedgerCostNanodollars:
      ledger.length === 0
        ? null
        : bounded(
            ledger.reduce(
              (total, receipt) => total + BigInt(receipt.reportedCost?.amountMicros ?? 0) * 1000n,
              0n,
            ),
            'legacy ledger cost',
          ),
  };
}

/**
 * The budget stop (upstream's, applied to a completed turn): more agent turns than allowed, or an
 * estimated or ledger cost above the limit, is provider_budget_reached; a turn nobody can price
 * cannot be shown to be under the limit: provider_budget_coverage_unknown.
 */
export function budgetFailure(
  usage: EvalSessionUsage,
  limits: EvalSessionLimits,
): EvalSessionInfrastructureError | null {
  const over = (what: string, received: number, limit: number): EvalSessionInfrastructureError =>
    new EvalSessionInfrastructureError(
      'provider_budget_reached',
      `${what} limit exceeded: ${received} > ${limit}`,
      { limit, received },
    );
  if (usage.agentTurns > limits.maxAgentTurns)
    return over('agent turn', usage.agentTurns, limits.maxAgentTurns);
  if (
    usage.estimatedCostNanodollars !== null &&
    usage.estimatedCostNanodollars > limits.maxEstimatedCostNanodollars
  )
    return over('estimated cost', usage.estimatedCostNanodollars, limits.maxEstimatedCostNanodollars);
  if (
    usage.legacyLedgerCostNanodollars !== null &&
    usage.legacyLedgerCostNanodollars > limits.maxEstimatedCostNanodollars
  )
    return over('legacy ledger cost', usage.legacyLedgerCostNanodollars, limits.maxEstimatedCostNanodollars);
  if (usage.estimatedCostNanodollars === null)
    return new EvalSessionInfrastructureError(
      'provider_budget_coverage_unknown',
      'budget cost coverage is unavailable: the model has no pinned price, so the cost limit cannot be checked',
      { model: 'unpriced' },
    );
  return null;
}

/** Ours (additive): the native-execution/v1 bundle written beside the artifact, by file digest. */
export interface NativeExecutionReference {
  /** Relative to the artifact's folder, `/`-separated. */
  readonly path: string;
  /** sha256 of the bundle file's bytes. */
  readonly sha256: string;
  readonly byteSize: number;
}

interface ArtifactCommon {
  readonly schema: typeof EVAL_SESSION_ARTIFACT_SCHEMA;
  readonly attemptId: string;
  readonly build: PaperclipRunnerBuildMetadata;
  readonly runnerd: { readonly path: typeof WITHHELD; readonly sha256: string };
  readonly requestedModel: string;
  readonly provider: EvalSessionProvider;
  readonly driver: EvalSessionDriver;
  readonly providerVersion: string | null;
  readonly timing: { readonly startedAt: string; readonly finishedAt: string; readonly durationMs: number };
  readonly nativeExecution?: NativeExecutionReference;
}

export interface EvalSessionTurn {
  readonly turnId: string;
  readonly status: 'completed' | 'failed' | 'interrupted' | 'cancelled';
  readonly assistantText: string;
}

export interface EvalSessionSuccessArtifact extends ArtifactCommon {
  readonly providerSessionId: string;
  readonly turn: EvalSessionTurn;
  readonly snapshot: Readonly<Record<string, unknown>>;
  /** Upstream's CapabilityDevtoolsSnapshot of the session (success only). */
  readonly devtools: CapabilityDevtoolsSnapshot;
  /** Upstream's CapabilityIssueThreadSnapshot of the session, mode `live` (success only). */
  readonly issueThread: CapabilityIssueThreadSnapshot;
  readonly usage: EvalSessionUsage;
  readonly nativeExecution: NativeExecutionReference;
}

export interface EvalSessionFailureArtifact extends ArtifactCommon {
  readonly infrastructureError: string;
  readonly infrastructureFailure: InfrastructureFailure;
  readonly providerSessionId: string | null;
  readonly snapshot?: Readonly<Record<string, unknown>>;
  readonly usage?: EvalSessionUsage;
}

export type EvalSessionArtifact = EvalSessionSuccessArtifact | EvalSessionFailureArtifact;
