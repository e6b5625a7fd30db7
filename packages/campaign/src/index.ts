// Public surface of @paperclip-evals/campaign: explicit named exports only.
export { CampaignError, isCampaignError } from './errors.js';
export type { CampaignErrorCode } from './errors.js';
export {
  CAMPAIGN_ID_PATTERN,
  DEFAULT_ATTEMPTS,
  DEFAULT_INFRASTRUCTURE_RETRIES,
  MAX_INFRASTRUCTURE_RETRIES,
  parseShard,
  planCampaign,
  planDigest,
  plannedAttemptId,
  shardAttempts,
  shardOf,
  tryAttemptId,
  usdToNanodollars,
} from './plan.js';
export type {
  AttemptLimits,
  CampaignPlan,
  CampaignSettings,
  Lane,
  PlanOptions,
  PlannedAttempt,
  Shard,
} from './plan.js';
export { joinRelease } from './join.js';
export type { Join, JoinOptions } from './join.js';
export {
  EVAL_SESSION_REQUEST_V1,
  evalSessionRequest,
  executeCampaign,
  sessionTimeoutMs,
  stopReasonText,
} from './execute.js';
export type {
  AttemptOutcome,
  CampaignProgress,
  Disposition,
  ExecuteOptions,
  ExecuteResult,
  JoinedRelease,
  StopReason,
  TryOutcome,
} from './execute.js';
export {
  CAMPAIGN_FAILURE_CLASSES,
  EVAL_SESSION_ARTIFACT_V1,
  EVAL_SESSION_EXIT,
  costOfUsage,
  readTry,
} from './try-outcome.js';
export type { InfrastructureFailure, TryCost, TryReading } from './try-outcome.js';
export {
  CAMPAIGN_RECORD_V1,
  CAMPAIGN_RECORD_V1_SCHEMA_ID,
  assertRecordable,
  campaignIdentity,
  campaignRecord,
  campaignRecordIssues,
  mergeCampaignRecords,
  readCampaignRecord,
  writeCampaignRecord,
} from './record.js';
export type {
  CampaignCost,
  CampaignIdentity,
  CampaignRecord,
  CampaignTotals,
  PartialReason,
} from './record.js';
export { planFromFiles, runCampaign } from './campaign.js';
export type { RunCampaignOptions } from './campaign.js';
export { EVAL_SESSION_BIN, evalSessionProgram } from './eval-session-bin.js';
export type { EvalSessionBinOptions, EvalSessionProgram } from './eval-session-bin.js';
