// Write-ahead try starts (campaigns): before a try's eval-session is spawned, the campaign appends a
// `started` row naming the try (campaign, case, config, planned attempt, try number and id, when, and
// who runs it), committed before the child exists. A try is *settled* once the ledger holds its
// attempt (run id = campaign id, attempt id = the try id): its spend is then what that attempt
// records. A start with no attempt is a try whose spend is unknown — a run SIGKILLed or a machine
// that died mid-session, a session the campaign killed itself (an `interrupted` row says so, and why,
// but its spend stays unknown), or another shard's try still running on a shared PostgreSQL ledger —
// and it is counted like an unpriced try, forever (the ledger is append-only: nothing is updated or
// deleted; a rerun runs the attempt again under a new try id). Both stores keep the rows in one table,
// `campaign_tries` (SQLite migration 11, PostgreSQL migration 12), and answer the same two reads;
// `evals merge --from-store` copies a shard's rows into the target by one rule (tryCopyOutcome).

import type { AttemptKey } from './convert.js';

/** The release and process that start a try's session (what the start row names as the runner). */
export interface TryRunner {
  readonly packageName: string;
  readonly packageVersion: string;
  readonly runnerdSha256: string;
  /** The machine and process of the campaign that started the session (where to look for it). */
  readonly host: string;
  readonly pid: number;
}

/** Which try of which planned attempt: what a start and an interruption both name. */
export interface TryIdentity {
  readonly campaignId: string;
  readonly caseId: string;
  /** The lane's config id (the attempt key's config). */
  readonly configId: string;
  /** The planned attempt's id (its first try's id). */
  readonly attemptId: string;
  /** 1, 2, …: the try's number; its id is the attempt id for 1, else `<attemptId>-r<n-1>`. */
  readonly tryNumber: number;
  readonly tryId: string;
}

/** One try of a planned attempt, as its start row names it. */
export interface TryStart extends TryIdentity {
  /** ISO 8601 UTC, when the start was appended (just before the session was spawned). */
  readonly startedAt: string;
  readonly runner: TryRunner;
}

/** The campaign's own word that it killed a try's session (eval_session_interrupted): spend unknown. */
export interface TryInterruption extends TryIdentity {
  /** ISO 8601 UTC. */
  readonly at: string;
  /** How it ended (interruptionOf's text). */
  readonly reason: string;
}

/** A start as read back, with what became of the try in the ledger. */
export interface CampaignTry extends TryStart {
  /** The ledger holds the try's attempt: its spend is that attempt's. Otherwise it is unknown. */
  readonly settled: boolean;
  /** The campaign killed the session itself (its spend is unknown all the same), else null. */
  readonly interruption: { readonly at: string; readonly reason: string } | null;
}

/** The two kinds of row (a CHECK in both stores). */
export type TryEvent = 'started' | 'interrupted';

/** The columns both stores insert, in this order. */
export const TRY_COLUMNS =
  'campaign_id, case_id, config_id, attempt_id, try_number, try_id, event, at, detail_json';

/** The insert values of a start row, in TRY_COLUMNS order. */
export function tryStartValues(start: TryStart): (string | number)[] {
  return tryRowValues(startRow(start));
}

/** The insert values of an interruption row, in TRY_COLUMNS order. */
export function tryInterruptionValues(interruption: TryInterruption): (string | number)[] {
  return tryRowValues(interruptionRow(interruption));
}

/** A row of a store's campaign-tries query (settled: SQLite's 0/1, PostgreSQL's boolean). */
export interface CampaignTryDbRow {
  readonly campaign_id: string;
  readonly case_id: string;
  readonly config_id: string;
  readonly attempt_id: string;
  readonly try_number: number | string;
  readonly try_id: string;
  readonly at: string;
  readonly detail_json: string;
  readonly settled: number | boolean;
  readonly interrupted_at: string | null;
  readonly interrupted_json: string | null;
}

export function campaignTryFromRow(row: CampaignTryDbRow): CampaignTry {
  return {
    campaignId: row.campaign_id,
    caseId: row.case_id,
    configId: row.config_id,
    attemptId: row.attempt_id,
    tryNumber: Number(row.try_number),
    tryId: row.try_id,
    startedAt: row.at,
    runner: JSON.parse(row.detail_json) as TryRunner,
    settled: row.settled === true || row.settled === 1,
    interruption:
      row.interrupted_at === null
        ? null
        : {
            at: row.interrupted_at,
            reason: (JSON.parse(row.interrupted_json ?? '{}') as { reason?: string }).reason ?? '',
          },
  };
}

/** Per run (= campaign id): how many of its starts have no attempt in the ledger. */
export interface UnsettledDbRow {
  readonly run_id: string;
  readonly n: number | string;
}

/**
 * One campaign_tries row as `evals merge --from-store` copies it from a shard's store into the
 * target (copy-in.ts): a start, or an interruption of a started try. Its identity is the table's
 * unique key (campaign, case, config, try id, event); the rest is its content.
 */
export interface TryRow {
  readonly campaignId: string;
  readonly caseId: string;
  readonly configId: string;
  readonly attemptId: string;
  readonly tryNumber: number;
  readonly tryId: string;
  readonly event: TryEvent;
  readonly at: string;
  /** The runner of a start, `{ reason }` of an interruption, as JSON text. */
  readonly detailJson: string;
}

