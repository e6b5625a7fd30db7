// The ledger store interface: append-only, keyed by (runId, caseId, configId, attemptId) plus the
// bundle's canonical digest. SQLite (embedded default) and PostgreSQL (shared) implement the same
// asynchronous interface, and one behaviour suite (test/ledger-store.test.ts) runs on both. The
// factory that opens one by URL is open-store.ts; the row helpers both share are store-rows.ts.
import { STORE_UNUSABLE, isEvalbookError } from '../errors.js';

import type { Issue } from '@paperclip-evals/contract';

import type { EvalbookError } from '../errors.js';
import type { CampaignRecordInput, CampaignRecordOutcome, StoredCampaign } from './campaign-records.js';
import type { AttemptKey, LedgerRecord, ScoreRow } from './convert.js';
import type { PolicyVerdict, PolicyVerdictInput, PolicyVerdictOutcome } from './policy-verdicts.js';
import type { Retraction, RetractionOutcome, RetractionRequest } from './retraction.js';
import type { CampaignTry, TryCopyOutcome, TryInterruption, TryStart } from './try-starts.js';

/** What happened to one record of a batch. */
export type InsertOutcome =
  | { readonly status: 'inserted'; readonly key: AttemptKey; readonly bundleDigest: string }
  /** Same identity, same digest: already there, skipped. */
  | { readonly status: 'duplicate'; readonly key: AttemptKey; readonly bundleDigest: string }
  /** Same identity, different digest: nothing overwritten. */
  | {
      readonly status: 'conflict';
      readonly key: AttemptKey;
      readonly bundleDigest: string;
      readonly existingDigest: string;
    };

/** An attempt heldDigests asks about. */
export interface HeldDigestQuery {
  readonly key: AttemptKey;
  readonly fileSha256: string;
}

/** A stored attempt as read back (the record as converted, without the raw bundle text). */
export interface StoredAttempt {
  readonly key: AttemptKey;
  readonly bundleDigest: string;
  readonly record: Omit<LedgerRecord, 'rawCanonical' | 'scores'>;
  readonly scores: readonly ScoreRow[];
}

/**
 * What copyIn copies (copy-in.ts has the rules): other stores' attempts, policy verdicts,
 * retractions, campaign records and campaign try starts.
 */
export interface CopyInBatch {
  readonly records: readonly LedgerRecord[];
  readonly policyVerdicts: readonly PolicyVerdictInput[];
  readonly retractions: readonly Retraction[];
  /** Appended by recordCampaign's rule, after the rest (default none). */
  readonly campaigns?: readonly CampaignRecordInput[];
  /**
   * Try starts as another store's campaignTries reads them: each start's row and its interruption's
   * (try-starts.ts tryRowsOf), appended after the rest under campaign_tries' unique key (default
   * none), so a start with no attempt stays the try's unknown spend in the target. The same row twice
   * in one batch (two shard stores) is written once; two contents under one key are a conflict.
   */
  readonly tries?: readonly CampaignTry[];
}

export type CampaignCopyOutcome =
  | { readonly status: 'inserted' | 'duplicate'; readonly campaignId: string; readonly recordDigest: string }
  /** Another plan under that campaign id there (campaign-records.ts): nothing written. */
  | {
      readonly status: 'conflict';
      readonly campaignId: string;
      readonly recordDigest: string;
      readonly issues: readonly Issue[];
    };

export type RetractionCopyOutcome =
  | { readonly status: 'inserted' | 'duplicate'; readonly retraction: Retraction }
  /** The same target retracted there with another reason, name or time: nothing overwritten. */
  | { readonly status: 'conflict'; readonly retraction: Retraction; readonly existing: Retraction }
  /** Its run (or attempt) is not in the store, even with the batch's attempts. */
  | { readonly status: 'refused'; readonly retraction: Retraction; readonly reason: string };

export interface CopyInOutcome {
  readonly attempts: readonly InsertOutcome[];
  readonly policyVerdicts: readonly PolicyVerdictOutcome[];
  readonly retractions: readonly RetractionCopyOutcome[];
  readonly campaigns: readonly CampaignCopyOutcome[];
  readonly tries: readonly TryCopyOutcome[];
}

