// Public surface of @paperclip-evals/app: its coded error and the types the CLI names. Each
// workflow is its own subpath (`@paperclip-evals/app/policy-replay`, …) so a command loads only the
// packages its workflow joins. Only what other packages import (pinned by
// scripts/public-surface.test.ts).
export { AppError, isAppError } from './errors.js';
export type { AppErrorCode } from './errors.js';
export type {
  PolicyReplayCall,
  PolicyReplayOutcome,
  PolicyReplayRequest,
  StoredCounts,
} from './policy-replay.js';
