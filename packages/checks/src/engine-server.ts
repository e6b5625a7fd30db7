// The protocol layer of the checks engine: one request line in, at most one response line out.
// It parses and validates JSON-RPC 2.0, keeps the session state (initialize once, then evaluate,
// then shutdown), dispatches to the methods, and turns every failure into a wire error with
// {error_type, retryable, detail}. Framing and the process live in stdio-server.ts.
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';

import { schemaErrors } from '@paperclip-evals/contract';

import { ChecksError, isChecksError, rpcCodeOf, toWireError } from './errors.js';
import { evaluateAssertions } from './evaluate.js';
import { DEFAULT_STATIC_THRESHOLD, InMemoryDriftHistory, queryDrift, wireDriftReport } from './drift.js';
import {
  MAX_STEPS_PER_TRACE,
  MAX_TRACE_BYTES,
  TRACE_SCHEMA_ID,
  summarizeTraceTree,
  traceFromJSON,
  traceNodes,
  traceTreeErrors,
  withoutNullFields,
} from './trace.js';
import { PluginResults } from './plugin-results.js';
import { idNeedsRawToken, rawIdToken } from './request-id.js';
import {
  GO_STRUCT_FIELDS,
  foldStructKeys,
  foldTraceKeys,
  readRequestText,
  rememberSource,
} from './request-text.js';
import { goDecodeNumbers, goIntOf } from './go-decode.js';

import type { Assertion } from './assertion-types.js';
import type { DriftHistory } from './drift.js';
import type { BatchBudget, ModelGateway, ModelUsage } from './model-gateway.js';
import type { PluginResult } from './plugin-results.js';
import type { Trace } from './trace.js';
import type { ChecksErrorCode, WireError } from './errors.js';
import type { DecodedMethod } from './go-decode.js';

export const PROTOCOL_VERSION = 1;
/** The wire-protocol release this engine implements, reported as engine_version. */
export const ENGINE_VERSION = '1.1.0';
/** Longest request line read; longer than any valid trace so an oversize trace is answered 1001. */
export const MAX_REQUEST_LINE_BYTES = 4 * MAX_TRACE_BYTES;
export const DEFAULT_EVAL_TIMEOUT_MS = 120_000;
/** Longest assertion_id, in UTF-8 bytes (the peer engine's bound); longer is answered 1002. */
export const MAX_ASSERTION_ID_BYTES = 256;
const PROTOCOL_SCHEMA_ID = 'https://paperclip-evals.dev/schemas/checks/engine-protocol/v1.json';

/** Ours and the peer engine's names for what is always there (trace_tree is its name for multi_agent). */
const BASE_CAPABILITIES = ['layers_1_4', 'soft_failures', 'multi_agent', 'trace_tree', 'plugins'];

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type Log = (level: LogLevel, message: string, fields?: Readonly<Record<string, unknown>>) => void;

export interface EngineServerOptions {
  /** The model provider for layers 5–6 and generate_user_message, if one is configured. */
  readonly models?: {
    readonly gateway: ModelGateway;
    readonly judgeModel?: string;
    readonly judgeMetaEval?: boolean;
    readonly embeddingModel?: string;
  };
  /** ATTEST_SIMULATION=1: deterministic layers run, layers 5–6 are not_evaluated / simulation. */
  readonly simulation?: boolean;
  readonly history?: DriftHistory;
  /**
   * The session's soft-failure budget: once more soft_fail rows than this have been reported, every
   * batch result says budget_exceeded: true (its rows are all still returned). Absent: no budget,
   * and no budget_exceeded field.
   */
  readonly sessionMaxSoftFailures?: number;
  /**
   * ATTEST_CONTRACTS_DIR: every evaluate_batch appends its assertion specs, with the batch's
   * `context` (test_id, file, line), to assertion-specs.ndjson in this folder before it is evaluated.
   */
  readonly contractsDir?: string;
  /** A batch taking longer is answered 3002. */
  readonly evalTimeoutMs?: number;
  readonly log?: Log;
}

type RequestId = string | number | null;
/** A member as the wire may send it: absent or null. */
type Nullable<T> = { readonly [K in keyof T]?: T[K] | null };
type Params = Record<string, unknown>;
type SessionState = 'awaiting_initialize' | 'ready' | 'shut_down';

const METHODS = [
  'initialize',
  'evaluate_batch',
  'submit_plugin_result',
  'validate_trace_tree',
  'query_drift',
  'generate_user_message',
  'shutdown',
] as const;
type Method = (typeof METHODS)[number];

