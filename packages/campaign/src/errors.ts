// The campaign package's one coded error: what was expected, what was received, where, for every
// problem found at once (a join that does not hold, a suite `evals run` cannot run, a shard record
// that conflicts). The CLI maps each code to its exit code.
import { CodedError } from '@paperclip-evals/contract';

export type CampaignErrorCode =
  /** The suite or the flags cannot make a plan (unknown lane or case, a case without a prompt, …): exit 2. */
  | 'paperclip_campaign_suite_invalid'
  /** The release does not join: not qualified, a digest changed, runnerd or negotiation refused: exit 3. */
  | 'paperclip_campaign_release_incompatible'
  /** A campaign or shard record is invalid, conflicts with another, or its id is reused with other content: exit 1. */
  | 'paperclip_campaign_record_conflict'
  /** A campaign or shard record file cannot be read or is not one: exit 2. */
  | 'paperclip_campaign_record_invalid';

export class CampaignError extends CodedError<CampaignErrorCode> {
  override readonly name = 'CampaignError';
}

export function isCampaignError(value: unknown): value is CampaignError {
  return value instanceof CampaignError;
}
