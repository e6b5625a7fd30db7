// The row helpers both ledger stores share: the runs queries and their rows, a record's stored JSON,
// and a score row's columns, values and reading back (SQLite and PostgreSQL run the same SQL here).
import type { Layer } from '@paperclip-evals/checks';

import type { LedgerRecord, ScoreRow } from './convert.js';
import type { Retraction } from './retraction.js';
import type { RunCounts } from './store.js';
import type { UnsettledDbRow } from './try-starts.js';

/** One run's attempts (attempts(runId)) are read this many rows at a time, by id. */
export const RUN_PAGE = 500;

/** Per run: attempts, cases, configs, foreign and retracted (both stores run this SQL as is). */
export const RUNS_SQL = `
  SELECT a.run_id AS run_id, COUNT(*) AS attempts, COUNT(DISTINCT a.case_id) AS cases,
    COUNT(DISTINCT a.config_id) AS configs,
    SUM(CASE WHEN a.environment_mismatch THEN 1 ELSE 0 END) AS foreign_attempts,
    SUM(CASE WHEN EXISTS (SELECT 1 FROM retractions r WHERE r.run_id = a.run_id
      AND (r.attempt_id IS NULL OR r.attempt_id = a.attempt_id)) THEN 1 ELSE 0 END) AS retracted,
    COALESCE(SUM(COALESCE(a.provider_cost_nanodollars, a.estimated_cost_nanodollars)), 0) AS observed_nanodollars,
    SUM(CASE WHEN a.provider_cost_nanodollars IS NULL AND a.estimated_cost_nanodollars IS NULL
      THEN 1 ELSE 0 END) AS unpriced
  FROM attempts a GROUP BY a.run_id ORDER BY MIN(a.id)`;

/** Per run and recorded run terminal state: how many attempts. */
export const RUN_STATES_SQL =
  'SELECT run_id, run_terminal_state AS state, COUNT(*) AS n FROM attempts GROUP BY run_id, run_terminal_state ORDER BY run_id, run_terminal_state';

/** The rows of RUNS_SQL and RUN_STATES_SQL (counts are text from PostgreSQL's bigint). */
export interface RunDbRow {
  readonly run_id: string;
  readonly attempts: number | string;
  readonly cases: number | string;
  readonly configs: number | string;
  readonly foreign_attempts: number | string;
  readonly retracted: number | string;
  readonly observed_nanodollars: number | string;
  readonly unpriced: number | string;
}
export interface RunStateDbRow {
  readonly run_id: string;
  readonly state: string;
  readonly n: number | string;
}

/**
 * RunCounts from the two queries' rows, the store's retractions and each run's unsettled tries
 * (try-starts.ts: counted among its unpriced); a run with unsettled tries and no attempt is listed too.
 */
export function runCountsFrom(
  runs: readonly RunDbRow[],
  states: readonly RunStateDbRow[],
  retractions: readonly Retraction[],
  unsettled: readonly UnsettledDbRow[] = [],
): RunCounts[] {
  const unsettledOf = new Map(unsettled.map((row) => [row.run_id, Number(row.n)]));
  // A campaign whose only tries are unsettled starts has no attempt: it is listed all the same (0
  // attempts, its starts its unknown spend), after the runs with attempts: "what did I spend?" sees it.
  const listed = new Set(runs.map((row) => row.run_id));
  const startsOnly: RunDbRow[] = unsettled
    .filter((row) => !listed.has(row.run_id))
    .map((row) => ({
      run_id: row.run_id,
      attempts: 0,
      cases: 0,
      configs: 0,
      foreign_attempts: 0,
      retracted: 0,
      observed_nanodollars: 0,
      unpriced: 0,
    }));
  return [...runs, ...startsOnly].map((row) => ({
    runId: row.run_id,
    attempts: Number(row.attempts),
    cases: Number(row.cases),
    configs: Number(row.configs),
    terminalStates: Object.fromEntries(
      states.filter((state) => state.run_id === row.run_id).map((state) => [state.state, Number(state.n)]),
    ),
    foreign: Number(row.foreign_attempts),
    retracted: Number(row.retracted),
    spend: {
      observedNanodollars: Number(row.observed_nanodollars),
      unpriced: Number(row.unpriced) + (unsettledOf.get(row.run_id) ?? 0),
      unsettledTries: unsettledOf.get(row.run_id) ?? 0,
    },
    retractions: retractions.filter((retraction) => retraction.runId === row.run_id),
  }));
}

/** The record as stored: JSON without its raw bundle text (stored once, in bundles) and scores (own table). */
export function storedRecordJson(record: LedgerRecord): string {
  const { rawCanonical, scores, ...stored } = record;
  return JSON.stringify(stored);
}

/** A scores row as both stores return it. */
export interface ScoreDbRow {
  readonly check_id: string;
  /** '1' … '6', 'plugin', or NULL for a check the runner observed (SQL text either way). */
  readonly layer: string | null;
  readonly status: ScoreRow['status'];
  readonly score: number | null;
  readonly reason: string | null;
  readonly evidence_json: string;
}

/** The columns of a score row, in the order both stores insert and select them. */
export const SCORE_COLUMNS = 'check_id, layer, status, score, reason, evidence_json';

/** The insert values of a score row, in SCORE_COLUMNS order. */
export function scoreValues(
  score: ScoreRow,
): [string, string | null, string, number | null, string | null, string] {
  return [
    score.checkId,
    score.layer === null ? null : String(score.layer),
    score.status,
    score.score,
    score.reason,
    JSON.stringify(score.evidence ?? null),
  ];
}

export function scoreFromRow(row: ScoreDbRow): ScoreRow {
  return {
    checkId: row.check_id,
    layer: row.layer === null ? null : row.layer === 'plugin' ? 'plugin' : (Number(row.layer) as Layer),
    status: row.status,
    score: row.score,
    reason: row.reason,
    evidence: JSON.parse(row.evidence_json) as unknown,
  };
}

/** The rows of one page of attempts, grouped by attempt id (rows arrive ordered by attempt). */
export function groupScores<Id>(
  rows: readonly (ScoreDbRow & { readonly attempt: Id })[],
): Map<Id, ScoreRow[]> {
  const byAttempt = new Map<Id, ScoreRow[]>();
  for (const row of rows) {
    let scores = byAttempt.get(row.attempt);
    if (scores === undefined) byAttempt.set(row.attempt, (scores = []));
    scores.push(scoreFromRow(row));
  }
  return byAttempt;
}
