// The deterministic harness driver: a provider-free HarnessDriver whose sessions play a scripted
// agent (read a document, write it, ask for an approval...) through a control plane and emit
// real PRP v1 events. Seeded: the same seed, behaviour and inputs give the same events, byte for
// byte. It never reads a clock (times derive from `startedAt`), never touches the network, and
// its only randomness is a seeded PRNG.
import { createHash } from 'node:crypto';

import { canonicalSha256 } from '../semantic-catalog.js';
import { PaperclipRunnerError } from '../errors.js';
import { PRP_EVENT_SCHEMA, PRP_RUN_RESULT_SCHEMA, PRP_TERMINAL_SCHEMA } from '../prp.js';
import { HARNESS_DRIVER_CONTRACT_VERSION } from '../runner-contracts.js';
import { SEMANTIC_TOOL_ENVELOPE_SCHEMA } from '../semantic-tools.js';
import { FakeControlPlane } from './fake-control-plane.js';
import { SeededPrng } from './seeded-prng.js';

import type { GovernedToolDecision, RunnerControlPlane } from '../control-plane.js';
import type { PrpEvent, PrpPriority, PrpTerminal, TurnTerminalState } from '../prp.js';
import type {
  HarnessConfigValidation,
  HarnessDriver,
  HarnessDriverDescriptor,
  NativeSession,
  NativeSessionSnapshot,
  NativeSessionSummary,
  NativeUsage,
  OpenNativeSessionRequest,
  ResumeNativeSessionRequest,
  SemanticToolCallRecord,
  SemanticToolResultRecord,
  NativeSessionView,
  SemanticToolReconciliation,
  TurnInput,
  TurnOutcome,
} from '../runner-contracts.js';
import type { SemanticToolDenial } from '../semantic-tools.js';

export const DETERMINISTIC_BEHAVIOURS = [
  'succeed',
  'fail',
  'deny_tool',
  'incomplete',
  'unpriced',
  'over_budget',
  'harness_crash',
] as const;

/**
 * The one behaviour whose turn never ends by itself: it stays active until it is interrupted or
 * cancelled (a provider that never answers; the eval-session bin's turn timeout is tested with it).
 */
export const DETERMINISTIC_HANG_BEHAVIOUR = 'hang';

/** What the scripted agent does; `harness_crash` makes the harness process die mid-turn. */
export type DeterministicBehaviour =
  (typeof DETERMINISTIC_BEHAVIOURS)[number] | typeof DETERMINISTIC_HANG_BEHAVIOUR;

export const DETERMINISTIC_HARNESS_DRIVER_CONFIG_SCHEMA =
  'paperclip-runner/deterministic-harness-driver-config/v1';
/** Upstream's one scenario: a turn that calls one semantic tool and completes. Ours: `behaviour`. */
export const DETERMINISTIC_SCENARIOS = ['semantic-tool-success'] as const;
export const DETERMINISTIC_DEFAULT_MODEL = 'paperclip-deterministic-1';
/** A turn whose message starts with this stays active until it is interrupted. */
export const CONFORMANCE_INTERRUPT_DIRECTIVE = '[conformance:interrupt]';
/** The token budget `over_budget` runs into when the config sets none. */
export const DETERMINISTIC_DEFAULT_BUDGET_TOKENS = 600;
/** Events an `incomplete` session's transcript holds before its writer stops. */
export const DETERMINISTIC_INCOMPLETE_TRANSCRIPT_CAP = 6;

export interface DeterministicPricing {
  readonly currency: string;
  readonly inputMicrosPerMillionTokens: number;
  readonly outputMicrosPerMillionTokens: number;
}

/** The price list the deterministic "provider" reports cost with, unless the config gives one. */
export const DETERMINISTIC_DEFAULT_PRICING: DeterministicPricing = Object.freeze({
  currency: 'USD',
  inputMicrosPerMillionTokens: 3_000_000,
  outputMicrosPerMillionTokens: 15_000_000,
});

export interface DeterministicHarnessDriverConfig {
  readonly schema: typeof DETERMINISTIC_HARNESS_DRIVER_CONFIG_SCHEMA;
  /** Upstream's field; when given, one of DETERMINISTIC_SCENARIOS. */
  readonly scenario?: (typeof DETERMINISTIC_SCENARIOS)[number];
  /** Ours (additive): what the scripted agent does; default `succeed`. */
  readonly behaviour?: DeterministicBehaviour;
  readonly seed?: string;
  readonly model?: string;
  /** null: the provider reports no cost. */
  readonly pricing?: DeterministicPricing | null;
  readonly budget?: { readonly maxTotalTokens: number };
}