export class EngineServer {
  #state: SessionState = 'awaiting_initialize';
  #sessions = 0;
  #assertionsEvaluated = 0;
  #softFailures = 0;
  readonly #plugins = new PluginResults();
  readonly #history: DriftHistory;
  readonly #log: Log;

  constructor(private readonly options: EngineServerOptions = {}) {
    this.#history = options.history ?? new InMemoryDriftHistory();
    this.#log = options.log ?? (() => undefined);
  }

  get state(): SessionState {
    return this.#state;
  }

  /** Handles one request line; returns the response line, or undefined for a notification. */
  async handleLine(line: Uint8Array | string): Promise<string | undefined> {
    const lineBytes = typeof line === 'string' ? Buffer.byteLength(line) : line.byteLength;
    const request = readRequest(line);
    if ('error' in request) return respond(request.id, { error: request.error });
    // "ID", "Method", "Params" are read as Go reads its struct fields (case-insensitively).
    const message = foldStructKeys(request.message, GO_STRUCT_FIELDS.request);
    const hasId = Object.hasOwn(message, 'id');
    const id = message.id;
    const validId = id === null || typeof id === 'string' || typeof id === 'number';
    if (hasId && !validId)
      return respond(null, { error: invalidRequest('id must be a string, a number or null') });
    const replyId: ReplyId = !hasId
      ? null
      : idNeedsRawToken(id)
        ? { token: rawIdToken(request.text) ?? JSON.stringify(id) }
        : (id as RequestId);
    // The Attest engine's rule and words (server.go:137-147): jsonrpc "2.0" and a non-empty method.
    // A missing or null method is "" there (a null leaves a Go string unset).
    if (message.jsonrpc !== '2.0' || message.method === '' || message.method == null)
      return respond(replyId, {
        error: invalidRequest('jsonrpc must be "2.0" and method must be non-empty'),
      });
    if (typeof message.method !== 'string')
      return respond(replyId, { error: invalidRequest('method must be a non-empty string') });
    const params = message.params ?? {};
    if (typeof params !== 'object') {
      return respond(replyId, { error: invalidRequest('params must be an object') });
    }

    let outcome: { result: unknown } | { error: WireError };
    try {
      outcome = {
        result: await this.dispatch(message.method, params, lineBytes, request, message.params === undefined),
      };
    } catch (error) {
      if (rpcCodeOf(error) === undefined) {
        this.#log('error', 'request failed unexpectedly', {
          method: message.method,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        });
      }
      outcome = { error: toWireError(error) };
    }
    return hasId ? respond(replyId, outcome) : undefined;
  }

  private async dispatch(
    method: string,
    rawParams: object,
    lineBytes: number,
    { text }: { readonly text: string },
    paramsMissing: boolean,
  ): Promise<unknown> {
    // The Attest engine's words (server.go:152-160). It registers generate_user_message only with a
    // judge provider (handler.go:54-56): without one that method is not found either.
    if (
      !(METHODS as readonly string[]).includes(method) ||
      (method === 'generate_user_message' && !this.generates())
    ) {
      throw new ChecksError('method_not_found', 'method not found', [], {
        detail: `unknown method: ${method}`,
      });
    }
    this.checkState(method as Method);
    // shutdown never looks at its params (handler.go:393).
    if (method === 'shutdown') {
      this.#state = 'shut_down';
      return { sessions_completed: this.#sessions, assertions_evaluated: this.#assertionsEvaluated };
    }
    // Without params a handler there has nothing to decode (json.Unmarshal of an empty RawMessage):
    // its params error (handler.go:329, 431, 555, 639, 675, 721).
    if (paramsMissing) {
      const reason = 'unexpected end of JSON input';
      throw new ChecksError(
        PARAMS_ERROR[method as Method],
        method === 'evaluate_batch' ? `invalid ${method} params: ${reason}` : `invalid ${method} params`,
        [],
        {
          detail: `${reason}: send params${method === 'initialize' ? ', at least {"protocol_version": 1}' : ''}.`,
        },
      );
    }
    const params = checkParams(method as Method, foldParams(method as Method, rawParams));
    // Numbers are read where, and as, the Attest engine decodes them (go-decode.ts): anywhere else
    // (a member it does not have, a raw member) any number is fine.
    const reason = goDecodeNumbers(method as DecodedMethod, params, text);
    if (reason !== undefined) {
      throw new ChecksError(
        PARAMS_ERROR[method as Method],
        method === 'evaluate_batch' ? `invalid ${method} params: ${reason}` : `invalid ${method} params`,
        [],
        {
          detail: `${reason}: write a whole number within ±(2^63 − 1) without a fraction or an exponent for an int, one within a double's range for a float.`,
        },
      );
    }
    switch (method as Method) {
      case 'initialize':
        return this.initialize(params);
      case 'evaluate_batch':
        return this.evaluateBatch(params, lineBytes, text);
      case 'submit_plugin_result':
        return this.submitPluginResult(params);
      case 'validate_trace_tree':
        return validateTraceTree(params.trace, text);
      case 'query_drift':
        return this.queryDrift(params);
      case 'generate_user_message':
        return this.generateUserMessage(params);
      case 'shutdown':
        throw new Error('shutdown is answered before its params are read');
    }
  }

  private checkState(method: Method): void {
    const sessionError = (message: string, detail: string): ChecksError =>
      new ChecksError('session_error', message, [], { detail });
    if (this.#state === 'shut_down')
      throw sessionError(`${method} called after shutdown`, 'Start a new engine process.');
    // The Attest engine's words (handler.go:318-325, 394-400).
    if (method === 'initialize' && this.#state === 'ready')
      throw sessionError(
        'initialize called on already-initialized session',
        'initialize may only be called once per session',
      );
    if (method === 'shutdown' && this.#state === 'awaiting_initialize') {
      throw sessionError(
        'shutdown called on uninitialized or already-shutting-down session',
        'call initialize before shutdown',
      );
    }
    // The Attest engine's words (handler.go: each handler's first check).
    if (method !== 'initialize' && this.#state === 'awaiting_initialize') {
      throw sessionError(
        `${method} called before initialize`,
        method === 'evaluate_batch'
          ? 'call initialize first to establish a session before sending evaluate_batch requests'
          : 'call initialize first to establish a session',
      );
    }
  }

  /** generate_user_message is there only with a judge model, and not in simulation mode (which calls no model). */
  private generates(): boolean {
    return this.options.models?.judgeModel !== undefined && this.options.simulation !== true;
  }

  /** Layers 5–6 and generate_user_message (the `simulation` capability) call a model, so neither is offered in simulation mode. */
  private capabilities(): string[] {
    const models = this.options.simulation === true ? undefined : this.options.models;
    return [
      ...BASE_CAPABILITIES,
      ...(models !== undefined ? ['layers_5_6'] : []),
      ...(models?.embeddingModel !== undefined ? ['embedding'] : []),
      ...(models?.judgeModel !== undefined ? ['llm_judge', 'simulation'] : []),
    ];
  }

  /** Every field is optional, as the Attest engine reads them (handler.go:328-356); a missing version is 0. */
  private initialize(params: Params): unknown {
    const version = (params.protocol_version as number | null | undefined) ?? 0;
    const supported = `engine supports versions ${PROTOCOL_VERSION}–${PROTOCOL_VERSION}`;
    if (version > PROTOCOL_VERSION) {
      throw new ChecksError('session_error', `protocol version ${version} not supported; ${supported}`, [], {
        detail: "Upgrade the engine binary to support this SDK's protocol version",
      });
    }
    if (version < PROTOCOL_VERSION) {
      throw new ChecksError('session_error', `protocol version ${version} is too old; ${supported}`, [], {
        detail: 'Upgrade the SDK to a newer protocol version',
      });
    }
    this.#state = 'ready';
    this.#sessions++;
    const capabilities = this.capabilities();
    const required = (params.required_capabilities as string[] | null | undefined) ?? [];
    const missing = required.filter((capability) => !capabilities.includes(capability));
    this.#log('info', 'session initialized', {
      sdk_name: params.sdk_name,
      sdk_version: params.sdk_version,
      missing,
    });
    return {
      engine_version: ENGINE_VERSION,
      protocol_version: PROTOCOL_VERSION,
      capabilities,
      missing,
      compatible: missing.length === 0,
      encoding: 'json',
      max_concurrent_requests: 1,
      max_trace_size_bytes: MAX_TRACE_BYTES,
      max_steps_per_trace: MAX_STEPS_PER_TRACE,
    };
  }

  private async evaluateBatch(params: Params, lineBytes: number, text: string): Promise<unknown> {
    // As the Attest engine decodes a batch: a missing or null list is empty, a missing id or type is
    // "", a missing spec stays missing (its row is an invalid-spec hard_fail, handler.go:430).
    const assertions = ((params.assertions ?? []) as Nullable<Assertion>[]).map(
      ({ request_id: requestId, scope_id: scopeId, ...assertion }, index): Assertion => ({
        ...assertion,
        // An empty request_id is none: omitempty there (pkg/types/assertion.go:25).
        ...(requestId === undefined || requestId === null || requestId === ''
          ? {}
          : { request_id: requestId }),
        ...(scopeId === undefined || scopeId === null ? {} : { scope_id: scopeId }),
        assertion_id: assertion.assertion_id ?? '',
        type: assertion.type ?? '',
        spec: specFromLine(assertion.spec, text, index),
      }),
    );
    // Ids are bounded before the trace is read (handler.go:442, then 466). Two assertions may share
    // an id: both are evaluated and answered (handler.go:441-486).
    for (const { assertion_id: id } of assertions) {
      if (Buffer.byteLength(id) > MAX_ASSERTION_ID_BYTES) {
        throw new ChecksError(
          'assertion_error',
          `assertion_id exceeds maximum length: ${Buffer.byteLength(id)} > ${MAX_ASSERTION_ID_BYTES}`,
          [],
          // The Attest engine's words (handler.go:443-450): its len() counts bytes.
          { detail: `assertion_id must be at most ${MAX_ASSERTION_ID_BYTES} characters` },
        );
      }
    }
    const trace = traceFromJSON(params.trace, { maxPossibleBytes: lineBytes });
    // Checks read a non-string target as the request wrote it (request-text.ts).
    rememberSource(trace, text, ['params', 'trace']);
    if (this.options.contractsDir !== undefined)
      recordAssertionSpecs(this.options.contractsDir, trace.trace_id, assertions, params.context);
    const models = this.options.models;
    const calls = models?.gateway.forBatch(params.budget as BatchBudget | undefined);
    const timeoutMs = this.options.evalTimeoutMs ?? DEFAULT_EVAL_TIMEOUT_MS;
    const deadline = new AbortController();
    const timer = setTimeout(() => {
      deadline.abort();
    }, timeoutMs);
    let evaluation: Awaited<ReturnType<typeof evaluateAssertions>>;
    try {
      evaluation = await evaluateAssertions(trace, assertions, {
        ...(models === undefined || calls === undefined ? {} : { models: { ...models, calls } }),
        simulation: this.options.simulation === true,
        pluginResults: this.#plugins,
        history: this.#history,
        signal: deadline.signal,
      });
    } catch (error) {
      if (!deadline.signal.aborted) throw error;
      throw new ChecksError('timeout', `evaluation timed out after ${timeoutMs}ms`, [], {
        detail:
          'Layers 5–6 call a model and can be slow: send fewer of them per batch, or raise EVALS_ENGINE_EVAL_TIMEOUT_MS.',
        cause: error,
      });
    } finally {
      clearTimeout(timer);
    }
    // The Attest engine counts the rows its pipeline returns (handler.go IncrementAssertions): the
    // layer 5–6 rows skipped after a deterministic hard failure are not among them (pipeline.go,
    // "Gate: skip L5-6"), though seed 003 has this engine answer them as not_evaluated.
    this.#assertionsEvaluated += evaluation.results.filter(
      (result) => result.status !== 'not_evaluated' || result.reason !== 'short_circuited',
    ).length;
    for (const problem of evaluation.history_errors ?? []) {
      this.#log('warn', 'drift history unavailable: runs of this batch were not all recorded', {
        detail: problem,
      });
    }
    const softFailureBudget = this.options.sessionMaxSoftFailures;
    this.#softFailures += evaluation.results.filter((result) => result.status === 'soft_fail').length;
    return {
      // A dynamic row's drift as query_drift answers it.
      results: evaluation.results.map((row) =>
        row.drift === undefined ? row : { ...row, drift: wireDriftReport(row.drift) },
      ),
      total_cost: evaluation.total_cost,
      total_duration_ms: evaluation.total_duration_ms,
      simulated: false,
      usage: evaluation.usage satisfies ModelUsage,
      ...(softFailureBudget === undefined ? {} : { budget_exceeded: this.#softFailures > softFailureBudget }),
    };
  }

  private submitPluginResult(params: Params): unknown {
    this.#plugins.submit(
      params.trace_id as string,
      params.assertion_id as string,
      params.plugin_name as string,
      params.result as PluginResult,
    );
    return { accepted: true };
  }

  private async queryDrift(params: Params): Promise<unknown> {
    const staticThreshold = (params.static_threshold as number | null | undefined) ?? undefined;
    try {
      const report = await queryDrift(this.#history, params.assertion_id as string, staticThreshold);
      return {
        report: wireDriftReport(report),
        static_threshold: staticThreshold ?? DEFAULT_STATIC_THRESHOLD,
      };
    } catch (error) {
      throw historyError(error);
    }
  }

  private async generateUserMessage(params: Params): Promise<unknown> {
    const models = this.options.models;
    // dispatch answers -32601 without a judge model (the method is not registered there either).
    if (models?.judgeModel === undefined) throw new Error('generate_user_message without a judge model');
    if (params.fault_config !== undefined && Object.keys(params.fault_config as object).length > 0) {
      throw new ChecksError('assertion_error', 'fault_config is not supported by this engine', [], {
        detail: 'Omit fault_config; inject faults in the test harness instead.',
      });
    }
    const persona = params.persona as {
      name: string;
      system_prompt: string;
      style?: string;
      temperature?: number;
      max_tokens?: number;
    };
    const history = params.conversation_history as { role: string; content: string }[];
    const model = models.judgeModel;
    // The simulated user speaks as "assistant" to the model; the agent's turns are its "user" input.
    const messages = [
      {
        role: 'system',
        content: [
          persona.system_prompt,
          ...(persona.style === undefined ? [] : [`Style: ${persona.style}`]),
        ].join('\n'),
      },
      ...history.map((turn) => ({
        role: turn.role === 'user' ? 'assistant' : 'user',
        content: turn.content,
      })),
    ];
    const calls = models.gateway.forBatch();
    const outcome = await calls.call(
      'generate',
      model,
      (signal) =>
        models.gateway.provider.chat(
          {
            model,
            messages,
            ...(persona.temperature === undefined ? {} : { temperature: persona.temperature }),
            ...(persona.max_tokens === undefined ? {} : { maxTokens: persona.max_tokens }),
          },
          signal,
        ),
      new AbortController().signal,
    );
    if (!outcome.ok) {
      // As the Attest engine answers a failed generation (handler.go:758-765): 3001, retryable.
      throw new ChecksError('engine_error', `generate_user_message failed: ${outcome.explanation}`, [], {
        detail: `Check the provider's availability and retry (${outcome.reason}).`,
        retryable: true,
      });
    }
    return { message: outcome.value };
  }
}

