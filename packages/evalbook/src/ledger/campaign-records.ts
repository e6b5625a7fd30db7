// Campaign records in the ledger (issues 18 and 19): the evals-campaign/v1 records `evals run` and
// `evals merge` write, kept append-only by campaign id beside the attempts it ran (runId =
// campaignId). The store holds each record's RFC 8785 canonical JSON and its sha256. One campaign id
// names one plan (the record's `planDigest`): the same content again is a no-op; another content of
// the same id and plan is appended BESIDE the earlier ones (a campaign stopped by its budget and
// resumed to completion has two records, both kept and both read back); another plan under the same
// id is refused (paperclip_evalbook_campaign_conflict) and nothing is written. Nothing is ever
// rewritten or deleted: which record is a campaign's current state is decided on reading
// (currentCampaigns: the newest by the record's own time, then by the ledger's sequence).
// The ledger knows the record only as JSON (campaign depends on evalbook, never the reverse).
import { canonicalize, sha256Digest } from '@paperclip-evals/contract';

import { EvalbookError } from '../errors.js';

import type { Issue } from '@paperclip-evals/contract';

/** What a writer records: the campaign id and the record as JSON (an object naming its planDigest). */
export interface CampaignRecordInput {
  readonly campaignId: string;
  readonly record: Readonly<Record<string, unknown>>;
}

/** A recorded campaign record as read back, in the order records were appended. */
export interface StoredCampaign {
  readonly campaignId: string;
  /** The ledger's append sequence of this record (1, 2, …: later records have larger ones). */
  readonly sequence: number;
  /** sha256 of the record's canonical JSON. */
  readonly recordDigest: string;
  readonly record: Readonly<Record<string, unknown>>;
}

/**
 * recorded: the campaign's first record, appended now · revised: appended now beside the campaign's
 * earlier record(s) of the same plan (the newest is its current state) · duplicate: the same content
 * was already there (nothing written).
 */
export type CampaignRecordOutcome = 'recorded' | 'revised' | 'duplicate';

/** The columns both stores insert, in this order (the sequence is the row id). */
export const CAMPAIGN_COLUMNS = 'campaign_id, record_digest, record_json';

export interface CampaignDbRow {
  readonly id: number | string;
  readonly campaign_id: string;
  readonly record_digest: string;
  readonly record_json: string;
}

/** A row to insert: the id, the plan it is of, the digest and the canonical text. */
export interface CampaignRow {
  readonly campaignId: string;
  readonly planDigest: string;
  readonly digest: string;
  readonly canonical: string;
}

const refused = (message: string, issues: Issue[]): EvalbookError =>
  new EvalbookError('paperclip_evalbook_campaign_conflict', message, issues);

/** The row to insert for `input`, after checking it names its id and its plan. */
export function campaignRow(input: CampaignRecordInput): CampaignRow {
  if (input.record.campaignId !== input.campaignId)
    throw refused(
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
  const planDigest = input.record.planDigest;
  if (typeof planDigest !== 'string' || planDigest === '')
    throw refused(
      `the campaign record of ${JSON.stringify(input.campaignId)} names no planDigest: a campaign id is one plan, and a record that does not say which cannot be kept beside the others`,
      [
        {
          code: 'campaign_plan_digest_missing',
          message: 'an evals-campaign/v1 record names the sha256 of its plan',
          path: '/planDigest',
          expected: 'the plan digest (text)',
          received: planDigest === undefined ? 'none' : typeof planDigest,
        },
      ],
    );
  const canonical = canonicalize(input.record);
  return { campaignId: input.campaignId, planDigest, digest: sha256Digest(canonical), canonical };
}

export function campaignFromRow(row: CampaignDbRow): StoredCampaign {
  return {
    campaignId: row.campaign_id,
    sequence: Number(row.id),
    recordDigest: row.record_digest,
    record: JSON.parse(row.record_json) as Readonly<Record<string, unknown>>,
  };
}

/** The plan digest a stored record names (every stored record names one: campaignRow checks it). */
const planOf = (record: Readonly<Record<string, unknown>>): string =>
  typeof record.planDigest === 'string' ? record.planDigest : '(none)';

/**
 * What a write of `row` comes to, given every record the store holds under its campaign id (read in
 * the write's transaction): duplicate, recorded, revised — or refused when one of them is of another
 * plan (nothing is written then).
 */
export function campaignDecision(row: CampaignRow, held: readonly StoredCampaign[]): CampaignRecordOutcome {
  if (held.some((entry) => entry.recordDigest === row.digest)) return 'duplicate';
  const other = held.find((entry) => planOf(entry.record) !== row.planDigest);
  if (other !== undefined)
    throw refused(
      `the ledger already records campaign ${JSON.stringify(row.campaignId)} for another plan: a campaign id names one campaign (nothing was written; run it again under a new --campaign id)`,
      [
        {
          code: 'campaign_id_reused',
          message: `campaign ${JSON.stringify(row.campaignId)} is recorded with plan digest ${planOf(other.record)} (record ${other.recordDigest})`,
          path: '/planDigest',
          expected: `plan digest ${planOf(other.record)} (the campaign recorded), or a new campaign id`,
          received: `plan digest ${row.planDigest}`,
        },
      ],
    );
  return held.length === 0 ? 'recorded' : 'revised';
}

/** The record's own time: when it finished (else started); '' when it names neither. */
function recordTime(record: Readonly<Record<string, unknown>>): string {
  const timing = record.timing;
  if (typeof timing !== 'object' || timing === null) return '';
  const { finishedAt, startedAt } = timing as Record<string, unknown>;
  return typeof finishedAt === 'string' ? finishedAt : typeof startedAt === 'string' ? startedAt : '';
}

/**
 * Each campaign's current record, in the order campaigns were first recorded: of its records, the
 * newest by its own time (`timing.finishedAt`, as the run that wrote it saw it — so a merge that
 * copies an older record in later does not make it current), then by the ledger's sequence. The
 * earlier records stay in the ledger (`campaigns()` reads them all); `records` says how many there are.
 */
export function currentCampaigns(
  stored: readonly StoredCampaign[],
): (StoredCampaign & { readonly records: number })[] {
  const byId = new Map<string, StoredCampaign[]>();
  for (const entry of [...stored].sort((a, b) => a.sequence - b.sequence)) {
    const list = byId.get(entry.campaignId);
    if (list === undefined) byId.set(entry.campaignId, [entry]);
    else list.push(entry);
  }
  return [...byId.values()].map((list) => {
    const newest = list.reduce((best, entry) => {
      const [a, b] = [recordTime(best.record), recordTime(entry.record)];
      return b > a || (b === a && entry.sequence > best.sequence) ? entry : best;
    });
    return { ...newest, records: list.length };
  });
}
