// Public surface of @paperclip-evals/checks: the checks engine — trace model, layered assertions,
// drift, model providers, and the JSON-RPC 2.0 NDJSON stdio server and client. Named exports only.
export { LAYER_OF, isAssertionType } from './assertion-types.js';
export type {
  Assertion,
  AssertionResult,
  AssertionStatus,
  AssertionType,
  Layer,
  NotEvaluatedReason,
  ThresholdSource,
} from './assertion-types.js';
export { MAX_REGEX_INPUT_CHARS, MAX_REGEX_PATTERN_BYTES } from './checks-values.js';
export { REGEX_TIME_LIMIT_MS } from './regex-guard.js';
export { DEFAULT_EMBEDDING_THRESHOLD, DEFAULT_JUDGE_THRESHOLD, parseJudgeReply } from './checks-model.js';
export { DEFAULT_REQUEST_TIMEOUT_MS, EngineClient } from './client.js';
export type {
  EngineClientOptions,
  EvaluateBatchParams,
  EvaluateBatchReply,
  InitializeParams,
} from './client.js';
export {
  DEFAULT_STATIC_THRESHOLD,
  DRIFT_MIN_BASELINE_RUNS,
  DRIFT_MIN_STDDEV,
  DRIFT_WINDOW_RUNS,
  DriftHistoryUnavailableError,
  InMemoryDriftHistory,
  driftReport,
  queryDrift,
} from './drift.js';
export type { DriftHistory, DriftReport, DriftRun } from './drift.js';
export {
  ASSERTION_SPECS_FILE,
  DEFAULT_EVAL_TIMEOUT_MS,
  ENGINE_VERSION,
  EngineServer,
  MAX_REQUEST_LINE_BYTES,
  PROTOCOL_VERSION,
} from './engine-server.js';
export type { EngineServerOptions, Log, LogLevel } from './engine-server.js';
export { EngineClientError, RPC_ERROR, RpcError, toWireError } from './errors.js';
export type { EngineClientFailure, RpcErrorCode, RpcErrorData, WireError } from './errors.js';
export { evaluateAssertions } from './evaluate.js';
export type { BatchEvaluation, EvaluateOptions, ModelAccess } from './evaluate.js';
export { BatchCalls, ModelGateway, emptyUsage, priceOf } from './model-gateway.js';
export type { BatchBudget, CallOutcome, ModelUsage } from './model-gateway.js';
export { toTrace } from './native-trace.js';
export { PluginResults } from './plugin-results.js';
export type { PluginResult } from './plugin-results.js';
export {
  DEFAULT_PROVIDER_MAX_RETRIES,
  DEFAULT_PROVIDER_RETRY_DELAY_MS,
  DEFAULT_PROVIDER_TIMEOUT_MS,
  OpenAiCompatibleProvider,
  ATTEST_DEFAULT_EMBEDDING_MODEL,
  ATTEST_DEFAULT_JUDGE_MODEL,
  ATTEST_PROVIDER_ENV,
  OPENAI_BASE_URL,
  PROVIDER_ENV,
  ProviderCallError,
  ProviderConfigError,
  providerConfigFromEnv,
  sessionBudgetFromEnv,
} from './provider.js';
export type {
  ChatMessage,
  ChatRequest,
  ModelPrice,
  ModelProvider,
  ProviderConfig,
  ProviderReply,
  SessionBudget,
  TokenUsage,
} from './provider.js';
export { SHUTDOWN_GRACE_MS, serveStdio } from './stdio-server.js';
export type { ServeStdioOptions } from './stdio-server.js';
export {
  MAX_STEPS_PER_TRACE,
  MAX_TRACE_BYTES,
  MAX_TRACE_DEPTH,
  TRACE_SCHEMA_ID,
  summarizeTraceTree,
  traceFromJSON,
  findAgent,
  stepsOfAgent,
  traceNodes,
  traceTreeErrors,
} from './trace.js';
export type { Step, StepType, Trace, TraceMetadata, TraceTreeSummary, WorldEffect } from './trace.js';
export { TracePathError, formatTracePath, parseTracePath, resolveTracePath } from './trace-path.js';
export type { PathLookup, PathSegment } from './trace-path.js';
export {
  EVAL_TIMEOUT_ENV,
  LOG_LEVELS,
  ATTEST_BUDGET_MAX_COST_ENV,
  CONTRACTS_DIR_ENV,
  JUDGE_META_EVAL_ENV,
  SESSION_MAX_SOFT_FAILURES_ENV,
  SIMULATION_ENV,
  engineOptionsFromEnv,
  jsonLogger,
} from './engine-config.js';