/** The id a reply carries: the request's, or for an id JSON.parse changed, its token as written. */
type ReplyId = RequestId | { readonly token: string };

function respond(id: ReplyId, outcome: { result: unknown } | { error: WireError }): string {
  const idText = typeof id === 'object' && id !== null ? id.token : JSON.stringify(id);
  return `{"jsonrpc":"2.0","id":${idText},${outcomeText(outcome).slice(1)}`;
}

type ReadRequest =
  | {
      readonly message: Record<string, unknown>;
      /** The line as read, for the raw text of its values. */
      readonly text: string;
    }
  | { readonly error: WireError; readonly id: ReplyId };

/**
 * One request line read as the Attest engine reads it (request-text.ts): an object, or the -32700 /
 * -32600 error that answers it, with the line's id when it can be read.
 */
function readRequest(line: Uint8Array | string): ReadRequest {
  const read = readRequestText(line);
  if (read.ok) {
    return { message: read.value, text: read.text };
  }
  if (read.problem === 'not_object') {
    return {
      error: invalidRequest('a request is one JSON object per line (batches are not supported)'),
      id: null,
    };
  }
  const id: ReplyId =
    read.id === undefined ? null : idNeedsRawToken(read.id.value) ? { token: read.id.token } : read.id.value;
  return {
    error: toWireError(
      new ChecksError('parse_error', 'parse error', [], {
        detail: `${read.message}: send one JSON object per line.`,
      }),
    ),
    id,
  };
}