/** A start's row. */
function startRow(start: TryStart): TryRow {
  return {
    campaignId: start.campaignId,
    caseId: start.caseId,
    configId: start.configId,
    attemptId: start.attemptId,
    tryNumber: start.tryNumber,
    tryId: start.tryId,
    event: 'started',
    at: start.startedAt,
    detailJson: JSON.stringify(start.runner),
  };
}

/** An interruption's row. */
function interruptionRow(interruption: TryInterruption): TryRow {
  return {
    campaignId: interruption.campaignId,
    caseId: interruption.caseId,
    configId: interruption.configId,
    attemptId: interruption.attemptId,
    tryNumber: interruption.tryNumber,
    tryId: interruption.tryId,
    event: 'interrupted',
    at: interruption.at,
    detailJson: JSON.stringify({ reason: interruption.reason }),
  };
}

/** The rows a store holds for these starts as read back (campaignTries): each start, then its interruption. */
export function tryRowsOf(tries: readonly CampaignTry[]): TryRow[] {
  return tries.flatMap((entry) =>
    entry.interruption === null
      ? [startRow(entry)]
      : [startRow(entry), interruptionRow({ ...entry, ...entry.interruption })],
  );
}

/** The insert values of a row, in TRY_COLUMNS order. */
export function tryRowValues(row: TryRow): (string | number)[] {
  return [
    row.campaignId,
    row.caseId,
    row.configId,
    row.attemptId,
    row.tryNumber,
    row.tryId,
    row.event,
    row.at,
    row.detailJson,
  ];
}

/** The row's identity (the table's unique key) as one text. */
function tryRowKey(row: TryRow): string {
  return JSON.stringify([row.campaignId, row.caseId, row.configId, row.tryId, row.event]);
}

/** A row of TRY_COLUMNS as a target reads it back (to compare a copied row with what it holds). */
export interface TryRowDbRow {
  readonly campaign_id: string;
  readonly case_id: string;
  readonly config_id: string;
  readonly attempt_id: string;
  readonly try_number: number | string;
  readonly try_id: string;
  readonly event: TryEvent;
  readonly at: string;
  readonly detail_json: string;
}

export function tryRowFromDb(row: TryRowDbRow): TryRow {
  return {
    campaignId: row.campaign_id,
    caseId: row.case_id,
    configId: row.config_id,
    attemptId: row.attempt_id,
    tryNumber: Number(row.try_number),
    tryId: row.try_id,
    event: row.event,
    at: row.at,
    detailJson: row.detail_json,
  };
}

/** What became of one copied row: written, held alike (skipped), or held otherwise (nothing overwritten). */
export type TryCopyOutcome =
  | { readonly status: 'inserted' | 'duplicate'; readonly row: TryRow }
  | { readonly status: 'conflict'; readonly row: TryRow; readonly existing: TryRow };

/** Two rows under one key say the same: every column alike, the detail compared as JSON (not as its spelling). */
function tryRowsAlike(a: TryRow, b: TryRow): boolean {
  const detail = (text: string) => JSON.stringify(JSON.parse(text));
  return (
    tryRowKey(a) === tryRowKey(b) &&
    a.attemptId === b.attemptId &&
    a.tryNumber === b.tryNumber &&
    a.at === b.at &&
    detail(a.detailJson) === detail(b.detailJson)
  );
}

/** One copied row against what the target holds under its key (undefined: nothing). */
export function tryCopyOutcome(row: TryRow, existing: TryRow | undefined): TryCopyOutcome {
  if (existing === undefined) return { status: 'inserted', row };
  return tryRowsAlike(row, existing) ? { status: 'duplicate', row } : { status: 'conflict', row, existing };
}

/**
 * The SQL (both stores) of every try the ledger holds that a later try of the same planned attempt
 * replaced: among a planned attempt's settled tries (the attempts table holds them), all but the
 * one of the highest try number. A campaign retries only retryable infrastructure failures and
 * judges the planned attempt by its final try, so a report counts that try alone (summary.ts: the
 * others are left out as `retried`). An unsettled later try (a session that died) replaces nothing.
 * `settled` is the store's clause that the attempts table holds try `s` (run = campaign, attempt
 * id = try id).
 */
export function retriedTriesSql(settled: string): string {
  return `
  SELECT campaign_id AS run_id, case_id, config_id, try_id AS attempt_id FROM (
    SELECT s.campaign_id, s.case_id, s.config_id, s.try_id, s.try_number,
      MAX(s.try_number) OVER (PARTITION BY s.campaign_id, s.case_id, s.config_id, s.attempt_id) AS last_try
    FROM campaign_tries s WHERE s.event = 'started' AND EXISTS (${settled})
  ) settled_tries WHERE try_number < last_try`;
}

/** A row of retriedTriesSql. */
export interface RetriedTryDbRow {
  readonly run_id: string;
  readonly case_id: string;
  readonly config_id: string;
  readonly attempt_id: string;
}

/** A retriedTriesSql row as the attempt key it names. */
export const retriedTryFromRow = (row: RetriedTryDbRow): AttemptKey => ({
  runId: row.run_id,
  caseId: row.case_id,
  configId: row.config_id,
  attemptId: row.attempt_id,
});