export interface LedgerStore {
  /** `sqlite` or `postgres`. */
  readonly kind: string;
  /** Writes a batch in ONE transaction: all records' outcomes, or (on an error) nothing at all. */
  insertBatch(records: readonly LedgerRecord[]): Promise<InsertOutcome[]>;
  getAttempt(key: AttemptKey): Promise<StoredAttempt | null>;
  /**
   * For each attempt (its key, and the sha256 of the file it is being read from): the bundle digest
   * the store holds under that key when the held attempt was read from a file with that very sha256,
   * else null. One indexed lookup per attempt (one query per call on PostgreSQL). Ingest skips the
   * canonical form of what this finds: the same bytes have the same canonical digest.
   */
  heldDigests(attempts: readonly HeldDigestQuery[]): Promise<(string | null)[]>;
  /**
   * Every stored attempt with this attempt id (of any run, case and config; of `runId` only when
   * given), in insertion order: found through an index on the attempt id, never by reading the
   * ledger (what `evals report --attempt ID` needs; more than one is for the caller to refuse).
   */
  attemptsById(attemptId: string, runId?: string): Promise<StoredAttempt[]>;
  /** The raw bundle's canonical JSON text by its digest, or null. */
  getBundle(digest: string): Promise<string | null>;
  /**
   * The canonical texts of the bundles with these digests that the store holds, by digest, in ONE
   * query (a publication reads a page of 500 attempts' bundles at once, not one per attempt).
   */
  getBundles(digests: readonly string[]): Promise<Map<string, string>>;
  /**
   * How many attempts the store holds; with `runId`, of that run only, counted through the run's
   * index (what `evals publish` sizes its threads by: never a GROUP BY over every attempt).
   */
  countAttempts(runId?: string): Promise<number>;
  /**
   * Every stored attempt in insertion order, streamed one at a time. Within one batch the order is
   * the store's: SQLite keeps the batch's order, PostgreSQL writes (and so lists) it by identity.
   * With `runId`, only that run's attempts, in the same order, found through the run's index (the
   * ids of the run first, then their rows a page at a time): a publication of one campaign never
   * reads the other runs' records.
   */
  attempts(runId?: string): AsyncIterable<StoredAttempt>;
  /**
   * Writes policy verdicts in ONE transaction: each verdict's outcome (inserted, duplicate, conflict,
   * or refused when its attempt is not in the ledger with that bundle), or on an error nothing at all.
   */
  insertPolicyVerdicts(verdicts: readonly PolicyVerdictInput[]): Promise<PolicyVerdictOutcome[]>;
  /** Every stored policy verdict in insertion order (within a batch, the store's order, as for attempts), paged. */
  policyVerdicts(): AsyncIterable<PolicyVerdict>;
  /** Appends one scored run of a check (the checks engine's drift history). */
  appendDriftRun(run: DriftRunRecord): Promise<void>;
  /**
   * What a drift query needs of one check, oldest first: up to `eligible` of the newest passing or
   * soft-failing runs before the newest run, then the newest run itself (whatever its status).
   */
  driftWindow(checkId: string, eligible: number): Promise<DriftRunRecord[]>;
  /**
   * Appends the retraction of a run or of some of its attempts, in ONE transaction, after checking
   * (retraction.ts planRetraction) that they are stored: a missing run or attempt is a
   * paperclip_evalbook_retraction_refused EvalbookError and nothing is written; a target already
   * retracted is written again never.
   * The request must have passed checkRetractionRequest.
   */
  retract(request: RetractionRequest): Promise<RetractionOutcome[]>;
  /** Every retraction, in the order they were appended (a small table: read whole). */
  retractions(): Promise<Retraction[]>;
  /**
   * Copies other stores' attempts, policy verdicts, retractions, campaign records and try starts in ONE
   * transaction (copy-in.ts): each kind through its own append rule; anything held otherwise, a
   * verdict or retraction whose attempt or run is not there, or a campaign record of another plan
   * under its id, or a try row held with other content under its key, is a paperclip_evalbook_merge_conflict EvalbookError and nothing is written.
   */
  copyIn(batch: CopyInBatch): Promise<CopyInOutcome>;
  /**
   * Appends a campaign's evals-campaign/v1 record (campaign-records.ts): the same content again is a
   * no-op (`duplicate`); another content of the same campaign id and plan digest is appended beside
   * the earlier record(s) (`revised`: both kept; the newest is the campaign's current state,
   * currentCampaigns); another plan digest under the same id is a
   * paperclip_evalbook_campaign_conflict EvalbookError and nothing is written.
   */
  recordCampaign(input: CampaignRecordInput): Promise<CampaignRecordOutcome>;
  /**
   * Every campaign record, in the order they were appended, each with its sequence — a campaign's
   * earlier records too (a small table: read whole). currentCampaigns picks each campaign's current one.
   */
  campaigns(): Promise<StoredCampaign[]>;
  /**
   * Appends a try's start (try-starts.ts), committed before it returns: the campaign calls it before
   * the try's session is spawned. false: that try id of the campaign was started already (by another
   * run): nothing written, and the caller takes the next try number.
   */
  recordTryStart(start: TryStart): Promise<boolean>;
  /** Appends the campaign's word that it killed a started try (its spend stays unknown); once per try. */
  recordTryInterruption(interruption: TryInterruption): Promise<void>;
  /** Every start of a campaign's tries, in the order appended, each with whether the ledger holds its attempt. */
  campaignTries(campaignId: string): Promise<CampaignTry[]>;
  /**
   * Every try the ledger holds that a later settled try of the same planned attempt replaced (a
   * retried infrastructure failure): reports count a planned attempt by its final try alone.
   */
  retriedTries(): Promise<AttemptKey[]>;
  /**
   * Each run with its counts, in the order runs first reached the store; then each campaign whose
   * only tries are unsettled starts (0 attempts; its starts are its unpriced, spend.unsettledTries).
   */
  runs(): Promise<RunCounts[]>;
  /** Applied migration versions, ascending. */
  migrations(): Promise<number[]>;
  close(): Promise<void>;
}

