// The semantic tool catalog (upstream's name: CAPABILITY_SEMANTIC_TOOL_CATALOG): the governed
// operations this runner's drivers may call, its canonical text (RFC 8785, which for this catalog
// is upstream's sorted-key JSON) and the catalog's digest over that text, which Evals recomputes.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

import type { AuthorizationBoundary } from './semantic-tools.js';

export const SEMANTIC_CATALOG_SCHEMA = 'paperclip-runner/semantic-catalog/v1';

export interface SemanticCatalogOperation {
  readonly operationId: string;
  readonly schemaVersion: number;
  readonly effect: 'read' | 'write' | 'decision';
  /** The boundary that decides the effect. */
  readonly authorizationBoundary: AuthorizationBoundary;
  /** Claims the caller must hold, or the effect is denied with `required_claim_missing`. */
  readonly requiredClaims: readonly string[];
  readonly idempotent: boolean;
  readonly description: string;
}

export interface SemanticCatalog {
  readonly schema: typeof SEMANTIC_CATALOG_SCHEMA;
  readonly version: number;
  readonly operations: readonly SemanticCatalogOperation[];
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

export const CAPABILITY_SEMANTIC_TOOL_CATALOG: SemanticCatalog = deepFreeze({
  schema: SEMANTIC_CATALOG_SCHEMA,
  version: 1,
  operations: [
    {
      operationId: 'decide_approval',
      schemaVersion: 1,
      effect: 'decision',
      authorizationBoundary: 'grant',
      requiredClaims: ['approver'],
      idempotent: true,
      description: 'Record a decision on an immutable approval request.',
    },
    {
      operationId: 'read_document',
      schemaVersion: 1,
      effect: 'read',
      authorizationBoundary: 'actor',
      requiredClaims: [],
      idempotent: true,
      description: 'Read the current revision of a document.',
    },
    {
      operationId: 'write_document',
      schemaVersion: 1,
      effect: 'write',
      authorizationBoundary: 'revision',
      requiredClaims: [],
      idempotent: true,
      description: 'Write a new document revision on top of the base revision the caller read.',
    },
  ],
});

/** `sha256:` + hex of sha256 over the RFC 8785 canonical form of `value`. */
export function canonicalSha256(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('canonicalSha256: the value has no JSON form');
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}

/** The catalog's contract version (the build metadata's semanticCatalog.version). */
export const SEMANTIC_CATALOG_VERSION: number = CAPABILITY_SEMANTIC_TOOL_CATALOG.version;

/** The catalog's canonical text: what its digest is taken over. */
export function canonicalCapabilitySemanticCatalog(): string {
  const text = canonicalize(CAPABILITY_SEMANTIC_TOOL_CATALOG);
  if (text === undefined) throw new TypeError('the semantic catalog has no JSON form');
  return text;
}

export const PAPERCLIP_RUNNER_SEMANTIC_CATALOG_SHA256: string = `sha256:${createHash('sha256')
  .update(canonicalCapabilitySemanticCatalog(), 'utf8')
  .digest('hex')}`;

/** One operation's descriptor, or undefined when the catalog has none by that id. */
export function capabilitySemanticToolDescriptor(operationId: string): SemanticCatalogOperation | undefined {
  return CAPABILITY_SEMANTIC_TOOL_CATALOG.operations.find(
    (operation) => operation.operationId === operationId,
  );
}
