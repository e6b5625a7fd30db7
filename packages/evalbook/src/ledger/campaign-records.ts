// Campaign records in the ledger (issue 19): the evals-campaign/v1 record `evals run` and `evals merge`
// write, kept append-only by campaign id beside the attempts it ran (runId = campaignId). The store
// holds a record's RFC 8785 canonical JSON and its sha256: the same content again is a no-op, another
// content under the same id is refused (paperclip_evalbook_campaign_conflict) and nothing is written.
// The ledger knows the record only as JSON (campaign depends on evalbook, never the reverse).
import { canonicalize, sha256Digest } from '@paperclip-evals/contract';

import { EvalbookError } from '../errors.js';

/** What a writer records: the campaign id and the record as JSON (an object). */
export interface CampaignRecordInput {
  readonly campaignId: string;
  readonly record: Readonly<Record<string, unknown>>;
}

/** A recorded campaign as read back, in the order campaigns were recorded. */
export interface StoredCampaign {
  readonly campaignId: string;
  /** sha256 of the record's canonical JSON. */
  readonly recordDigest: string;
  readonly record: Readonly<Record<string, unknown>>;
}

/** recorded: appended now · duplicate: the same content was already there (nothing written). */
export type CampaignRecordOutcome = 'recorded' | 'duplicate';

/** The columns both stores insert and select, in this order. */
export const CAMPAIGN_COLUMNS = 'campaign_id, record_digest, record_json';

export interface CampaignDbRow {
  readonly campaign_id: string;
  readonly record_digest: string;
  readonly record_json: string;
}

/** The row to insert for `input`: the id, the digest and the canonical text. */
export function campaignRow(input: CampaignRecordInput): [string, string, string] {
  if (input.record.campaignId !== input.campaignId)
    throw new EvalbookError(
      'paperclip_evalbook_campaign_conflict',
      `the campaign record to store names campaign ${JSON.stringify(input.record.campaignId)}, not ${JSON.stringify(input.campaignId)}`,
      [
        {
          code: 'campaign_id_mismatch',
          message: 'a record is stored under the campaign id it names',
          path: '/campaignId',
          expected: input.campaignId,
          received: input.record.campaignId,
        },
      ],
    );
  const canonical = canonicalize(input.record);
  return [input.campaignId, sha256Digest(canonical), canonical];
}

export function campaignFromRow(row: CampaignDbRow): StoredCampaign {
  return {
    campaignId: row.campaign_id,
    recordDigest: row.record_digest,
    record: JSON.parse(row.record_json) as Readonly<Record<string, unknown>>,
  };
}

/** The outcome of a write whose id is now held by `held` (this write's or an earlier one). */
export function campaignOutcome(
  input: CampaignRecordInput,
  digest: string,
  held: string,
  inserted: boolean,
): CampaignRecordOutcome {
  if (held === digest) return inserted ? 'recorded' : 'duplicate';
  throw new EvalbookError(
    'paperclip_evalbook_campaign_conflict',
    `the ledger already records campaign ${JSON.stringify(input.campaignId)} with other content: a campaign id names one campaign, and its record is never replaced (nothing was written; run again under a new --campaign id)`,
    [
      {
        code: 'campaign_id_reused',
        message: `campaign ${JSON.stringify(input.campaignId)} is recorded with record digest ${held}`,
        path: '/campaignId',
        expected: `a record with digest ${held} (the one recorded), or a new campaign id`,
        received: `a record with digest ${digest}`,
      },
    ],
  );
}