function invalidRequest(detail: string): WireError {
  return toWireError(new ChecksError('invalid_request', 'invalid request', [], { detail }));
}

/** Params with member names folded as Go matches its struct fields (request-text.ts). */
function foldParams(method: Method, params: object): object {
  switch (method) {
    case 'initialize':
    case 'query_drift':
      return foldStructKeys(params, GO_STRUCT_FIELDS[method]);
    case 'evaluate_batch': {
      const folded = foldStructKeys(params, GO_STRUCT_FIELDS.evaluate_batch) as Params;
      const { assertions, trace } = folded;
      return {
        ...folded,
        ...(trace === undefined ? {} : { trace: foldTraceKeys(trace) }),
        ...(Array.isArray(assertions)
          ? {
              // A null assertion decodes as a zero one (every field empty).
              assertions: assertions.map((item: unknown) =>
                item === null ? {} : foldStructKeys(item, GO_STRUCT_FIELDS.assertion),
              ),
            }
          : {}),
      };
    }
    case 'validate_trace_tree': {
      const folded = foldStructKeys(params, GO_STRUCT_FIELDS.validate_trace_tree) as Params;
      return folded.trace === undefined ? folded : { ...folded, trace: foldTraceKeys(folded.trace) };
    }
    case 'submit_plugin_result': {
      const folded = foldStructKeys(params, GO_STRUCT_FIELDS.submit_plugin_result) as Params;
      return folded.result === undefined
        ? folded
        : { ...folded, result: foldStructKeys(folded.result, GO_STRUCT_FIELDS.plugin_result) };
    }
    case 'generate_user_message':
    case 'shutdown':
      return params;
  }
}

