// Evaluating a batch of assertions against one trace: deterministic layers first (1 schema,
// 2 constraint, 3 trace / trace_tree / effect, 4 content), plugins, then the model layers (5
// embedding, 6 llm_judge) — which are reported not_evaluated / short_circuited, not omitted, once a
// deterministic assertion has hard-failed. Results come back in the order the assertions were given.
// With a drift history, every verdict is recorded there, and a dynamic assertion
// (`spec.threshold: "dynamic"`) is also held to the bar its history sets and carries its drift.
import { performance } from 'node:perf_hooks';

import { LAYER_OF, isAssertionType } from './assertion-types.js';
import { checkContent, checkConstraint, checkSchema } from './checks-values.js';
import { checkEffect, checkTrace, checkTraceTree } from './checks-structure.js';
import {
  DEFAULT_EMBEDDING_THRESHOLD,
  DEFAULT_JUDGE_THRESHOLD,
  checkEmbedding,
  checkJudge,
  readEmbeddingSpec,
  readJudgeSpec,
} from './checks-model.js';
import { DEFAULT_STATIC_THRESHOLD, driftReport } from './drift.js';
import { isChecksError } from './errors.js';
import { emptyUsage } from './model-gateway.js';
import { specDecodeError } from './spec-decode.js';
import { optionalString } from './spec-fields.js';

import type { Assertion, AssertionResult, AssertionType, Layer, Verdict } from './assertion-types.js';
import type { DriftHistory, DriftRun } from './drift.js';
import type { BatchCalls, ModelUsage } from './model-gateway.js';
import type { ConfiguredModels } from './checks-model.js';
import type { PluginResults } from './plugin-results.js';
import type { Trace } from './trace.js';

export interface ModelAccess extends ConfiguredModels {
  readonly calls: BatchCalls;
}

export interface EvaluateOptions {
  /** How to reach a model for layers 5–6; without it they are not_evaluated / provider_not_configured. */
  readonly models?: ModelAccess;
  /** Simulation mode: layers 5–6 are not_evaluated / simulation; everything else runs. */
  readonly simulation?: boolean;
  readonly pluginResults?: PluginResults;
  readonly signal?: AbortSignal;
  /**
   * Where every verdict (not not_evaluated rows) is recorded, per assertion_id, and where dynamic
   * assertions find their baseline. Without it nothing is recorded and a dynamic assertion keeps its
   * static threshold (threshold_source dynamic_unavailable).
   */
  readonly history?: DriftHistory;
}

export interface BatchEvaluation {
  readonly results: AssertionResult[];
  /** Sum of the rows' cost (model calls made for assertions). */
  readonly total_cost: number;
  /** Sum of the rows' duration_ms, not wall-clock time. */
  readonly total_duration_ms: number;
  readonly usage: ModelUsage;
  /**
   * What went wrong with the drift history during the batch (it threw ChecksError drift_history_unavailable):
   * the rows are complete regardless, but some were not recorded or fell back to static thresholds.
   */
  readonly history_errors?: readonly string[];
}

const DETERMINISTIC: Readonly<
  Record<
    Exclude<AssertionType, 'embedding' | 'llm_judge' | 'plugin'>,
    (trace: Trace, spec: Assertion['spec']) => Verdict
  >
> = {
  schema: checkSchema,
  constraint: checkConstraint,
  trace: checkTrace,
  trace_tree: checkTraceTree,
  effect: checkEffect,
  content: checkContent,
};

/** The signal of a batch without a deadline (one shared instance: creating a controller is not free). */
const NEVER_ABORTED = new AbortController().signal;

/** Evaluation order: by layer, plugins after layer 4 and before the model layers. */
const ORDER: Readonly<Record<Layer, number>> = { 1: 1, 2: 2, 3: 3, 4: 4, plugin: 4.5, 5: 5, 6: 6 };