export interface DeterministicHarnessDriverOptions {
  readonly seed?: string;
  readonly behaviour?: DeterministicBehaviour;
  /** Used by sessions opened without one. Default: a fresh FakeControlPlane per session. */
  readonly controlPlane?: RunnerControlPlane;
}

export const DETERMINISTIC_DRIVER_DESCRIPTOR: HarnessDriverDescriptor = Object.freeze({
  kind: 'paperclip-deterministic',
  displayName: 'Paperclip deterministic harness driver',
  version: '1.0.0',
  protocolVersion: 'prp.v1',
  capabilities: Object.freeze({
    resume: true,
    typedEvents: true,
    steering: false,
    interruption: true,
    structuredResult: true,
    read: true,
    reconciliation: true,
    usage: true,
    // Its semantic tools are the caller's control plane's, not built into the driver.
    dynamicTools: true,
    runtimeRequestResolution: false,
    goals: false,
    threadLineage: false,
    unsupported: Object.freeze(['steering', 'runtimeRequestResolution', 'goals', 'threadLineage']),
  }),
});

const IDENTIFIER = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
const CONFIG_KEYS = new Set(['schema', 'scenario', 'behaviour', 'seed', 'model', 'pricing', 'budget']);

interface ResolvedConfig {
  readonly behaviour: DeterministicBehaviour;
  readonly seed: string;
  readonly model: string;
  readonly pricing: DeterministicPricing | null;
  readonly maxTotalTokens: number | null;
}

export class DeterministicHarnessDriver implements HarnessDriver {
  readonly contractVersion = HARNESS_DRIVER_CONTRACT_VERSION;
  readonly #options: DeterministicHarnessDriverOptions;

  constructor(options: DeterministicHarnessDriverOptions = {}) {
    this.#options = options;
  }

  descriptor(): Promise<HarnessDriverDescriptor> {
    return Promise.resolve(DETERMINISTIC_DRIVER_DESCRIPTOR);
  }

  validateConfig(config: unknown): Promise<HarnessConfigValidation> {
    return Promise.resolve(validateDeterministicConfig(config));
  }

  openSession(request: OpenNativeSessionRequest): Promise<NativeSession> {
    const validation = validateDeterministicConfig(request.config);
    if (!validation.ok) {
      return Promise.reject(
        new PaperclipRunnerError(
          'harness_driver_config_invalid',
          `invalid deterministic driver config: ${validation.issues.map((issue) => `${issue.path} ${issue.message}`).join('; ')}`,
          validation.issues,
        ),
      );
    }
    return this.#open(request);
  }

  #open(request: OpenNativeSessionRequest): Promise<NativeSession> {
    for (const [field, id] of [
      ['runId', request.runId],
      ['sessionId', request.sessionId],
    ] as const) {
      if (!IDENTIFIER.test(id) || id.length > 120)
        return Promise.reject(stateError(`${field} must be an identifier of at most 120 characters`));
    }
    const startMs = Date.parse(request.startedAt);
    if (Number.isNaN(startMs)) return Promise.reject(stateError('startedAt must be an RFC 3339 date-time'));
    const resolved = this.#resolve(request.config as DeterministicHarnessDriverConfig);
    const session = new DeterministicSession({
      runId: request.runId,
      sessionId: request.sessionId,
      config: request.config,
      resolved,
      startedAt: new Date(startMs).toISOString(),
      controlPlane: request.controlPlane ?? this.#options.controlPlane ?? new FakeControlPlane(),
      prng: SeededPrng.fromSeed(`${resolved.seed}\u0000${request.runId}\u0000${request.sessionId}`),
      restored: undefined,
    });
    session.emit('session.started', {
      driverKind: DETERMINISTIC_DRIVER_DESCRIPTOR.kind,
      driverVersion: DETERMINISTIC_DRIVER_DESCRIPTOR.version,
      model: resolved.model,
    });
    return Promise.resolve(session);
  }

  resumeSession(request: ResumeNativeSessionRequest): Promise<NativeSession> {
    const { snapshot } = request;
    if (
      (snapshot as { schema?: unknown }).schema !== 'paperclip-runner/native-session-snapshot/v1' ||
      snapshot.driverKind !== DETERMINISTIC_DRIVER_DESCRIPTOR.kind
    ) {
      return Promise.reject(stateError('not a snapshot of a deterministic session'));
    }
    const validation = validateDeterministicConfig(snapshot.config);
    if (!validation.ok) return Promise.reject(stateError('the snapshot carries an invalid config'));
    const session = new DeterministicSession({
      runId: snapshot.runId,
      sessionId: snapshot.sessionId,
      config: snapshot.config,
      resolved: this.#resolve(snapshot.config as DeterministicHarnessDriverConfig),
      startedAt: snapshot.startedAt,
      controlPlane: request.controlPlane ?? this.#options.controlPlane ?? new FakeControlPlane(),
      prng: SeededPrng.fromState(snapshot.prngState),
      restored: snapshot,
    });
    session.emit('session.resumed', { fromSourceSeq: snapshot.lastSourceSeq });
    return Promise.resolve(session);
  }

  #resolve(config: DeterministicHarnessDriverConfig): ResolvedConfig {
    const behaviour = config.behaviour ?? this.#options.behaviour ?? 'succeed';
    const defaultBudget = behaviour === 'over_budget' ? DETERMINISTIC_DEFAULT_BUDGET_TOKENS : null;
    return {
      behaviour,
      seed: config.seed ?? this.#options.seed ?? 'paperclip-deterministic',
      model: config.model ?? DETERMINISTIC_DEFAULT_MODEL,
      pricing: config.pricing === undefined ? DETERMINISTIC_DEFAULT_PRICING : config.pricing,
      maxTotalTokens: config.budget?.maxTotalTokens ?? defaultBudget,
    };
  }
}

