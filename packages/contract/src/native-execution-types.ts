// Types of the paperclip-runner/native-execution/v1 bundle as the parser returns it. Every object
// keeps unknown additive fields (the index signatures), so a parse → serialise round trip loses nothing.

import type { Sha256Digest as Sha256 } from './digest.js';

export const NATIVE_EXECUTION_V1 = 'paperclip-runner/native-execution/v1';
export type Provenance = 'seeded' | 'replay' | 'live';
export type ToolOutcome = 'succeeded' | 'denied' | 'conflict' | 'duplicate' | 'unavailable' | 'failed';
export type TurnTerminalState = 'completed' | 'failed' | 'interrupted' | 'cancelled';
export type RunTerminalState = 'succeeded' | 'failed' | 'cancelled';
export type WorkDisposition = 'done' | 'blocked' | 'needs_review' | 'yielded';

interface Additive {
  readonly [field: string]: unknown;
}

export interface AttemptIdentity extends Additive {
  readonly runId: string;
  readonly caseId: string;
  readonly configId: string;
  readonly attemptId: string;
}

export interface AttemptInput extends Additive {
  readonly caseSha256: Sha256;
  readonly configSha256: Sha256;
  readonly deterministicSeed: string;
}

export interface RunnerProvenance extends Additive {
  readonly package: { readonly name: string; readonly version: string } & Additive;
  readonly binary: { readonly name: string; readonly sha256: Sha256 } & Additive;
  readonly prpVersion: number;
  readonly nativeExecutionVersion: number;
  readonly catalogVersion: number;
  readonly catalogSha256: Sha256;
  readonly driverContractVersion: number;
  readonly driverKind: string;
  readonly driverVersion: string;
}

export interface PrpEvent extends Additive {
  readonly schema: 'paperclip.prp.event.v1';
  readonly sourceEventId: string;
  readonly sourceSeq: number;
  readonly sourceInstanceId: string;
  readonly sourceKind: 'runner' | 'control_plane';
  readonly runId: string;
  readonly eventType: string;
  readonly schemaVersion: 1;
  readonly priority: 0 | 1 | 2;
  readonly emittedAt: string;
  readonly payload: Additive;
}

export interface PrpTerminal extends Additive {
  readonly schema: 'paperclip.prp.terminal.v1';
  readonly turnTerminalState: TurnTerminalState;
  readonly runTerminalState: RunTerminalState;
  readonly reportedWorkDisposition: WorkDisposition;
}

export interface SemanticToolCall extends Additive {
  readonly callId: string;
  readonly operationId: string;
  readonly eventId: string;
}

export interface SemanticToolResult extends SemanticToolCall {
  readonly outcome: ToolOutcome;
}

export interface SemanticToolDenial extends Additive {
  readonly callId: string;
  readonly code: string;
  readonly authorizationBoundary: string;
  readonly retryable: boolean;
}

export interface SemanticToolIndex extends Additive {
  readonly definitions: readonly Additive[];
  readonly calls: readonly SemanticToolCall[];
  readonly results: readonly SemanticToolResult[];
  readonly denials: readonly SemanticToolDenial[];
}

export interface BundleCost extends Additive {
  readonly currency: string;
  readonly amountMicros: number;
}

export interface BundleUsage extends Additive {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly totalTokens: number;
  readonly requestCount: number;
  readonly durationMs: number;
  /** null: the provider reported no cost. Unknown, never zero. */
  readonly cost: BundleCost | null;
  // Eval-session cost figures (optional, additive; see DESIGN "Cost units in the wild").
  readonly providerReportedCostNanodollars?: number | null;
  readonly providerReportedCostProvenance?: string;
  readonly estimatedCostNanodollars?: number | null;
  readonly pricingVersion?: string;
  readonly costCoverage?: 'provider_reported' | 'estimated' | 'unpriced' | 'legacy_ledger_and_estimate';
  readonly legacyLedgerCostNanodollars?: number | null;
}

export interface ContentRef extends Additive {
  readonly uri: string;
  readonly sha256: Sha256;
  readonly byteSize: number;
  readonly mediaType: string;
}

export interface TranscriptRef extends ContentRef {
  readonly complete: boolean;
  readonly eventCount: number;
  readonly omissionReason: string | null;
}

export interface AttemptFailure extends Additive {
  readonly classification: string;
  readonly code: string;
  readonly message: string;
}

export interface NativeExecution extends Additive {
  readonly schema: typeof NATIVE_EXECUTION_V1;
  readonly provenance: Provenance;
  readonly identity: AttemptIdentity;
  readonly input: AttemptInput;
  readonly runner: RunnerProvenance;
  readonly events: readonly PrpEvent[];
  readonly semanticTools: SemanticToolIndex;
  readonly terminal: PrpTerminal;
  readonly observations: Additive;
  readonly usage: BundleUsage;
  readonly transcript: TranscriptRef;
  readonly artifactRoot: ContentRef;
  readonly artifacts: readonly ContentRef[];
  readonly failure: AttemptFailure | null;
}