export async function evaluateAssertions(
  trace: Trace,
  assertions: readonly Assertion[],
  options: EvaluateOptions = {},
): Promise<BatchEvaluation> {
  const signal = options.signal ?? NEVER_ABORTED;
  const ordered = assertions
    .map((assertion, position) => ({
      assertion,
      position,
      layer: isAssertionType(assertion.type) ? LAYER_OF[assertion.type] : undefined,
    }))
    .sort(
      (a, b) =>
        (a.layer === undefined ? 0 : ORDER[a.layer]) - (b.layer === undefined ? 0 : ORDER[b.layer]) ||
        a.position - b.position,
    );
  const results: AssertionResult[] = new Array<AssertionResult>(assertions.length);
  const history = new BatchHistory(options.history);
  let deterministicHardFail: string | undefined;

  for (const { assertion, position, layer } of ordered) {
    const started = performance.now();
    let verdict: Verdict;
    try {
      verdict = await evaluateOne(trace, assertion, options, signal, deterministicHardFail);
    } catch (error) {
      if (!isChecksError(error, 'spec_invalid')) throw error;
      // In the Attest engine's words where the check gives them (spec-fields.ts inGoWords), else ours.
      verdict = {
        kind: 'invalid_spec',
        explanation: error.detail !== '' ? error.detail : `invalid spec: ${error.message}`,
      };
    }
    let result = toResult(assertion, layer, verdict, Math.round(performance.now() - started));
    if (result.threshold_source !== undefined && isDynamic(assertion))
      result = await heldToHistory(assertion, result, history);
    results[position] = result;
    if (result.status === 'hard_fail' && layer !== 5 && layer !== 6 && layer !== 'plugin') {
      deterministicHardFail ??= assertion.assertion_id;
    }
  }
  // Recorded once the whole batch has its rows (a batch that fails records nothing), in request order.
  for (const { assertion_id: id, score, status } of results) {
    if (status !== 'not_evaluated') await history.record(id, { score, status });
  }
  return {
    results,
    total_cost: results.reduce((sum, result) => sum + result.cost, 0),
    total_duration_ms: results.reduce((sum, result) => sum + result.duration_ms, 0),
    usage: options.models?.calls.usage ?? emptyUsage(),
    ...(history.errors.length === 0 ? {} : { history_errors: history.errors }),
  };
}