/** The config's every issue (upstream's codes `type`, `unsupported_schema`, `unsupported_scenario`, and ours). */
function validateDeterministicConfig(config: unknown): HarnessConfigValidation {
  const issues: { path: string; code: string; message: string }[] = [];
  const fail = (path: string, message: string, code = 'invalid'): void => {
    issues.push({ path, code, message });
  };
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    return {
      ok: false,
      config: null,
      issues: [{ path: '/', code: 'type', message: 'the config must be an object' }],
    };
  }
  const value = config as Record<string, unknown>;
  for (const key of Object.keys(value))
    if (!CONFIG_KEYS.has(key)) fail(`/${key}`, 'unknown field', 'unknown_field');
  if (value.schema !== DETERMINISTIC_HARNESS_DRIVER_CONFIG_SCHEMA)
    fail('/schema', `must be ${DETERMINISTIC_HARNESS_DRIVER_CONFIG_SCHEMA}`, 'unsupported_schema');
  if (
    value.scenario !== undefined &&
    !(DETERMINISTIC_SCENARIOS as readonly unknown[]).includes(value.scenario)
  )
    fail('/scenario', `must be one of ${DETERMINISTIC_SCENARIOS.join(', ')}`, 'unsupported_scenario');
  // Upstream's one scenario is a successful run: a behaviour scripting anything else contradicts it.
  if (
    value.scenario !== undefined &&
    value.behaviour !== 'succeed' &&
    ([...DETERMINISTIC_BEHAVIOURS, DETERMINISTIC_HANG_BEHAVIOUR] as readonly unknown[]).includes(
      value.behaviour,
    )
  )
    fail(
      '/behaviour',
      `${JSON.stringify(value.behaviour)} contradicts scenario ${JSON.stringify(value.scenario)}`,
      'scenario_conflict',
    );
  if (
    value.behaviour !== undefined &&
    !(DETERMINISTIC_BEHAVIOURS as readonly unknown[]).includes(value.behaviour) &&
    value.behaviour !== DETERMINISTIC_HANG_BEHAVIOUR
  ) {
    fail(
      '/behaviour',
      `must be one of ${[...DETERMINISTIC_BEHAVIOURS, DETERMINISTIC_HANG_BEHAVIOUR].join(', ')}`,
    );
  }
  for (const key of ['seed', 'model'] as const) {
    const field = value[key];
    if (field !== undefined && (typeof field !== 'string' || field === ''))
      fail(`/${key}`, 'must be a non-empty string');
  }
  const pricing = value.pricing as Record<string, unknown> | null | undefined;
  if (pricing !== undefined && pricing !== null) {
    if (typeof pricing !== 'object' || typeof pricing.currency !== 'string' || pricing.currency === '') {
      fail(
        '/pricing',
        'must be null or { currency, inputMicrosPerMillionTokens, outputMicrosPerMillionTokens }',
      );
    }
    for (const key of ['inputMicrosPerMillionTokens', 'outputMicrosPerMillionTokens']) {
      if (!isCount(pricing[key])) fail(`/pricing/${key}`, 'must be a non-negative integer');
    }
  }
  const budget = value.budget as Record<string, unknown> | undefined;
  if (
    budget !== undefined &&
    (typeof budget !== 'object' || !isCount(budget.maxTotalTokens) || budget.maxTotalTokens === 0)
  ) {
    fail('/budget/maxTotalTokens', 'must be a positive integer');
  }
  return issues.length === 0 ? { ok: true, config, issues: [] } : { ok: false, config: null, issues };
}

