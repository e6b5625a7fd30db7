// Public surface of @paperclip-evals/app: its coded error and the types of its workflows, explicit
// named exports only. Each workflow is its own subpath (`@paperclip-evals/app/policy-replay`, …) so
// a command loads only the packages its workflow joins.
export { AppError, isAppError } from './errors.js';
export type { AppErrorCode } from './errors.js';
export type {
  PolicyReplayCall,
  PolicyReplayOutcome,
  PolicyReplayRequest,
  StoredCounts,
} from './policy-replay.js';
export type { QualifyOutcome, QualifyRequest } from './qualify.js';
export type { IngestRequest } from './ingest.js';
export type {
  CompareOutcome,
  CompareRequest,
  EvalbookRequest,
  OpenedEvalbook,
  ReportRequest,
} from './evalbook.js';
export type { EngineHistory } from './engine-history.js';