async function evaluateOne(
  trace: Trace,
  assertion: Assertion,
  options: EvaluateOptions,
  signal: AbortSignal,
  shortCircuitedBy: string | undefined,
): Promise<Verdict> {
  const { type } = assertion;
  if (!isAssertionType(type)) {
    // The Attest engine's words (pipeline.go:85).
    return { kind: 'invalid_spec', explanation: `unknown assertion type: ${type}` };
  }
  // A batch may leave a spec out (or send one that is not an object): that row alone is invalid,
  // "invalid <type> spec" as the Attest engine's evaluators say when it does not decode.
  // Left out, it is a nil RawMessage there, which does not decode; null decodes as an empty spec.
  const given: unknown = assertion.spec;
  const sent: unknown = given === null ? {} : given;
  if (typeof sent !== 'object' || sent === null || Array.isArray(sent)) {
    const name = type === 'llm_judge' ? 'judge' : type;
    return {
      kind: 'invalid_spec',
      explanation: `invalid ${name} spec: ${sent === undefined ? 'unexpected end of JSON input' : 'spec must be an object'}`,
    };
  }
  const spec = sent as Assertion['spec'];
  // The whole spec decodes into the evaluator's struct before the check is looked at (spec-decode.ts);
  // a dynamic threshold is read as the type's default (below), not as a number that does not decode.
  const undecodable = specDecodeError(type, spec.threshold === 'dynamic' ? withoutThreshold(spec) : spec);
  if (undecodable !== undefined) return { kind: 'invalid_spec', explanation: undecodable };
  if (type === 'plugin') {
    // The Attest SDKs' builder names the plugin `plugin_id` (the name it submits results under).
    const found = options.pluginResults?.find(
      trace.trace_id,
      assertion.assertion_id,
      optionalString(spec, 'plugin_name') ?? optionalString(spec, 'plugin_id'),
    );
    if (found === undefined) {
      return {
        kind: 'not_evaluated',
        reason: 'missing_evidence',
        explanation: 'no plugin result was submitted for this trace and assertion',
      };
    }
    return {
      kind: 'checked',
      passed: found.status === 'pass',
      score: found.score,
      explanation: found.explanation,
      ...(found.status === 'soft_fail' ? { soft: true } : {}),
      judge_metadata: {
        plugin_name: found.plugin_name,
        plugin_status: found.status,
        ...(found.metadata ?? {}),
      },
    };
  }
  if (type === 'embedding' || type === 'llm_judge') {
    // A dynamic assertion's static verdict uses the type's default threshold.
    const staticSpec = isDynamic(assertion) ? { ...spec, threshold: undefined } : spec;
    // A spec no provider could make valid is invalid whether or not a model is reachable.
    if (type === 'embedding') readEmbeddingSpec(staticSpec);
    else readJudgeSpec(staticSpec);
    if (shortCircuitedBy !== undefined) {
      return {
        kind: 'not_evaluated',
        reason: 'short_circuited',
        explanation: `skipped: deterministic assertion ${JSON.stringify(shortCircuitedBy)} hard-failed`,
      };
    }
    if (options.simulation === true) {
      return {
        kind: 'not_evaluated',
        reason: 'simulation',
        explanation: 'simulation mode (ATTEST_SIMULATION=1): no model is called',
      };
    }
    if (options.models === undefined) {
      return {
        kind: 'not_evaluated',
        reason: 'provider_not_configured',
        explanation: 'no model provider is configured',
      };
    }
    return type === 'embedding'
      ? checkEmbedding(trace, staticSpec, options.models.calls, options.models, signal)
      : checkJudge(trace, staticSpec, options.models.calls, options.models, signal);
  }
  return DETERMINISTIC[type](trace, spec);
}

/**
 * The verdict row. Built by assignment in a fixed key order rather than by conditional spreads: this
 * runs for every assertion of every batch, and spreads of spreads cost microseconds each.
 */
function toResult(
  assertion: Assertion,
  layer: Layer | undefined,
  verdict: Verdict,
  durationMs: number,
): AssertionResult {
  const row: { -readonly [K in keyof AssertionResult]: AssertionResult[K] } = {
    assertion_id: assertion.assertion_id,
    type: assertion.type,
    status: 'hard_fail',
    score: 0,
    explanation: verdict.explanation,
    cost: 0,
    duration_ms: durationMs,
  };
  if (layer !== undefined) row.layer = layer;
  if (assertion.request_id !== undefined) row.request_id = assertion.request_id;
  if (assertion.scope_id !== undefined) row.scope_id = assertion.scope_id;
  switch (verdict.kind) {
    case 'invalid_spec':
      row.failure_class = isAssertionType(assertion.type) ? 'invalid_spec' : 'unknown_assertion_type';
      return row;
    case 'not_evaluated':
      row.status = 'not_evaluated';
      row.reason = verdict.reason;
      row.cost = verdict.cost ?? 0;
      return row;
    case 'checked': {
      const soft = verdict.hard !== true && (assertion.spec.soft === true || verdict.soft === true);
      row.status = verdict.passed ? 'pass' : soft ? 'soft_fail' : 'hard_fail';
      row.score = verdict.score ?? (verdict.passed ? 1 : 0);
      row.cost = verdict.cost ?? 0;
      row.threshold_source = 'static';
      if (verdict.expected !== undefined) row.expected = verdict.expected;
      if (verdict.actual !== undefined) row.actual = verdict.actual;
      if (verdict.judge_metadata !== undefined) row.judge_metadata = verdict.judge_metadata;
      return row;
    }
  }
}

