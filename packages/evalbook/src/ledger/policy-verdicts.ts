// Policy verdicts in the Evalbook: for one tool call of a stored attempt, what a policy bundle (by its
// digest) decided and how that compares with the outcome the runner recorded. The policy package
// produces the comparisons; the CLI maps them onto this record (evalbook depends only on contract).
// A verdict is keyed by its attempt, call id and policy digest: the same replay again is a duplicate,
// a different verdict for the same key is a conflict that overwrites nothing.
import type { AttemptKey } from './convert.js';

/** A policy's verdict Evals compares with the runner's outcome. */
export type PolicyDecision = 'allow' | 'deny' | 'ask';

/** Policy vs runner for one tool call (deny and ask both mean "not unattended"). */
export const POLICY_AGREEMENTS = [
  'agree',
  'policy_denies_runner_allowed',
  'runner_denied_policy_allows',
  'policy_error',
  'policy_verdict_unfamiliar',
  'no_recorded_outcome',
] as const;
export type PolicyAgreement = (typeof POLICY_AGREEMENTS)[number];

export interface PolicyVerdict {
  readonly key: AttemptKey;
  readonly callId: string;
  /** The policy bundle's digest as the producer acknowledged it. */
  readonly policyDigest: string;
  readonly toolName: string;
  /** A verdict Evals compares (allow, deny, ask); null for a row error or an unfamiliar verdict. */
  readonly decision: PolicyDecision | null;
  /** The verdict as the producer gave it (any string); null for a row error (or stored before Evals kept it). */
  readonly verdict: string | null;
  /**
   * The producer's whole Decision as JSON text exactly as sent, unfamiliar fields included; null for a
   * row error (or stored before Evals kept it).
   */
  readonly decisionJson: string | null;
  /** The decision's rule_id (the artifact that decided); null when the bundle default applied. */
  readonly ruleId: string | null;
  /** The decision's reason text as the producer gave it; null for a row error. */
  readonly reason: string | null;
  /** The producer's row error code (e.g. OL-1242), when it gave one. */
  readonly errorCode: string | null;
  /** The runner's recorded outcome of the call, or null when the bundle holds none. */
  readonly recordedOutcome: string | null;
  readonly agreement: PolicyAgreement;
}

/** A verdict to store: also names the attempt's bundle, which must be the one in the ledger. */
export interface PolicyVerdictInput extends PolicyVerdict {
  readonly bundleDigest: string;
}

/** What happened to one verdict of a batch. */
export type PolicyVerdictOutcome =
  | { readonly status: 'inserted'; readonly verdict: PolicyVerdictInput }
  /** Same key, same verdict: already there, skipped. */
  | { readonly status: 'duplicate'; readonly verdict: PolicyVerdictInput }
  /** Same key, a different verdict: nothing overwritten. */
  | { readonly status: 'conflict'; readonly verdict: PolicyVerdictInput; readonly existing: PolicyVerdict }
  /** Not written: its attempt is not in the ledger, or is there with another bundle. */
  | { readonly status: 'refused'; readonly verdict: PolicyVerdictInput; readonly reason: string };

/** A policy_verdicts row joined with its attempt's key, as both stores return it. */
export interface PolicyVerdictDbRow {
  readonly run_id: string;
  readonly case_id: string;
  readonly config_id: string;
  readonly attempt_id: string;
  readonly call_id: string;
  readonly policy_digest: string;
  readonly tool_name: string;
  readonly decision: PolicyDecision | null;
  readonly rule_id: string | null;
  readonly reason: string | null;
  readonly error_code: string | null;
  readonly recorded_outcome: string | null;
  readonly agreement: PolicyAgreement;
  readonly verdict: string | null;
  readonly decision_json: string | null;
}

/** The columns both stores select (from policy_verdicts v joined with attempts a). */
export const POLICY_VERDICT_COLUMNS =
  'a.run_id, a.case_id, a.config_id, a.attempt_id, v.call_id, v.policy_digest, v.tool_name, v.decision, v.rule_id, v.reason, v.error_code, v.recorded_outcome, v.agreement, v.verdict, v.decision_json';

export function policyVerdictFromRow(row: PolicyVerdictDbRow): PolicyVerdict {
  return {
    key: { runId: row.run_id, caseId: row.case_id, configId: row.config_id, attemptId: row.attempt_id },
    callId: row.call_id,
    policyDigest: row.policy_digest,
    toolName: row.tool_name,
    decision: row.decision,
    ruleId: row.rule_id,
    reason: row.reason,
    errorCode: row.error_code,
    recordedOutcome: row.recorded_outcome,
    agreement: row.agreement,
    verdict: row.verdict,
    decisionJson: row.decision_json,
  };
}

/** The stored values of a verdict after its key, in column order (tool_name … agreement). */
export function policyVerdictValues(verdict: PolicyVerdict): (string | null)[] {
  return [
    verdict.toolName,
    verdict.decision,
    verdict.ruleId,
    verdict.reason,
    verdict.errorCode,
    verdict.recordedOutcome,
    verdict.agreement,
    verdict.verdict,
    verdict.decisionJson,
  ];
}

/**
 * Classifies a verdict whose key is already held: the same values are a duplicate, else a conflict.
 * A stored reason, verdict or decision of null beside a given one is the same verdict stored before
 * replay recorded it (Evals 0.1 stored no reason, and before migration 7 no verdict as received or
 * whole decision): a duplicate, kept as it is — the ledger is append-only.
 */
export function heldVerdictOutcome(
  verdict: PolicyVerdictInput,
  existing: PolicyVerdict,
): PolicyVerdictOutcome {
  const given = policyVerdictValues(verdict);
  const same = policyVerdictValues(existing).every(
    (value, index) => value === given[index] || (LATER_KEPT.has(index) && value === null),
  );
  return same ? { status: 'duplicate', verdict } : { status: 'conflict', verdict, existing };
}

/** Where the reason, the verdict as received and the whole decision are among policyVerdictValues. */
const LATER_KEPT = new Set([3, 7, 8]);

/** A verdict not stored: its attempt is not in the ledger (null), or is there with another bundle. */
export function refusedVerdict(
  verdict: PolicyVerdictInput,
  ledgerDigest: string | null,
): PolicyVerdictOutcome {
  const { runId, caseId, configId, attemptId } = verdict.key;
  const name = `${runId}/${caseId}/${configId}/${attemptId}`;
  return {
    status: 'refused',
    verdict,
    reason:
      ledgerDigest === null
        ? `attempt ${name} is not in the ledger (ingest it first)`
        : `attempt ${name} is in the ledger with bundle ${ledgerDigest}, not ${verdict.bundleDigest}`,
  };
}
