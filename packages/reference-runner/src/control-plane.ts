// Control-plane contracts: what a runner asks the Paperclip control plane before a governed tool
// effect happens, and the decision it gets back. The runner records both as semantic tool events.
import type { AuthorizationBoundary, SemanticToolOutcome } from './semantic-tools.js';

/** One governed tool effect, as the runner asks for it. */
export interface GovernedToolRequest {
  readonly runId: string;
  readonly sessionId: string;
  readonly turnId: string;
  readonly callId: string;
  readonly operationId: string;
  readonly idempotencyKey: string;
  /** The claims the caller holds (e.g. `approver`); the control plane decides which it requires. */
  readonly claims: readonly string[];
  /** The call's arguments (JSON). */
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** The control plane's decision on one governed effect. */
export interface GovernedToolDecision {
  readonly outcome: SemanticToolOutcome;
  /** Machine-readable reason: lowercase, e.g. `ok`, `required_claim_missing`, `revision_conflict`. */
  readonly code: string;
  readonly retryable: boolean;
  readonly authorizationBoundary: AuthorizationBoundary;
  readonly operationReceiptId: string;
  readonly auditReceiptId: string;
  /** What the effect returned, when it succeeded (JSON). */
  readonly result?: Readonly<Record<string, unknown>>;
}

/** The control plane as a runner sees it: one decision per governed effect. */
export interface RunnerControlPlane {
  decideGovernedTool(request: GovernedToolRequest): Promise<GovernedToolDecision>;
}