/**
 * The error params that do not decode get, per method, as the Attest engine answers them (each
 * handler's json.Unmarshal failure, handler.go:329, 431, 555, 639, 675, 721).
 */
const PARAMS_ERROR: Readonly<Record<Method, ChecksErrorCode>> = {
  initialize: 'session_error',
  evaluate_batch: 'invalid_trace',
  validate_trace_tree: 'invalid_trace',
  submit_plugin_result: 'assertion_error',
  query_drift: 'assertion_error',
  generate_user_message: 'assertion_error',
  shutdown: 'invalid_params',
};

function checkParams(method: Method, params: object): Params {
  const fail = (detail: string): ChecksError => {
    const problem = `invalid ${method} params`;
    // evaluate_batch's message carries the reason too (handler.go:434).
    return new ChecksError(
      PARAMS_ERROR[method],
      method === 'evaluate_batch' ? `${problem}: ${detail}` : problem,
      [],
      {
        detail,
      },
    );
  };
  if (Array.isArray(params)) throw fail(`${method} takes named params (an object).`);
  const errors = schemaErrors(`${PROTOCOL_SCHEMA_ID}#/$defs/${method}`, params);
  if (errors.length > 0) {
    const problems = errors.map(
      (error) =>
        `${error.instancePath === '' ? 'params' : `params${error.instancePath}`} ${error.message ?? 'is invalid'}`,
    );
    throw fail(`${method}: ${problems.join('; ')}`);
  }
  return params as Params;
}

