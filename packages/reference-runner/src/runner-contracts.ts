// Runner contracts: the harness driver a runner drives (describe, validate config, open or resume a
// native session, run turns, interrupt, snapshot, cancel, close) and what a session reports.
import type { RunnerControlPlane } from './control-plane.js';
import type { PrpEvent, PrpTerminal } from './prp.js';
import type { SemanticToolDenial, SemanticToolOutcome } from './semantic-tools.js';

export const HARNESS_DRIVER_CONTRACT_VERSION = 1;

/**
 * What a native session can do, in upstream's names. A capability counts only when it is exactly
 * `true`; `unsupported` names every feature the driver refuses.
 */
export interface NativeSessionCapabilities {
  readonly resume: boolean;
  readonly typedEvents: boolean;
  readonly steering: boolean;
  readonly interruption: boolean;
  readonly structuredResult: boolean;
  readonly read?: boolean;
  readonly reconciliation?: boolean;
  readonly usage?: boolean;
  readonly dynamicTools?: boolean;
  readonly runtimeRequestResolution?: boolean;
  readonly goals?: boolean;
  readonly threadLineage?: boolean;
  readonly unsupported: readonly string[];
}

/** A capability a consumer can require: any capability but the `unsupported` list. */
export type RequiredHarnessDriverCapability = Exclude<keyof NativeSessionCapabilities, 'unsupported'>;

/** A harness driver's description of itself. */
export interface HarnessDriverDescriptor {
  readonly kind: string;
  readonly displayName: string;
  readonly version: string;
  /** `prp.v<N>`: the PRP version the driver speaks. */
  readonly protocolVersion: string;
  readonly capabilities: NativeSessionCapabilities;
}

/** Upstream's shape: `ok`, the config accepted (or null), and every issue `{path, code, message}`. */
export type HarnessConfigValidation =
  | { readonly ok: true; readonly config: unknown; readonly issues: readonly [] }
  | {
      readonly ok: false;
      readonly config: null;
      readonly issues: readonly { readonly path: string; readonly code: string; readonly message: string }[];
    };

export interface OpenNativeSessionRequest {
  readonly runId: string;
  readonly sessionId: string;
  /** Driver-specific configuration; validated with `validateConfig` first. */
  readonly config: unknown;
  /** When the session starts (RFC 3339). Drivers take time as data: they never read a clock. */
  readonly startedAt: string;
  readonly controlPlane?: RunnerControlPlane;
}

export interface ResumeNativeSessionRequest {
  readonly snapshot: NativeSessionSnapshot;
  readonly controlPlane?: RunnerControlPlane;
}

export interface TurnInput {
  readonly turnId: string;
  readonly message: string;
}

export interface TurnOutcome {
  readonly turnId: string;
  readonly state: PrpTerminal['turnTerminalState'];
}

/** Token, request and cost totals; `totalTokens` is always input + output. */
export interface NativeUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly totalTokens: number;
  readonly requestCount: number;
  readonly durationMs: number;
  /** Provider-reported cost, or null when the provider reported none (never read as zero). */
  readonly cost: { readonly currency: string; readonly amountMicros: number } | null;
}

/** How much of the session's event stream its transcript holds. */
export interface TranscriptAccounting {
  readonly complete: boolean;
  /** Events the transcript holds: the first `eventCount` events of the stream. */
  readonly eventCount: number;
  readonly omissionReason: string | null;
}

export interface SemanticToolCallRecord {
  readonly callId: string;
  readonly operationId: string;
  readonly eventId: string;
}

export interface SemanticToolResultRecord extends SemanticToolCallRecord {
  readonly outcome: SemanticToolOutcome;
  readonly code: string;
  readonly operationReceiptId: string;
}

export interface SemanticToolIndex {
  readonly calls: readonly SemanticToolCallRecord[];
  readonly results: readonly SemanticToolResultRecord[];
  readonly denials: readonly SemanticToolDenial[];
}

/** Everything needed to recover a session in a new driver process. JSON. */
export interface NativeSessionSnapshot {
  readonly schema: 'paperclip-runner/native-session-snapshot/v1';
  readonly driverKind: string;
  readonly runId: string;
  readonly sessionId: string;
  readonly config: unknown;
  readonly startedAt: string;
  /** Milliseconds of logical time since `startedAt`. */
  readonly elapsedMs: number;
  readonly lastSourceSeq: number;
  readonly eventCount: number;
  readonly turnCount: number;
  readonly prngState: readonly number[];
  readonly usage: NativeUsage;
  readonly semanticTools: SemanticToolIndex;
  readonly lastTurnState: PrpTerminal['turnTerminalState'] | null;
}

/** What a closed session leaves behind. */
export interface NativeSessionSummary {
  readonly terminal: PrpTerminal;
  readonly usage: NativeUsage;
  readonly transcript: TranscriptAccounting;
  readonly semanticTools: SemanticToolIndex;
  /** The structured result the agent proposed (`run.result.proposed` payload), if any. */
  readonly result: Readonly<Record<string, unknown>> | null;
  /** Why the run failed, when it did. */
  readonly failure: {
    readonly classification: string;
    readonly code: string;
    readonly message: string;
  } | null;
  /** Effects the session produced, by name (e.g. a written document), as JSON text or bytes. */
  readonly outputs: readonly { readonly name: string; readonly mediaType: string; readonly text: string }[];
}

/** A read of a live session. */
export interface NativeSessionView {
  readonly runId: string;
  readonly sessionId: string;
  readonly events: readonly PrpEvent[];
  readonly usage: NativeUsage;
  readonly result: Readonly<Record<string, unknown>> | null;
  readonly activeTurnId: string | null;
}

/** The semantic tool index as recorded, checked against the tool events. */
export interface SemanticToolReconciliation {
  readonly index: SemanticToolIndex;
  /** Calls or results the index holds whose event is missing or disagrees (empty when reconciled). */
  readonly mismatches: readonly string[];
}

/** A live native session. Every method appends PRP events to `events()`. */
export interface NativeSession {
  readonly runId: string;
  readonly sessionId: string;
  readonly capabilities: NativeSessionCapabilities;
  /** Events emitted through this session object, in order. */
  events(): readonly PrpEvent[];
  runTurn(input: TurnInput): Promise<TurnOutcome>;
  interrupt(turnId: string): Promise<void>;
  /** Rejects with `harness_driver_feature_unsupported` unless `capabilities.steering`. */
  steer(turnId: string, message: string): Promise<void>;
  /** Rejects with `harness_driver_feature_unsupported` unless `capabilities.runtimeRequestResolution`. */
  resolveRuntimeRequest(requestId: string, resolution: unknown): Promise<void>;
  /** What the session holds now (capability `read`): its events so far, usage and proposed result. */
  read(): NativeSessionView;
  /** The semantic tool index rebuilt from the events (capability `reconciliation`), with any mismatch. */
  reconcile(): SemanticToolReconciliation;
  snapshot(): NativeSessionSnapshot;
  cancel(reason: string): Promise<NativeSessionSummary>;
  close(): Promise<NativeSessionSummary>;
}

export interface HarnessDriver {
  descriptor(): Promise<HarnessDriverDescriptor>;
  validateConfig(config: unknown): Promise<HarnessConfigValidation>;
  openSession(request: OpenNativeSessionRequest): Promise<NativeSession>;
  resumeSession(request: ResumeNativeSessionRequest): Promise<NativeSession>;
}