const TURN_TERMINAL_EVENTS = {
  completed: 'turn.completed',
  failed: 'turn.failed',
  interrupted: 'turn.interrupted',
  cancelled: 'turn.cancelled',
} as const;

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const sha256Text = (text: string): string =>
  `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
const stateError = (message: string): PaperclipRunnerError =>
  new PaperclipRunnerError('harness_driver_session_state_invalid', message);

interface SessionInit {
  readonly runId: string;
  readonly sessionId: string;
  readonly config: unknown;
  readonly resolved: ResolvedConfig;
  readonly startedAt: string;
  readonly controlPlane: RunnerControlPlane;
  readonly prng: SeededPrng;
  readonly restored: NativeSessionSnapshot | undefined;
}

interface ActiveTurn {
  readonly turnId: string;
  /** Set by interrupt() or cancel(); the scripted agent stops at its next step. */
  stop: 'interrupted' | 'cancelled' | undefined;
  wake: (() => void) | undefined;
  done: Promise<unknown> | undefined;
}

interface Totals {
  inputTokens: number;
  outputTokens: number;
  requestCount: number;
}

class DeterministicSession implements NativeSession {
  readonly runId: string;
  readonly sessionId: string;
  readonly capabilities = DETERMINISTIC_DRIVER_DESCRIPTOR.capabilities;
  readonly #init: SessionInit;
  readonly #events: PrpEvent[] = [];
  readonly #calls: SemanticToolCallRecord[];
  readonly #results: SemanticToolResultRecord[];
  readonly #denials: SemanticToolDenial[];
  readonly #outputs: { name: string; mediaType: string; text: string }[] = [];
  readonly #totals: Totals;
  #reported: Totals;
  #seq: number;
  #eventCount: number;
  #elapsedMs: number;
  #turnCount: number;
  #lastTurnState: TurnTerminalState | null;
  #active: ActiveTurn | undefined;
  #result: Record<string, unknown> | null = null;
  #failure: NativeSessionSummary['failure'] = null;
  #summary: NativeSessionSummary | undefined;
  #crashed = false;

  constructor(init: SessionInit) {
    this.#init = init;
    this.runId = init.runId;
    this.sessionId = init.sessionId;
    const restored = init.restored;
    this.#seq = restored?.lastSourceSeq ?? 0;
    this.#eventCount = restored?.eventCount ?? 0;
    this.#elapsedMs = restored?.elapsedMs ?? 0;
    this.#turnCount = restored?.turnCount ?? 0;
    this.#lastTurnState = restored?.lastTurnState ?? null;
    this.#totals = {
      inputTokens: restored?.usage.inputTokens ?? 0,
      outputTokens: restored?.usage.outputTokens ?? 0,
      requestCount: restored?.usage.requestCount ?? 0,
    };
    this.#reported = { ...this.#totals };
    this.#calls = [...(restored?.semanticTools.calls ?? [])];
    this.#results = [...(restored?.semanticTools.results ?? [])];
    this.#denials = [...(restored?.semanticTools.denials ?? [])];
  }

  events(): readonly PrpEvent[] {
    return [...this.#events];
  }

  /** Appends one event; the logical clock advances a seeded 3 to 25 ms per event. */
  emit(
    eventType: string,
    payload: Record<string, unknown>,
    scope: { turnId?: string; itemId?: string; priority?: PrpPriority } = {},
  ): PrpEvent {
    this.#seq += 1;
    this.#eventCount += 1;
    this.#elapsedMs += this.#init.prng.int(3, 25);
    const event: PrpEvent = {
      schema: PRP_EVENT_SCHEMA,
      sourceEventId: `${this.sessionId}.e${String(this.#seq).padStart(4, '0')}`,
      sourceSeq: this.#seq,
      sourceInstanceId: `runner_${this.sessionId}`,
      sourceKind: 'runner',
      runId: this.runId,
      normalizedSessionId: this.sessionId,
      ...(scope.turnId === undefined ? {} : { turnId: scope.turnId }),
      ...(scope.itemId === undefined ? {} : { itemId: scope.itemId }),
      eventType,
      schemaVersion: 1,
      priority: scope.priority ?? 1,
      emittedAt: new Date(Date.parse(this.#init.startedAt) + this.#elapsedMs).toISOString(),
      payload,
    };
    this.#events.push(event);
    return event;
  }

  runTurn(input: TurnInput): Promise<TurnOutcome> {
    const closed = this.#closedError();
    if (closed !== undefined) return Promise.reject(closed);
    if (this.#active !== undefined)
      return Promise.reject(stateError(`turn ${this.#active.turnId} is still active`));
    if (!IDENTIFIER.test(input.turnId)) return Promise.reject(stateError('turnId must be an identifier'));
    const turn: ActiveTurn = { turnId: input.turnId, stop: undefined, wake: undefined, done: undefined };
    this.#active = turn;
    this.#turnCount += 1;
    this.emit(
      'turn.started',
      { inputDigest: sha256Text(input.message) },
      { turnId: turn.turnId, priority: 0 },
    );
    const done = (async (): Promise<TurnOutcome> => {
      let state: TurnTerminalState;
      try {
        state = input.message.startsWith(CONFORMANCE_INTERRUPT_DIRECTIVE)
          ? await this.#waitForStop(turn)
          : await this.#play(turn, input.message);
      } finally {
        this.#active = undefined;
      }
      this.#reportUsage(turn.turnId);
      this.emit(
        TURN_TERMINAL_EVENTS[state],
        { turnTerminalState: state },
        { turnId: turn.turnId, priority: 0 },
      );
      this.#lastTurnState = state;
      return { turnId: turn.turnId, state };
    })();
    turn.done = done;
    return done;
  }

  interrupt(turnId: string): Promise<void> {
    const active = this.#active;
    if (active?.turnId !== turnId) return Promise.reject(stateError(`turn ${turnId} is not active`));
    active.stop ??= 'interrupted';
    active.wake?.();
    return Promise.resolve();
  }

  steer(): Promise<void> {
    return Promise.reject(unsupported('steering'));
  }

  resolveRuntimeRequest(): Promise<void> {
    return Promise.reject(unsupported('runtimeRequestResolution'));
  }

  read(): NativeSessionView {
    return {
      runId: this.runId,
      sessionId: this.sessionId,
      events: this.events(),
      usage: this.#usage(),
      result: this.#result,
      activeTurnId: this.#active?.turnId ?? null,
    };
  }

  reconcile(): SemanticToolReconciliation {
    const index = this.#index();
    const byId = new Map(this.#events.map((event) => [event.sourceEventId, event]));
    const mismatches: string[] = [];
    const matches = (eventId: string, eventType: string, callId: string, operationId: string): boolean => {
      const tool = byId.get(eventId)?.payload.semantic_tool as
        { callId?: unknown; operationId?: unknown } | undefined;
      return (
        byId.get(eventId)?.eventType === eventType &&
        tool?.callId === callId &&
        tool.operationId === operationId
      );
    };
    // Events of a resumed session's earlier process are not in this object: only its own are checked.
    const own = (eventId: string): boolean => byId.has(eventId);
    for (const call of index.calls) {
      if (own(call.eventId) && !matches(call.eventId, 'mcp_app.tool_input', call.callId, call.operationId))
        mismatches.push(`call ${call.callId}: event ${call.eventId} is not its tool_input`);
    }
    for (const result of index.results) {
      if (
        own(result.eventId) &&
        !matches(result.eventId, 'mcp_app.tool_result', result.callId, result.operationId)
      )
        mismatches.push(`result ${result.callId}: event ${result.eventId} is not its tool_result`);
    }
    return { index, mismatches };
  }

  snapshot(): NativeSessionSnapshot {
    const closed = this.#closedError();
    if (closed !== undefined) throw closed;
    if (this.#active !== undefined) throw stateError('a session cannot be snapshotted during a turn');
    return {
      schema: 'paperclip-runner/native-session-snapshot/v1',
      driverKind: DETERMINISTIC_DRIVER_DESCRIPTOR.kind,
      runId: this.runId,
      sessionId: this.sessionId,
      config: this.#init.config,
      startedAt: this.#init.startedAt,
      elapsedMs: this.#elapsedMs,
      lastSourceSeq: this.#seq,
      eventCount: this.#eventCount,
      turnCount: this.#turnCount,
      prngState: this.#init.prng.state,
      usage: this.#usage(),
      semanticTools: this.#index(),
      lastTurnState: this.#lastTurnState,
    };
  }

  async cancel(reason: string): Promise<NativeSessionSummary> {
    if (this.#summary !== undefined) return this.#summary;
    const active = this.#active;
    if (active !== undefined) {
      active.stop = 'cancelled';
      active.wake?.();
      await active.done?.catch(() => undefined);
    }
    this.#failure ??= { classification: 'cancelled', code: 'run_cancelled', message: reason };
    return this.#finish({
      turnTerminalState: 'cancelled',
      runTerminalState: 'cancelled',
      reportedWorkDisposition: 'yielded',
    });
  }

  close(): Promise<NativeSessionSummary> {
    if (this.#summary !== undefined) return Promise.resolve(this.#summary);
    if (this.#active !== undefined)
      return Promise.reject(stateError(`turn ${this.#active.turnId} is still active`));
    const turnState: TurnTerminalState = this.#lastTurnState ?? 'cancelled';
    const disposition = this.#result?.reportedWorkDisposition;
    const terminal = {
      completed: {
        runTerminalState: 'succeeded',
        reportedWorkDisposition: disposition === 'needs_review' ? 'needs_review' : 'done',
      },
      failed: { runTerminalState: 'failed', reportedWorkDisposition: 'blocked' },
      interrupted: { runTerminalState: 'cancelled', reportedWorkDisposition: 'yielded' },
      cancelled: { runTerminalState: 'cancelled', reportedWorkDisposition: 'yielded' },
    } as const;
    return Promise.resolve(this.#finish({ turnTerminalState: turnState, ...terminal[turnState] }));
  }

  #finish(
    state: Pick<PrpTerminal, 'turnTerminalState' | 'runTerminalState' | 'reportedWorkDisposition'>,
  ): NativeSessionSummary {
    if (this.#result !== null) this.emit('run.result.proposed', this.#result, { priority: 0 });
    this.emit('session.closed', { reason: state.runTerminalState });
    const terminal: PrpTerminal = {
      schema: PRP_TERMINAL_SCHEMA,
      ...state,
      workAssessmentId: `assessment_${this.sessionId}`,
      statusDecisionId: `decision_${this.sessionId}`,
    };
    this.emit('run.terminal', terminal, { priority: 0 });
    const incomplete =
      this.#init.resolved.behaviour === 'incomplete' &&
      this.#eventCount > DETERMINISTIC_INCOMPLETE_TRANSCRIPT_CAP;
    this.#summary = {
      terminal,
      usage: this.#usage(),
      transcript: incomplete
        ? {
            complete: false,
            eventCount: DETERMINISTIC_INCOMPLETE_TRANSCRIPT_CAP,
            omissionReason: `transcript writer stopped at its ${DETERMINISTIC_INCOMPLETE_TRANSCRIPT_CAP}-event cap; the last ${this.#eventCount - DETERMINISTIC_INCOMPLETE_TRANSCRIPT_CAP} of ${this.#eventCount} events are not in the transcript`,
          }
        : { complete: true, eventCount: this.#eventCount, omissionReason: null },
      semanticTools: this.#index(),
      result: this.#result,
      failure: this.#failure,
      outputs: [...this.#outputs],
    };
    return this.#summary;
  }

  #closedError(): PaperclipRunnerError | undefined {
    if (this.#summary !== undefined) return stateError('the session is closed');
    return this.#crashed ? stateError('the harness exited; the session can only be closed') : undefined;
  }

  #index(): NativeSessionSnapshot['semanticTools'] {
    return { calls: [...this.#calls], results: [...this.#results], denials: [...this.#denials] };
  }

  #usage(): NativeUsage {
    const { inputTokens, outputTokens, requestCount } = this.#totals;
    const pricing = this.#init.resolved.behaviour === 'unpriced' ? null : this.#init.resolved.pricing;
    return {
      inputTokens,
      outputTokens,
      totalTokens: inputTokens + outputTokens,
      requestCount,
      durationMs: this.#elapsedMs,
      cost:
        pricing === null
          ? null
          : { currency: pricing.currency, amountMicros: costMicros(pricing, inputTokens, outputTokens) },
    };
  }

  #reportUsage(turnId: string): void {
    const usage = this.#usage();
    const counters = (totals: Totals, costMicrosValue: number | null): Record<string, unknown> => ({
      inputTokens: totals.inputTokens,
      outputTokens: totals.outputTokens,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      activeSeconds: this.#elapsedMs / 1000,
      requests: totals.requestCount,
      requestCountSource: 'provider_reported',
      requestCountExact: true,
      providerCostUsd: (costMicrosValue ?? 0) / 1_000_000,
      providerCostStatus: costMicrosValue === null ? 'unpriced' : 'reported',
    });
    const delta: Totals = {
      inputTokens: this.#totals.inputTokens - this.#reported.inputTokens,
      outputTokens: this.#totals.outputTokens - this.#reported.outputTokens,
      requestCount: this.#totals.requestCount - this.#reported.requestCount,
    };
    const pricing = usage.cost === null ? null : this.#init.resolved.pricing;
    this.emit(
      'usage.reported',
      {
        provider: DETERMINISTIC_DRIVER_DESCRIPTOR.kind,
        model: this.#init.resolved.model,
        providerSessionId: this.sessionId,
        providerTurnId: turnId,
        cumulative: counters(this.#totals, usage.cost?.amountMicros ?? null),
        runDelta: counters(
          delta,
          pricing === null ? null : costMicros(pricing, delta.inputTokens, delta.outputTokens),
        ),
      },
      { turnId },
    );
    this.#reported = { ...this.#totals };
  }

  /** One model request: seeded token counts and a progress delta. */
  #step(turn: ActiveTurn, text: string): void {
    const prng = this.#init.prng;
    this.#totals.requestCount += 1;
    this.#totals.inputTokens += 180 + prng.int(0, 120);
    this.#totals.outputTokens += 40 + prng.int(0, 80);
    this.emit(
      'item.delta',
      { channel: 'progress', text },
      { turnId: turn.turnId, itemId: `${turn.turnId}.m${this.#totals.requestCount}` },
    );
  }

  async #tool(
    turn: ActiveTurn,
    operationId: string,
    args: Record<string, unknown>,
    claims: readonly string[] = [],
  ): Promise<GovernedToolDecision> {
    const ordinal = this.#calls.length + 1;
    const callId = `call_${this.sessionId}_${ordinal}`;
    const itemId = `${turn.turnId}.t${ordinal}`;
    const idempotencyKey = `${operationId}_${callId}`;
    const correlation = {
      runId: this.runId,
      normalizedSessionId: this.sessionId,
      turnId: turn.turnId,
      itemId,
    };
    const envelope = {
      schema: SEMANTIC_TOOL_ENVELOPE_SCHEMA,
      schemaVersion: 1,
      operationId,
      callId,
      correlation,
      idempotencyKey,
    };
    const input = this.emit(
      'mcp_app.tool_input',
      {
        semantic_tool: {
          ...envelope,
          phase: 'input',
          content: { digest: canonicalSha256(args), redactionDisposition: 'digest_only', references: [] },
        },
      },
      { turnId: turn.turnId, itemId },
    );
    this.#calls.push({ callId, operationId, eventId: input.sourceEventId });
    const decision = await this.#init.controlPlane.decideGovernedTool({
      runId: this.runId,
      sessionId: this.sessionId,
      turnId: turn.turnId,
      callId,
      operationId,
      idempotencyKey,
      claims,
      arguments: args,
    });
    const result = this.emit(
      'mcp_app.tool_result',
      {
        semantic_tool: {
          ...envelope,
          phase: 'result',
          content: {
            digest: canonicalSha256(decision.result ?? {}),
            redactionDisposition: 'digest_only',
            references: [],
          },
          outcome: decision.outcome,
          code: decision.code,
          retryable: decision.retryable,
          authorizationBoundary: decision.authorizationBoundary,
          operationReceiptId: decision.operationReceiptId,
          auditReceiptId: decision.auditReceiptId,
        },
      },
      { turnId: turn.turnId, itemId },
    );
    this.#results.push({
      callId,
      operationId,
      eventId: result.sourceEventId,
      outcome: decision.outcome,
      code: decision.code,
      operationReceiptId: decision.operationReceiptId,
    });
    if (decision.outcome === 'denied') {
      this.#denials.push({
        callId,
        code: decision.code,
        authorizationBoundary: decision.authorizationBoundary,
        retryable: decision.retryable,
      });
    }
    return decision;
  }

  #waitForStop(turn: ActiveTurn): Promise<TurnTerminalState> {
    this.#step(turn, 'Keeping the turn active until it is interrupted.');
    return new Promise((resolve) => {
      turn.wake = () => {
        resolve(turn.stop ?? 'interrupted');
      };
      if (turn.stop !== undefined) resolve(turn.stop);
    });
  }

  /** The scripted agent for this session's behaviour. */
  async #play(turn: ActiveTurn, message: string): Promise<TurnTerminalState> {
    const { behaviour, maxTotalTokens } = this.#init.resolved;
    const overBudget = (): boolean =>
      maxTotalTokens !== null && this.#totals.inputTokens + this.#totals.outputTokens > maxTotalTokens;
    const stopped = (): TurnTerminalState | undefined => {
      if (turn.stop !== undefined) return turn.stop;
      if (!overBudget()) return undefined;
      this.emit(
        'runner.diagnostic',
        { code: 'budget_exceeded', maxTotalTokens },
        { turnId: turn.turnId, priority: 0 },
      );
      this.#failure = {
        classification: 'budget',
        code: 'budget_exceeded',
        message: `the session used ${this.#totals.inputTokens + this.#totals.outputTokens} tokens, over its budget of ${String(maxTotalTokens)}`,
      };
      return 'cancelled';
    };

    this.#step(turn, `Working on: ${message.slice(0, 120)}`);
    if (behaviour === DETERMINISTIC_HANG_BEHAVIOUR) return this.#waitForStop(turn);
    if (behaviour === 'harness_crash') {
      this.emit(
        'harness.exited',
        { exitCode: 137, signal: 'SIGKILL', expected: false },
        { turnId: turn.turnId, priority: 0 },
      );
      this.#crashed = true;
      this.#failure = {
        classification: 'infrastructure',
        code: 'harness_exited',
        message: 'the harness process exited (SIGKILL) during the turn',
      };
      return 'failed';
    }
    const read = await this.#tool(turn, 'read_document', { documentId: 'doc_brief' });
    const baseRevision = typeof read.result?.revision === 'number' ? read.result.revision : 0;
    const early = stopped();
    if (early !== undefined) return early;

    if (behaviour === 'over_budget') {
      for (let round = 1; round <= 20; round += 1) {
        this.#step(turn, `Re-reading the brief (pass ${round}).`);
        const stop = stopped();
        if (stop !== undefined) return stop;
      }
    }
    if (behaviour === 'deny_tool') {
      this.#step(turn, 'Approving the publication request.');
      const decision = await this.#tool(turn, 'decide_approval', {
        approvalId: 'approval_publish_summary',
        decision: 'approve',
      });
      this.#step(
        turn,
        decision.outcome === 'denied'
          ? 'The approval was denied; leaving it for an authorized approver.'
          : 'Approved.',
      );
      this.#result = runResult(
        decision.outcome === 'denied' ? 'needs_review' : 'done',
        decision,
        'The governed approval was rejected and preserved as a denial.',
      );
      return stopped() ?? 'completed';
    }
    const text = `# Summary\n\n- ${['Two incidents', 'One near miss', 'No data loss'].join('\n- ')}\n\n<!-- seed ${this.#init.prng.int(0, 0xffff).toString(16)} -->\n`;
    this.#step(turn, 'Writing the summary.');
    const write = await this.#tool(turn, 'write_document', {
      documentId: 'doc_brief',
      baseRevision: behaviour === 'fail' ? baseRevision - 1 : baseRevision,
      text,
    });
    if (write.outcome !== 'succeeded') {
      this.#step(turn, `The write was refused (${write.code}); giving up.`);
      this.#result = runResult('blocked', write, 'The summary could not be written.');
      this.#failure = {
        classification: 'runner',
        code: 'run_failed',
        message: `write_document ended ${write.outcome} (${write.code})`,
      };
      return stopped() ?? 'failed';
    }
    this.#outputs.push({ name: 'document.md', mediaType: 'text/markdown', text });
    this.#step(turn, 'The summary is written.');
    this.#result = runResult('done', write, 'Wrote the three-bullet summary of the incident review.');
    return stopped() ?? 'completed';
  }
}

