// Public surface of @paperclip-evals/policy: the evaluate-protocol producer and the replay of
// attempts through it. Only what other packages import (pinned by scripts/public-surface.test.ts);
// the package's own tests import its `src/` files directly.
export { toolCallSessions } from './attempts.js';
export type { ToolCallComparison, ToolCallRef } from './attempts.js';
export { PolicyError } from './errors.js';
export type { PolicyErrorCode } from './errors.js';
// scripts/bench/policy-bench.ts measures replay against its in-process baseline: the producer's
// session, the bundle and state helpers and replaySessions itself.
export { loadBundle } from './bundle.js';
export { EvaluateSession, handshake, runEvaluate } from './producer.js';
export { replayAttempts } from './replay-attempts.js';
export type { ReplayAttemptsResult } from './replay-attempts.js';
export { replaySessions } from './replay.js';
export type { ReplaySession } from './replay.js';
export { stateToJSON, zeroedRegisters } from './state.js';