/**
 * Only the tree is checked (handler.go:687): a trace whose fields decode — whatever its trace_id,
 * output or steps — is answered with its tree's first structural error, if any, and its summary; no
 * agents are `agent_ids: null` (tree.go:65-73, a nil list). A field of the wrong type does not decode:
 * 1001, as there.
 */
function validateTraceTree(raw: unknown, text: string): unknown {
  // A null field is an unset one there too (trace.go).
  const value = isPlainObject(raw) ? withoutNullFields(raw) : (raw ?? {});
  const wrongTypes =
    typeof value !== 'object' || Array.isArray(value)
      ? ['trace must be an object']
      : schemaErrors(TRACE_SCHEMA_ID, value)
          // A "must be null" is the other branch of a null-or-object choice, not a wrong type.
          .filter((error) => error.keyword === 'type' && (error.params as { type?: unknown }).type !== 'null')
          .map((error) => `trace${error.instancePath} ${error.message ?? 'has the wrong type'}`);
  if (wrongTypes.length > 0) {
    throw new ChecksError('invalid_trace', 'invalid validate_trace_tree params', [], {
      detail: `${wrongTypes.join('; ')}: send the trace as evaluate_batch takes it.`,
    });
  }
  const trace = value as Trace;
  const [error] = traceTreeErrors(trace);
  const summary = summarizeTraceTree(trace);
  // The int sums as the Attest engine makes them (tree.go:133-150): of each node's int64 as it read
  // it, wrapping at 64 bits, and written out whole (a double cannot hold every one).
  const line = {};
  rememberSource(line, text, ['params', 'trace']);
  const goSum = (field: 'total_tokens' | 'latency_ms'): number | RawNumber => {
    let sum = 0n;
    for (const node of traceNodes(trace)) {
      const figure = node.trace.metadata?.[field];
      if (figure !== undefined) sum += goIntOf(figure, line, [...node.at, 'metadata', field]);
    }
    return replyInt(sum);
  };
  return withRawNumbers({
    valid: error === undefined,
    ...(error === undefined ? {} : { errors: [error] }),
    ...summary,
    agent_ids: summary.agent_ids.length === 0 ? null : summary.agent_ids,
    aggregate_tokens: goSum('total_tokens'),
    aggregate_latency_ms: goSum('latency_ms'),
  });
}

