// Retractions and the attempts reports leave out. The ledger is append-only, so a run or an attempt
// that should not count (a broken harness, another suite's bundle) is retracted by an appended
// record with who, why and when — never by a delete. Every report, grid, comparison and gate leaves
// retracted attempts out, and attempts kept apart as foreign (ingested with keepForeign: their case
// or config is not the environment's) unless asked to include them. Pure: the time comes in as data.
// Its free text (the reason, who) never carries a credential: a request's is scrubbed before it is
// stored, and a stored row's (an older ledger's) as it is read, with contract's scrubCredentials —
// so `retract`, `runs`, reports and a published site never print one.
import { scrubCredentials } from '@paperclip-evals/contract';

import { EvalbookError } from '../errors.js';

import type { Issue } from '@paperclip-evals/contract';
import type { AttemptKey, LedgerRecord } from './convert.js';

/** One retraction as stored: a whole run (attemptId null) or the attempts of a run with one attempt id. */
export interface Retraction {
  readonly runId: string;
  /** null: every attempt of the run. */
  readonly attemptId: string | null;
  readonly reason: string;
  /** Who retracted it. */
  readonly by: string;
  /** When, as an ISO 8601 UTC timestamp (taken by the caller: the CLI's clock). */
  readonly at: string;
}

/** What `retract` is asked: a run, or some of its attempt ids. */
export interface RetractionRequest {
  readonly runId: string;
  /** Empty: the whole run. */
  readonly attemptIds: readonly string[];
  readonly reason: string;
  readonly by: string;
  readonly at: string;
}

/** What happened to one target of a request. */
export interface RetractionOutcome {
  /** retracted: a record was appended · already_retracted: one was there (it is returned), nothing written. */
  readonly status: 'retracted' | 'already_retracted';
  /** The record in force: the one appended, or the one found (possibly the whole run's). */
  readonly retraction: Retraction;
  /** The stored attempts it covers. */
  readonly attempts: readonly AttemptKey[];
}

/** A retraction asked wrongly, or of something the evalbook does not hold. Nothing is written. */
function retractionRefused(message: string, issues: readonly Issue[] = []): EvalbookError {
  return new EvalbookError('paperclip_evalbook_retraction_refused', message, issues);
}

/**
 * Why a report leaves an attempt out, or null when it counts: retracted (evals retract), retried (a
 * campaign's try that a later try of the same planned attempt replaced: the final try counts) or
 * foreign (not of the environment's suite).
 */
export type LeftOutReason = 'retracted' | 'retried' | 'foreign';

/** How many attempts a summary left out, by why. */
export type LeftOutCounts = Readonly<Record<LeftOutReason, number>>;

/**
 * A foreign attempt: its case or config is not the environment's (or has another digest) — kept
 * apart at ingest, or found so by the report's environment (scoring's withExpectedChecks puts that
 * environment's mismatch on the record, by the same rule ingest uses).
 */
export const isForeign = (stored: { readonly record: Pick<LedgerRecord, 'environmentMismatch'> }): boolean =>
  stored.record.environmentMismatch.length > 0;

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

/**
 * Refuses a request that cannot be stored as asked, every problem at once (an issue each,
 * `retraction_field_invalid` naming the field); the targets, deduplicated.
 */
export function checkRetractionRequest(request: RetractionRequest): RetractionRequest {
  const issues: Issue[] = [];
  const problem = (component: string, expected: string, received: string): void => {
    issues.push({
      code: 'retraction_field_invalid',
      component,
      message: `${component}: expected ${expected}, received ${JSON.stringify(received)}`,
      expected,
      received,
    });
  };
  const text = (name: string, value: string): void => {
    if (value.trim() === '') problem(name, 'a non-empty text', value);
  };
  text('run', request.runId);
  text('reason', request.reason);
  text('by', request.by);
  for (const attemptId of request.attemptIds) text('attempt', attemptId);
  if (!ISO_UTC.test(request.at) || Number.isNaN(Date.parse(request.at)))
    problem('at', 'an ISO 8601 UTC time like 2026-12-01T09:30:00.000Z', request.at);
  if (issues.length > 0)
    throw new EvalbookError(
      'paperclip_evalbook_retraction_refused',
      `cannot retract: ${issues.map((issue) => issue.message).join('; ')}`,
      issues,
    );
  return {
    ...request,
    reason: scrubCredentials(request.reason),
    by: scrubCredentials(request.by),
    attemptIds: [...new Set(request.attemptIds)],
  };
}

