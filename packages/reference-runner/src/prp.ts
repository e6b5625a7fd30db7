// PRP (Paperclip Runner Protocol) v1 contracts: the event envelope and terminal record a runner
// emits, and their validators against the schemas shipped in protocol/schemas/.
import { SCHEMA_IDS, schemaViolations } from './schemas.js';

import type { SchemaViolation } from './schemas.js';

export const PRP_PROTOCOL_NAME = 'paperclip.runner';
/** The PRP version this build speaks (its range is 1..1). */
export const PRP_PROTOCOL_VERSION = 1;
export const PRP_EVENT_SCHEMA = 'paperclip.prp.event.v1';
export const PRP_TERMINAL_SCHEMA = 'paperclip.prp.terminal.v1';
export const PRP_RUN_RESULT_SCHEMA = 'paperclip.run_result.v1';

export type PrpSourceKind = 'runner' | 'control_plane';
export type PrpPriority = 0 | 1 | 2;
export type TurnTerminalState = 'completed' | 'failed' | 'interrupted' | 'cancelled';
export type RunTerminalState = 'succeeded' | 'failed' | 'cancelled';
export type ReportedWorkDisposition = 'done' | 'blocked' | 'needs_review' | 'yielded';

/** One PRP v1 event. The envelope is open: unknown additive fields are kept. */
export interface PrpEvent {
  readonly schema: typeof PRP_EVENT_SCHEMA;
  readonly sourceEventId: string;
  readonly sourceSeq: number;
  readonly sourceInstanceId: string;
  readonly sourceKind: PrpSourceKind;
  readonly runId: string;
  readonly normalizedSessionId?: string;
  readonly turnId?: string;
  readonly itemId?: string;
  readonly eventType: string;
  readonly schemaVersion: 1;
  readonly priority: PrpPriority;
  readonly emittedAt: string;
  readonly observedAt?: string;
  readonly payload: Readonly<Record<string, unknown>>;
  readonly [field: string]: unknown;
}

/** How a run ended (the payload of `run.terminal`). */
export interface PrpTerminal {
  readonly schema: typeof PRP_TERMINAL_SCHEMA;
  readonly turnTerminalState: TurnTerminalState;
  readonly runTerminalState: RunTerminalState;
  readonly reportedWorkDisposition: ReportedWorkDisposition;
  readonly workAssessmentId?: string;
  readonly statusDecisionId?: string;
  readonly [field: string]: unknown;
}

export type PrpValidationError = SchemaViolation;

export interface PrpValidationResult {
  readonly valid: boolean;
  readonly errors: readonly PrpValidationError[];
}

/** Validates one PRP v1 event (envelope and, for typed event types, payload). Never throws. */
export function validatePrpEvent(value: unknown): PrpValidationResult {
  const errors = schemaViolations(SCHEMA_IDS.prpEventV1, value);
  return { valid: errors.length === 0, errors };
}

/** Validates one PRP v1 terminal record. Never throws. */
export function validatePrpTerminal(value: unknown): PrpValidationResult {
  const errors = schemaViolations(SCHEMA_IDS.prpTerminalV1, value);
  return { valid: errors.length === 0, errors };
}

/** Validates one structured run result (the `run.result.proposed` payload). Never throws. */
export function validatePrpStructuredRunResult(value: unknown): PrpValidationResult {
  const errors = schemaViolations(SCHEMA_IDS.prpResultV1, value);
  return { valid: errors.length === 0, errors };
}
