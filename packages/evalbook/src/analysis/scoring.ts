// Honest statuses: what one stored attempt counts as. Each attempt is solved, unsolved (the agent
// or model did not do the task), errored (infrastructure, runner, a cancelled run or a check that
// itself failed), incomplete (a transcript or a verdict is missing, so nobody can say) or
// over_budget — with the reason. A missing verdict is never a pass and never a model failure: an
// attempt with no check at all is incomplete, like one with a check that gave no verdict.
import { PROVIDER_TURN_FAILURE, environmentMismatch } from '../ledger/convert.js';
import type { ScoreRow } from '../ledger/convert.js';
import type { Environment } from '../ledger/environment.js';
import type { StoredAttempt } from '../ledger/store.js';

export type AttemptStatus = 'solved' | 'unsolved' | 'errored' | 'incomplete' | 'over_budget';

export const ATTEMPT_STATUSES: readonly AttemptStatus[] = [
  'solved',
  'unsolved',
  'errored',
  'incomplete',
  'over_budget',
];

export interface AttemptVerdict {
  readonly status: AttemptStatus;
  /** Why it is not solved (null when solved). */
  readonly reason: string | null;
}

/** Why an attempt with no score row at all is incomplete (no check reported or evaluated). */
export const NO_VERDICT_REASON =
  'no verdict: no check was reported or evaluated (list the case checks in the environment, or have the runner report observations.checks)';

/** Failure classes that say nothing about the agent's work: the attempt errored. */
const NOT_THE_AGENTS_FAILURE = new Set(['infrastructure', 'runner', 'cancelled', 'provider']);

/** The order rules apply in, first match wins (documented in docs/reports.md). */
export function attemptVerdict(
  record: Pick<StoredAttempt['record'], 'failure' | 'terminal' | 'transcript'>,
  scores: readonly Pick<ScoreRow, 'checkId' | 'status' | 'reason'>[],
): AttemptVerdict {
  const failure = record.failure;
  // An eval-session infrastructure failure says whether a retry may help; reports show it.
  const retry =
    failure?.retryable === undefined ? '' : failure.retryable ? ' (retryable)' : ' (not retryable)';
  if (failure?.classification === 'budget')
    return { status: 'over_budget', reason: `${failure.code}${retry}` };
  if (failure !== null && NOT_THE_AGENTS_FAILURE.has(failure.classification))
    return { status: 'errored', reason: `${failure.classification}: ${failure.code}${retry}` };
  if (record.terminal.run === 'cancelled') return { status: 'errored', reason: 'run cancelled' };
  // An eval-session artifact read alone whose provider turn failed: a behaviour result (upstream
  // scores it), whatever evidence is missing — it is unsolved either way.
  if (failure?.classification === PROVIDER_TURN_FAILURE)
    return { status: 'unsolved', reason: `${failure.classification}: ${failure.code}` };
  if (!record.transcript.complete)
    return {
      status: 'incomplete',
      reason: `transcript incomplete${record.transcript.omissionReason === null ? '' : `: ${record.transcript.omissionReason}`}`,
    };
  const errored = scores.find((score) => score.status === 'error');
  if (errored !== undefined)
    return {
      status: 'errored',
      reason: `check ${errored.checkId} errored: ${errored.reason ?? 'no reason'}`,
    };
  if (failure !== null) return { status: 'unsolved', reason: `${failure.classification}: ${failure.code}` };
  if (record.terminal.run !== 'succeeded')
    return { status: 'unsolved', reason: `run ${record.terminal.run}` };
  // A soft_fail is shown with its check but does not unsolve the attempt (that is what soft means).
  const failed = scores.find((score) => score.status === 'fail');
  if (failed !== undefined) return { status: 'unsolved', reason: `check ${failed.checkId} failed` };
  const missing = scores.find((score) => score.status === 'not_evaluated');
  if (missing !== undefined)
    return {
      status: 'incomplete',
      reason: `check ${missing.checkId} not evaluated: ${missing.reason ?? 'no verdict'}`,
    };
  // No check at all (a bundle with `observations.checks: []` read without an environment, or a case
  // that lists none): nobody judged the work, so a succeeded run alone is not a pass.
  if (scores.length === 0) return { status: 'incomplete', reason: NO_VERDICT_REASON };
  return { status: 'solved', reason: null };
}

/**
 * The stored attempts as the environment now reads them:
 *   - an attempt not of its suite (a case or config it does not list, or one it lists under another
 *     digest: convert's environmentMismatch, the one rule ingest refuses and keeps apart by) is
 *     foreign, exactly like one kept apart at ingest, whether it was ingested without an environment
 *     or under another one: its record carries the mismatch, so reports leave it out unless
 *     includeForeign and count it as left out. A mismatch stored at ingest stays (it is the ledger's).
 *   - a check the environment lists for the attempt's case with no stored row (added to the
 *     environment after the attempt was ingested) gets a not_evaluated row, so the attempt is
 *     incomplete, never silently solved. Foreign attempts are left as they are.
 * Without an environment the stream passes through unchanged.
 */
export function withExpectedChecks(
  attempts: AsyncIterable<StoredAttempt>,
  environment: Environment | undefined,
): AsyncIterable<StoredAttempt> {
  if (environment === undefined) return attempts;
  const expected = new Map(
    environment.cases.map((envCase) => [envCase.id, (envCase.checks ?? []).map((check) => check.id)]),
  );
  return expecting(attempts, environment, expected);
}

/** The attempt with the environment's mismatch on its record (the stored one, if it has one). */
function classified(stored: StoredAttempt, environment: Environment): StoredAttempt {
  if (stored.record.environmentMismatch.length > 0) return stored;
  const { caseSha256, configSha256 } = stored.record;
  const { caseId, configId } = stored.key;
  const mismatch = environmentMismatch(environment, { caseId, configId, caseSha256, configSha256 });
  return mismatch.length === 0
    ? stored
    : { ...stored, record: { ...stored.record, environmentMismatch: mismatch } };
}

async function* expecting(
  attempts: AsyncIterable<StoredAttempt>,
  environment: Environment,
  expected: ReadonlyMap<string, readonly string[]>,
): AsyncGenerator<StoredAttempt> {
  for await (const read of attempts) {
    const stored = classified(read, environment);
    const ids = expected.get(stored.key.caseId);
    if (ids === undefined || ids.length === 0 || stored.record.environmentMismatch.length > 0) {
      yield stored;
      continue;
    }
    const missing = ids.filter((id) => !stored.scores.some((score) => score.checkId === id));
    yield missing.length === 0
      ? stored
      : {
          ...stored,
          scores: [
            ...stored.scores,
            ...missing.map((checkId): ScoreRow => ({
              checkId,
              layer: null,
              status: 'not_evaluated',
              score: null,
              reason: 'the environment lists this check; it was not evaluated when the attempt was ingested',
              evidence: null,
            })),
          ],
        };
  }
}
