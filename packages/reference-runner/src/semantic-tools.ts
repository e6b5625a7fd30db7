// Semantic tool contracts: the provider-neutral envelope a runner records for each governed tool
// call (input, result, reconciled), the outcomes a governed effect can have, and the denial receipt.
export const SEMANTIC_TOOL_ENVELOPE_SCHEMA = 'paperclip.prp.semantic_tool.v1';

/** How a governed effect ended. A `denied` result always has a denial receipt. */
export const SEMANTIC_TOOL_OUTCOMES = [
  'succeeded',
  'denied',
  'conflict',
  'duplicate',
  'unavailable',
  'failed',
] as const;

export type SemanticToolOutcome = (typeof SEMANTIC_TOOL_OUTCOMES)[number];

export const AUTHORIZATION_BOUNDARIES = [
  'company',
  'actor',
  'active_task',
  'grant',
  'governed_action',
  'lock',
  'revision',
] as const;

export type AuthorizationBoundary = (typeof AUTHORIZATION_BOUNDARIES)[number];
export type SemanticToolPhase = 'input' | 'result' | 'reconciled';

export interface SemanticToolCorrelation {
  readonly runId: string;
  readonly normalizedSessionId: string;
  readonly turnId: string;
  readonly itemId: string;
  readonly requestId?: string;
}

export interface SemanticToolReference {
  readonly kind: string;
  readonly id: string;
}

/** The call's content, carried only as a digest plus the references that survived redaction. */
export interface SemanticToolContent {
  readonly digest: string;
  readonly redactionDisposition: 'digest_only' | 'allowlisted_references' | 'redacted';
  readonly references: readonly SemanticToolReference[];
}

interface SemanticToolEnvelopeBase {
  readonly schema: typeof SEMANTIC_TOOL_ENVELOPE_SCHEMA;
  readonly schemaVersion: 1;
  readonly operationId: string;
  readonly callId: string;
  readonly correlation: SemanticToolCorrelation;
  readonly idempotencyKey: string | null;
  readonly content: SemanticToolContent;
  readonly [field: string]: unknown;
}

export interface SemanticToolInputEnvelope extends SemanticToolEnvelopeBase {
  readonly phase: 'input';
}

export interface SemanticToolResultEnvelope extends SemanticToolEnvelopeBase {
  readonly phase: 'result' | 'reconciled';
  readonly outcome: SemanticToolOutcome;
  readonly code: string;
  readonly retryable: boolean;
  readonly authorizationBoundary: AuthorizationBoundary;
  readonly operationReceiptId: string;
  readonly auditReceiptId?: string;
}

export type SemanticToolEnvelope = SemanticToolInputEnvelope | SemanticToolResultEnvelope;

/** The receipt a denied governed effect leaves: which call, why, at which boundary. */
export interface SemanticToolDenial {
  readonly callId: string;
  readonly code: string;
  readonly authorizationBoundary: AuthorizationBoundary;
  readonly retryable: boolean;
}

export function isSemanticToolOutcome(value: unknown): value is SemanticToolOutcome {
  return typeof value === 'string' && (SEMANTIC_TOOL_OUTCOMES as readonly string[]).includes(value);
}