/** Which retraction covers an attempt, looked up by run and attempt id. */
export class RetractionIndex {
  private readonly runs = new Map<string, Retraction>();
  private readonly attempts = new Map<string, Retraction>();

  constructor(readonly all: readonly Retraction[]) {
    for (const retraction of all)
      if (retraction.attemptId === null) this.runs.set(retraction.runId, retraction);
      else this.attempts.set(`${retraction.runId}\u0000${retraction.attemptId}`, retraction);
  }

  /** The run's own retraction first (it covers every attempt), else the attempt's; undefined when none. */
  of(key: Pick<AttemptKey, 'runId' | 'attemptId'>): Retraction | undefined {
    return this.runs.get(key.runId) ?? this.attempts.get(`${key.runId}\u0000${key.attemptId}`);
  }
}

/** A retraction's stored row, as both stores select it. */
export interface RetractionDbRow {
  readonly run_id: string;
  readonly attempt_id: string | null;
  readonly reason: string;
  readonly retracted_by: string;
  readonly retracted_at: string;
}

/** The columns of a retraction row, in the order both stores insert and select them. */
export const RETRACTION_COLUMNS = 'run_id, attempt_id, reason, retracted_by, retracted_at';

/** A stored row as every reader gets it: its reason and author scrubbed (an older ledger may hold a token). */
export const retractionFromRow = (row: RetractionDbRow): Retraction => ({
  runId: row.run_id,
  attemptId: row.attempt_id,
  reason: scrubCredentials(row.reason),
  by: scrubCredentials(row.retracted_by),
  at: row.retracted_at,
});

export const retractionValues = (retraction: Retraction): [string, string | null, string, string, string] => [
  retraction.runId,
  retraction.attemptId,
  retraction.reason,
  retraction.by,
  retraction.at,
];

/**
 * Decides a (checked) request against what the store holds of its run: the attempts and the
 * retractions there. Throws EvalbookError paperclip_evalbook_retraction_refused when the run or an
 * attempt id is not stored (every missing one named); otherwise each target's outcome, and the records to append (those not
 * already in force: retracting twice writes nothing and returns the record in force).
 */
export function planRetraction(
  request: RetractionRequest,
  attempts: readonly AttemptKey[],
  existing: readonly Retraction[],
): { outcomes: RetractionOutcome[]; append: Retraction[] } {
  if (attempts.length === 0) {
    const message = `no run named ${JSON.stringify(request.runId)} in this evalbook: nothing to retract (see \`evals runs\` for the runs it holds)`;
    throw retractionRefused(message, [
      {
        code: 'run_unknown',
        component: '--run',
        message,
        expected: 'a run of the evalbook',
        received: request.runId,
      },
    ]);
  }
  const missing = request.attemptIds.filter((id) => !attempts.some((key) => key.attemptId === id));
  if (missing.length > 0) {
    const ids = [...new Set(attempts.map((key) => key.attemptId))];
    const shown = `${ids.slice(0, 10).join(', ')}${ids.length > 10 ? ', …' : ''}`;
    throw retractionRefused(
      `run ${JSON.stringify(request.runId)} has no attempt ${missing.map((id) => JSON.stringify(id)).join(', ')}: nothing retracted (its attempts: ${shown})`,
      missing.map((id) => ({
        code: 'attempt_unknown',
        component: '--attempt',
        message: `run ${JSON.stringify(request.runId)} has no attempt ${JSON.stringify(id)}`,
        expected: `an attempt of run ${request.runId}: ${shown}`,
        received: id,
      })),
    );
  }
  const index = new RetractionIndex(existing);
  const fields = { reason: request.reason, by: request.by, at: request.at };
  const targets = request.attemptIds.length === 0 ? [null] : request.attemptIds;
  const outcomes: RetractionOutcome[] = [];
  const append: Retraction[] = [];
  for (const attemptId of targets) {
    const covered = attempts.filter((key) => attemptId === null || key.attemptId === attemptId);
    const inForce =
      attemptId === null
        ? existing.find((retraction) => retraction.attemptId === null)
        : index.of({ runId: request.runId, attemptId });
    if (inForce !== undefined) {
      outcomes.push({ status: 'already_retracted', retraction: inForce, attempts: covered });
      continue;
    }
    const retraction: Retraction = { runId: request.runId, attemptId, ...fields };
    append.push(retraction);
    outcomes.push({ status: 'retracted', retraction, attempts: covered });
  }
  return { outcomes, append };
}

