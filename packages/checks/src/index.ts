// Public surface of @paperclip-evals/checks: the checks engine — trace model, layered assertions,
// drift, and the JSON-RPC 2.0 NDJSON stdio server. Only what other packages import (pinned by
// scripts/public-surface.test.ts); the package's own tests import its `src/` files directly.
export { LAYER_OF, isAssertionType } from './assertion-types.js';
export type { Assertion, AssertionResult, Layer } from './assertion-types.js';
export { DEFAULT_STATIC_THRESHOLD, DRIFT_MIN_STDDEV, DRIFT_WINDOW_RUNS, driftReport } from './drift.js';
export type { DriftHistory } from './drift.js';
export { ChecksError } from './errors.js';
export type { ChecksErrorCode } from './errors.js';
export { EngineServer } from './engine-server.js';
export type { EngineServerOptions, LogLevel } from './engine-server.js';
export { evaluateAssertions } from './evaluate.js';
export type { ModelUsage } from './model-gateway.js';
export { toTrace } from './native-trace.js';
export { serveStdio } from './stdio-server.js';
export type { Trace } from './trace.js';
export { LOG_LEVELS, engineOptionsFromEnv, jsonLogger } from './engine-config.js';