function runResult(
  disposition: 'done' | 'blocked' | 'needs_review',
  decision: GovernedToolDecision,
  summary: string,
): Record<string, unknown> {
  const done = disposition === 'done';
  return {
    schema: PRP_RUN_RESULT_SCHEMA,
    reportedWorkDisposition: disposition,
    summary,
    completionClaim: {
      contractRevision: 'evals-native-execution-v1',
      objectiveSatisfied: done,
      criteria: [],
      remainingWork: done
        ? []
        : [{ description: `Resolve ${decision.code} from the control plane.`, blocksCompletion: true }],
    },
    evidence: [{ receiptId: decision.operationReceiptId }],
    verification: [{ commandOrCheck: 'governed effect outcome recorded', status: 'passed' }],
    ...(disposition === 'blocked'
      ? {
          blocker: {
            reasonCode: decision.code,
            owner: { kind: 'control_plane' },
            unblockAction: 'Re-read the document and retry the write.',
            scope: 'current_track',
          },
        }
      : {}),
    attentionRequests: [],
    artifacts: [],
  };
}

function costMicros(pricing: DeterministicPricing, inputTokens: number, outputTokens: number): number {
  return Math.ceil(
    (inputTokens * pricing.inputMicrosPerMillionTokens +
      outputTokens * pricing.outputMicrosPerMillionTokens) /
      1_000_000,
  );
}

function unsupported(feature: string): PaperclipRunnerError {
  return new PaperclipRunnerError(
    'harness_driver_feature_unsupported',
    `the deterministic driver does not support ${feature}`,
    [
      {
        code: 'feature_unsupported',
        component: 'driver',
        message: `${feature} is declared false in the descriptor`,
      },
    ],
  );
}
