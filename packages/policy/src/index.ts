// Public surface of @paperclip-evals/policy: the evaluate-protocol producer, zone evaluator and
// consumer. Explicit named exports only.
export { FAMILIAR_VERDICTS, compareToolCall, toolCallSessions } from './attempts.js';
export type { Agreement, ToolCallComparison, ToolCallRef } from './attempts.js';
export { ARTIFACT_KINDS } from './artifacts.js';
export type { ArtifactKind } from './artifacts.js';
export { POLICY_BINARY_STAGING_DIR_PREFIX, resolvePolicyBinary } from './binary.js';
export type { PolicyBinary, ResolvePolicyBinaryOptions } from './binary.js';
export {
  ARTIFACT_VERSION_CURRENT,
  ARTIFACT_VERSION_FLOOR,
  BUNDLE_SCHEMA_ID,
  POLICY_BUNDLE_V1,
  loadBundle,
} from './bundle.js';
export type { BundleLoad, LoadedBundle, SkipReason, SkippedArtifact } from './bundle.js';
export { DEFAULT_MAX_STDERR_BYTES, DEFAULT_REPLY_TIMEOUT_MS, EvaluateClient } from './client.js';
export type {
  BundleReply,
  ClientOptions,
  ProducerCommand,
  RowReply,
  RowRequest,
  SkippedItem,
} from './client.js';
export { DECISION_V1 } from './decision.js';
export type { Decision, MatchedArtifact, Verdict } from './decision.js';
export { evaluateEvent } from './engine.js';
export type { Evaluation } from './engine.js';
export { PolicyError, isPolicyError } from './errors.js';
export type { JobFailureCode, PolicyErrorCode } from './errors.js';
export { eventFromJSON } from './event.js';
export type { PolicyEvent } from './event.js';
export { MAX_FRAME_BYTES, parseI64 } from './framing.js';
export {
  ENGINE_VERSION,
  EvaluateSession,
  PROTOCOL_VERSION,
  ROW_ERROR,
  SCHEMAS_VERSION,
  handshake,
  runEvaluate,
} from './producer.js';
export type { Handshake, RunEvaluateOptions } from './producer.js';
export { replayAttempts } from './replay-attempts.js';
export type { ReplayAttemptsOptions, ReplayAttemptsResult } from './replay-attempts.js';
export { DEFAULT_SESSIONS_PER_PROCESS, replaySessions } from './replay.js';
export type { ReplayEvent, ReplayOptions, ReplaySession, ReplaySummary } from './replay.js';
export { stateFromJSON, stateToJSON, zeroedRegisters } from './state.js';
export type { Registers, StateLayout } from './state.js';