/** One run as `evals runs` lists it: counted in SQL, never by reading every record. */
export interface RunCounts {
  readonly runId: string;
  readonly attempts: number;
  readonly cases: number;
  readonly configs: number;
  /**
   * Attempts by the run terminal state the runner recorded (the report's honest status needs the
   * checks and the environment: see `evals report`).
   */
  readonly terminalStates: Readonly<Record<string, number>>;
  /** Kept apart at ingest (--keep-foreign): not the environment's case or config. */
  readonly foreign: number;
  /** Covered by a retraction (foreign or not). */
  readonly retracted: number;
  /**
   * What the run's attempts cost, summed in SQL: per attempt the provider-reported figure where
   * there is one, else the estimate (what a campaign's ceiling counts); `unpriced` attempts have
   * neither (unknown, never 0). Retracted and foreign attempts are in it: money spent is spent.
   * `unpriced` also counts the run's unsettled tries (`unsettledTries`): a campaign's try whose start
   * the ledger holds and whose attempt it does not (try-starts.ts) spent an unknown amount.
   */
  readonly spend: {
    readonly observedNanodollars: number;
    readonly unpriced: number;
    readonly unsettledTries: number;
  };
  /** The run's retraction records (who, why, when), oldest first. */
  readonly retractions: readonly Retraction[];
}

/** One versioned schema change of a store. Never edit one that has shipped: add the next. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** One scored run of a check, as the checks engine's drift history keeps it. */
export interface DriftRunRecord {
  readonly checkId: string;
  readonly score: number;
  readonly status: 'pass' | 'soft_fail' | 'hard_fail';
}

/**
 * The issue code of a store EvalbookError for one write the database refused because of what it held
 * (a constraint, a value out of range, a trigger's refusal), not because the store is unusable: ingest
 * retries such a batch bundle by bundle and reports the bundle the store refuses, and goes on.
 */
export const STORE_RECORD_REFUSED = 'store_record_refused';

/** Whether `error` is a store's EvalbookError for a refused record (STORE_RECORD_REFUSED), not an unusable one. */
export function isRecordRefusal(error: unknown): error is EvalbookError {
  return (
    isEvalbookError(error, STORE_UNUSABLE) &&
    error.issues.some((issue) => issue.code === STORE_RECORD_REFUSED)
  );
}
