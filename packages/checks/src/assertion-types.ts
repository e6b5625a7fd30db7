// The assertion vocabulary on the wire: what a caller asks for, and the verdict row it gets back.
import type { DriftReport } from './drift.js';

export type AssertionType =
  | 'schema'
  | 'constraint'
  | 'trace'
  | 'trace_tree'
  | 'effect'
  | 'content'
  | 'embedding'
  | 'llm_judge'
  | 'plugin';

/** Layers run in this order; 5 and 6 call a model provider; plugins are computed by the caller. */
export type Layer = 1 | 2 | 3 | 4 | 5 | 6 | 'plugin';

export const LAYER_OF: Readonly<Record<AssertionType, Layer>> = {
  schema: 1,
  constraint: 2,
  trace: 3,
  trace_tree: 3,
  effect: 3,
  content: 4,
  embedding: 5,
  llm_judge: 6,
  plugin: 'plugin',
};

export function isAssertionType(type: string): type is AssertionType {
  return Object.hasOwn(LAYER_OF, type);
}

export interface Assertion {
  readonly assertion_id: string;
  /** An AssertionType; anything else is answered with a hard_fail row, not dropped. */
  readonly type: string;
  readonly spec: Readonly<Record<string, unknown>>;
  readonly request_id?: string;
  readonly scope_id?: string;
}

export type AssertionStatus = 'pass' | 'hard_fail' | 'soft_fail' | 'not_evaluated';

/** Why no verdict was produced. A not_evaluated row is never a pass and never a model failure. */
export type NotEvaluatedReason =
  | 'provider_not_configured'
  | 'provider_unavailable'
  | 'provider_auth'
  | 'judge_malformed'
  | 'judge_abstained'
  | 'simulation'
  | 'missing_evidence'
  | 'short_circuited'
  | 'budget_exhausted';

/**
 * How a verdict's status was decided: by the assertion's own threshold (static), against the
 * assertion's run history (dynamic), or by its own threshold because the history could not be read
 * (dynamic_unavailable).
 */
export type ThresholdSource = 'static' | 'dynamic' | 'dynamic_unavailable';

export interface AssertionResult {
  readonly assertion_id: string;
  readonly status: AssertionStatus;
  /** In [0, 1]. For not_evaluated it is 0 and means nothing (not a failure score). */
  readonly score: number;
  readonly explanation: string;
  /** USD of model calls made for this assertion (0 when none, or when the model is unpriced). */
  readonly cost: number;
  readonly duration_ms: number;
  readonly type: string;
  readonly layer?: Layer;
  readonly reason?: NotEvaluatedReason;
  /** Why a hard_fail is not about the agent: `invalid_spec`, `unknown_assertion_type`. */
  readonly failure_class?: string;
  readonly expected?: unknown;
  readonly actual?: unknown;
  readonly request_id?: string;
  readonly scope_id?: string;
  readonly judge_metadata?: Readonly<Record<string, unknown>>;
  /** On every row of a check that ran; absent on not_evaluated rows and spec errors. */
  readonly threshold_source?: ThresholdSource;
  /** A dynamic assertion's drift report, this run included (query_drift's, with the type's static threshold). */
  readonly drift?: DriftReport;
}

/** What one check concluded, before soft/hard and timing are applied. */
export type Verdict =
  | {
      readonly kind: 'checked';
      readonly passed: boolean;
      /** A failure is a soft_fail even without spec.soft (a plugin that reported soft_fail). */
      readonly soft?: boolean;
      /**
       * A failure is a hard_fail whatever spec.soft says, as in the peer engine: a missing target or
       * field, a schema mismatch, a forbidden term.
       */
      readonly hard?: boolean;
      readonly score?: number;
      readonly explanation: string;
      readonly expected?: unknown;
      readonly actual?: unknown;
      readonly cost?: number;
      readonly judge_metadata?: Readonly<Record<string, unknown>>;
    }
  | { readonly kind: 'invalid_spec'; readonly explanation: string }
  | {
      readonly kind: 'not_evaluated';
      readonly reason: NotEvaluatedReason;
      readonly explanation: string;
      readonly cost?: number;
    };