/** A number a reply carries as this token: an int64 beyond what a double holds exactly. */
class RawNumber {
  constructor(readonly token: string) {}
}
const HAS_RAW_NUMBERS = Symbol('has raw numbers');

/** A Go int (int64, wrapped as Go's arithmetic wraps) for a reply: a number, or its token. */
function replyInt(value: bigint): number | RawNumber {
  const wrapped = BigInt.asIntN(64, value);
  const number = Number(wrapped);
  return Number.isSafeInteger(number) ? number : new RawNumber(wrapped.toString());
}

/** The result, marked for respond when one of its members is a RawNumber. */
function withRawNumbers<T extends Record<string, unknown>>(result: T): T {
  if (Object.values(result).some((member) => member instanceof RawNumber))
    Object.defineProperty(result, HAS_RAW_NUMBERS, { value: true });
  return result;
}

/** JSON text of a reply outcome, RawNumber members written as their tokens. */
function outcomeText(outcome: { result: unknown } | { error: WireError }): string {
  const result = 'result' in outcome ? outcome.result : undefined;
  if (typeof result !== 'object' || result === null || !(HAS_RAW_NUMBERS in result))
    return JSON.stringify(outcome);
  const nonce = randomBytes(12).toString('hex');
  const tokens: string[] = [];
  const text = JSON.stringify(outcome, (_key, member: unknown) => {
    if (!(member instanceof RawNumber)) return member;
    tokens.push(member.token);
    return `${nonce}:${tokens.length - 1}`;
  });
  return text.replace(
    new RegExp(`"${nonce}:(\\d+)"`, 'g'),
    (_match, index: string) => tokens[Number(index)] ?? 'null',
  );
}

/** The file in ATTEST_CONTRACTS_DIR that evaluate_batch appends assertion specs to, one batch a line. */
export const ASSERTION_SPECS_FILE = 'assertion-specs.ndjson';

/**
 * Appends one line `{trace_id, context, assertions: [{assertion_id, type, spec}]}` (context only
 * when the batch has one). A recording that fails is an engine error (3001): specs are never lost
 * silently, and the batch is not evaluated.
 */
function recordAssertionSpecs(
  dir: string,
  traceId: string,
  assertions: readonly Assertion[],
  context: unknown,
): void {
  const record = {
    trace_id: traceId,
    ...(context === undefined ? {} : { context }),
    assertions: assertions.map(({ assertion_id, type, spec }) => ({ assertion_id, type, spec })),
  };
  try {
    appendFileSync(join(dir, ASSERTION_SPECS_FILE), `${JSON.stringify(record)}\n`);
  } catch (error) {
    throw new ChecksError('engine_error', 'assertion specs could not be recorded', [], {
      detail: `Appending to ${ASSERTION_SPECS_FILE} in ATTEST_CONTRACTS_DIR failed (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): make the folder writable, or unset ATTEST_CONTRACTS_DIR.`,
      cause: error,
    });
  }
}

/** A history store that failed is an engine error (3001); anything else is a bug (-32603). */
function historyError(error: unknown): unknown {
  if (!isChecksError(error, 'drift_history_unavailable')) return error;
  return new ChecksError('engine_error', 'drift history unavailable', [], {
    detail: error.message,
    cause: error,
  });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * An assertion's spec, remembered as read from the request line (at params.assertions[index].spec):
 * a member that does not decode is quoted as the request wrote it (spec-decode.ts).
 */
function specFromLine(spec: unknown, text: string, index: number): Assertion['spec'] {
  if (typeof spec === 'object' && spec !== null && !Array.isArray(spec))
    rememberSource(spec, text, ['params', 'assertions', index, 'spec']);
  return spec as Assertion['spec'];
}