/** A dynamic assertion: its status is also held to the bar its own run history sets. */
function isDynamic(assertion: Assertion): boolean {
  return assertion.spec.threshold === 'dynamic';
}

/** The threshold a dynamic assertion's bar never drops below: its type's default static one. */
function staticThresholdOf(type: string): number {
  if (type === 'embedding') return DEFAULT_EMBEDDING_THRESHOLD;
  if (type === 'llm_judge') return DEFAULT_JUDGE_THRESHOLD;
  return DEFAULT_STATIC_THRESHOLD;
}

/**
 * A dynamic assertion's verdict against its history: the drift report of its runs with this one
 * appended (query_drift's algorithm, with the type's static threshold). With an active baseline a
 * score below the bar fails (soft when the assertion is soft); the bar only ever tightens the
 * static verdict, never turns a failure into a pass. With too short a baseline the static verdict
 * stands (threshold_source static); with an unreadable history too (dynamic_unavailable).
 */
async function heldToHistory(
  assertion: Assertion,
  result: AssertionResult,
  history: BatchHistory,
): Promise<AssertionResult> {
  const runs = await history.runs(result.assertion_id);
  if (runs === undefined) {
    return {
      ...result,
      threshold_source: 'dynamic_unavailable',
      explanation: `[dynamic_unavailable: ${history.problem}] ${result.explanation}`,
    };
  }
  const drift = driftReport(
    result.assertion_id,
    [...runs, { score: result.score, status: result.status as DriftRun['status'] }],
    staticThresholdOf(result.type),
  );
  if (!drift.baseline_active) return { ...result, threshold_source: 'static', drift };
  if (result.status !== 'pass' || drift.status === 'ok')
    return { ...result, threshold_source: 'dynamic', drift };
  return {
    ...result,
    status: assertion.spec.soft === true ? 'soft_fail' : 'hard_fail',
    threshold_source: 'dynamic',
    drift,
    explanation: `${result.explanation}; but score ${result.score} is below the dynamic bar ${rounded(drift.bar)} (baseline of ${drift.count} runs: mean ${rounded(drift.mean)}, stddev ${rounded(drift.stddev)})`,
  };
}

const rounded = (value: number | null): string =>
  value === null ? 'none' : String(Math.round(value * 1e4) / 1e4);

/**
 * One batch's use of the drift history. Once the history has failed (drift_history_unavailable),
 * the rest of the batch neither waits on it again nor records: its rows are answered regardless.
 */
class BatchHistory {
  readonly errors: string[] = [];
  #problem: string | undefined;

  constructor(private readonly history: DriftHistory | undefined) {
    if (history === undefined) this.#problem = 'no drift history is configured';
  }

  /** Why the history cannot be used, once it cannot. */
  get problem(): string | undefined {
    return this.#problem;
  }

  /** The assertion's runs, or undefined when the history is unavailable. */
  async runs(assertionId: string): Promise<DriftRun[] | undefined> {
    if (this.history === undefined || this.#problem !== undefined) return undefined;
    try {
      return await this.history.runs(assertionId);
    } catch (error) {
      this.#unavailable(error);
      return undefined;
    }
  }

  async record(assertionId: string, run: DriftRun): Promise<void> {
    if (this.history === undefined || this.#problem !== undefined) return;
    try {
      await this.history.append(assertionId, run);
    } catch (error) {
      this.#unavailable(error);
    }
  }

  #unavailable(error: unknown): void {
    // Anything else is a bug, answered -32603 by the server.
    if (!isChecksError(error, 'drift_history_unavailable')) throw error;
    this.#problem = error.message;
    this.errors.push(error.message);
  }
}

/** The spec without its `threshold` member (a dynamic one, which is no number). */
function withoutThreshold(spec: Assertion['spec']): Assertion['spec'] {
  const { threshold: _dynamic, ...rest } = spec;
  return rest;
}
