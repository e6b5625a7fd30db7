// A control-plane fake for tests and the deterministic runnerd: it decides governed tool effects
// from the semantic catalog (required claims, document revisions, idempotency keys), can be told
// to deny operations, and records every request and decision it made.
import { capabilitySemanticToolDescriptor } from '../semantic-catalog.js';

import type { GovernedToolDecision, GovernedToolRequest, RunnerControlPlane } from '../control-plane.js';
import type { AuthorizationBoundary } from '../semantic-tools.js';

export interface FakeControlPlaneDenyRule {
  readonly operationId: string;
  /** Default `policy_denied`. */
  readonly code?: string;
  /** Default: the boundary the catalog gives the operation. */
  readonly authorizationBoundary?: AuthorizationBoundary;
  readonly retryable?: boolean;
}

export interface FakeControlPlaneOptions {
  readonly deny?: readonly FakeControlPlaneDenyRule[];
  /** Documents by id, with their current revision. Default: `doc_brief` at revision 1. */
  readonly documents?: Readonly<Record<string, { readonly revision: number; readonly text: string }>>;
}

export interface RecordedGovernedToolDecision {
  readonly request: GovernedToolRequest;
  readonly decision: GovernedToolDecision;
}

export const FAKE_CONTROL_PLANE_DOCUMENTS = Object.freeze({
  doc_brief: Object.freeze({
    revision: 1,
    text: 'Summarise the quarterly incident review in three bullet points.',
  }),
});

export class FakeControlPlane implements RunnerControlPlane {
  readonly #deny: readonly FakeControlPlaneDenyRule[];
  readonly #documents: Map<string, { revision: number; text: string }>;
  readonly #decisions: RecordedGovernedToolDecision[] = [];
  readonly #idempotencyKeys = new Set<string>();

  constructor(options: FakeControlPlaneOptions = {}) {
    this.#deny = options.deny ?? [];
    this.#documents = new Map(
      Object.entries(options.documents ?? FAKE_CONTROL_PLANE_DOCUMENTS).map(([id, doc]) => [id, { ...doc }]),
    );
  }

  /** Every request decided so far, with its decision, in order. */
  get decisions(): readonly RecordedGovernedToolDecision[] {
    return [...this.#decisions];
  }

  decideGovernedTool(request: GovernedToolRequest): Promise<GovernedToolDecision> {
    const decision = this.#decide(request);
    this.#decisions.push({ request, decision });
    return Promise.resolve(decision);
  }

  #decide(request: GovernedToolRequest): GovernedToolDecision {
    const receipts = {
      operationReceiptId: `receipt_${request.callId}`,
      auditReceiptId: `audit_${request.callId}`,
    };
    const refuse = (
      outcome: GovernedToolDecision['outcome'],
      code: string,
      authorizationBoundary: AuthorizationBoundary,
      retryable: boolean,
    ): GovernedToolDecision => ({ outcome, code, authorizationBoundary, retryable, ...receipts });
    const operation = capabilitySemanticToolDescriptor(request.operationId);
    if (operation === undefined) return refuse('unavailable', 'operation_unknown', 'governed_action', false);
    if (this.#idempotencyKeys.has(request.idempotencyKey)) {
      return refuse('duplicate', 'idempotency_key_reused', 'governed_action', false);
    }
    this.#idempotencyKeys.add(request.idempotencyKey);
    const rule = this.#deny.find((candidate) => candidate.operationId === request.operationId);
    if (rule !== undefined) {
      return refuse(
        'denied',
        rule.code ?? 'policy_denied',
        rule.authorizationBoundary ?? operation.authorizationBoundary,
        rule.retryable ?? false,
      );
    }
    if (!operation.requiredClaims.every((claim) => request.claims.includes(claim))) {
      return refuse('denied', 'required_claim_missing', operation.authorizationBoundary, false);
    }
    const succeeded = (result: Record<string, unknown>): GovernedToolDecision => ({
      ...refuse('succeeded', 'ok', operation.authorizationBoundary, false),
      result,
    });
    const documentId = String(request.arguments.documentId);
    const document = this.#documents.get(documentId);
    switch (operation.operationId) {
      case 'read_document':
        return document === undefined
          ? refuse('failed', 'document_not_found', 'actor', false)
          : succeeded({ documentId, revision: document.revision, text: document.text });
      case 'write_document': {
        if (document === undefined) return refuse('failed', 'document_not_found', 'actor', false);
        if (request.arguments.baseRevision !== document.revision) {
          return refuse('conflict', 'revision_conflict', 'revision', true);
        }
        document.revision += 1;
        document.text = String(request.arguments.text);
        return succeeded({ documentId, revision: document.revision });
      }
      default:
        return succeeded({
          approvalId: String(request.arguments.approvalId),
          decision: String(request.arguments.decision),
        });
    }
  }
}