/** What a report says of the attempts it left out, or null when it left none out. */
export function leftOutText(summary: {
  readonly leftOut: LeftOutCounts;
  readonly includeForeign: boolean;
  readonly foreignIncluded: number;
}): string | null {
  const parts: string[] = [];
  const { foreign, retracted, retried } = summary.leftOut;
  if (foreign > 0)
    parts.push(
      `${foreign} foreign (case or config not the environment's: kept apart at ingest, or not in --env; --include-foreign counts them)`,
    );
  if (retracted > 0) parts.push(`${retracted} retracted`);
  if (retried > 0)
    parts.push(
      `${retried} ${retried === 1 ? 'try' : 'tries'} of a campaign replaced by a retry (a retryable infrastructure failure: each planned attempt counts once, by its final try; the spend of every try is in the budgets)`,
    );
  const included =
    summary.includeForeign && summary.foreignIncluded > 0
      ? `${summary.foreignIncluded} foreign attempt(s) counted (--include-foreign)`
      : null;
  if (parts.length === 0) return included;
  const total = foreign + retracted + retried;
  return `${total} attempt${total === 1 ? '' : 's'} left out of every count: ${parts.join(', ')}${included === null ? '' : `; ${included}`}`;
}

/**
 * When nothing is counted but attempts were left out, what to say first (an empty report that leaves
 * "24 foreign" for its last line reads as an empty store): every attempt foreign means the
 * environment names none of the store's cases or configs — most often the wrong --env. Null when
 * something is counted or nothing was left out.
 */
export function nothingCountedText(summary: {
  readonly latestRun: string | null;
  readonly leftOut: LeftOutCounts;
}): string | null {
  // A retried try is left out only when a later try counts (or is itself left out: it says why).
  const { foreign, retracted } = summary.leftOut;
  if (summary.latestRun !== null || foreign + retracted === 0) return null;
  const total = foreign + retracted;
  const every = `${total === 1 ? 'the one attempt' : `all ${total} attempts`} in scope ${total === 1 ? 'is' : 'are'} left out`;
  if (retracted === 0)
    return `${every}, foreign to the environment's suite (none of its cases × configs): is --env the suite this store was run with? --include-foreign counts them`;
  if (foreign === 0) return `${every}, retracted (\`evals runs\` lists every run and its retractions)`;
  return `${every}: ${foreign} foreign to the environment's suite (is --env this store's suite?), ${retracted} retracted`;
}

/** One retraction for a reader: what, who, when, why. */
export function retractionText(retraction: Retraction): string {
  const what =
    retraction.attemptId === null
      ? `run ${retraction.runId} (every attempt)`
      : `attempt ${retraction.attemptId} of run ${retraction.runId}`;
  return `${what} retracted by ${retraction.by} at ${retraction.at}: ${retraction.reason}`;
}
