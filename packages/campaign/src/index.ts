// Public surface of @paperclip-evals/campaign: what the CLI's `evals run` and `evals merge` call.
// Only what other packages import (pinned by scripts/public-surface.test.ts); the package's own
// tests import its `src/` files directly.
export { CampaignError } from './errors.js';
export type { CampaignErrorCode } from './errors.js';
// scripts/bench/campaign-bench.ts plans and executes a campaign without the CLI's files.
export { parseShard, planCampaign, shardAttempts } from './plan.js';
export type { CampaignPlan, Shard } from './plan.js';
export { executeCampaign } from './execute.js';
export type { AttemptOutcome, CampaignProgress } from './execute.js';
export {
  isShardMissing,
  mergeCampaignRecords,
  readCampaignRecord,
  storeCampaignRecord,
  assertLedgerRecordable,
  assertRecordable,
  writeCampaignRecord,
} from './record.js';
export type { CampaignRecord } from './record.js';
export { planFromFiles, runCampaign } from './campaign.js';
export type { CampaignPhase } from './campaign.js';
export { mergeShardStores } from './merge-stores.js';
