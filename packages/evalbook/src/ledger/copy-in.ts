// Copying what other stores hold into one store (`evals merge --from-store`): attempts, their policy
// verdicts, retractions, campaign records and campaign try starts, through each kind's own append
// rule (an attempt as insertBatch writes it, a verdict as insertPolicyVerdicts does, a retraction
// kept with its who, why and when, a campaign record as recordCampaign appends it: beside the earlier
// records of its plan, a try's start or interruption under campaign_tries' unique key: try-starts.ts
// tryCopyOutcome), all in ONE transaction of the target store. What the target holds alike is a
// duplicate; anything held with other content (a try row too: try_conflict), a verdict whose
// attempt is not there with that bundle, a retraction of something not there, or a campaign record
// of another plan under its id is a conflict: the store throws paperclip_evalbook_merge_conflict
// listing every one, and nothing at all is written. The stores implement copyIn (its types are in
// store.ts); the rules are here.
import { EvalbookError, isEvalbookError } from '../errors.js';
import { campaignRow } from './campaign-records.js';

import type { Issue } from '@paperclip-evals/contract';

import type { CampaignRecordInput, CampaignRecordOutcome, CampaignRow } from './campaign-records.js';
import type { Retraction } from './retraction.js';
import type { CampaignCopyOutcome, CopyInOutcome, RetractionCopyOutcome } from './store.js';

/**
 * One campaign record of a copy, appended by `append` (the store's recordCampaign rule, in the
 * copy's transaction): a record the rule refuses (another plan under its id, no plan digest) is the
 * copy's conflict; anything else thrown is thrown again.
 */
export function campaignCopyOutcome(
  input: CampaignRecordInput,
  append: (row: CampaignRow) => CampaignRecordOutcome,
): CampaignCopyOutcome {
  let digest = '';
  try {
    const row = campaignRow(input);
    digest = row.digest;
    return campaignCopied(row, append(row));
  } catch (error) {
    return campaignNotCopied(input.campaignId, digest, error);
  }
}

/** What an append's outcome is in a copy. */
export function campaignCopied(row: CampaignRow, outcome: CampaignRecordOutcome): CampaignCopyOutcome {
  return {
    campaignId: row.campaignId,
    recordDigest: row.digest,
    status: outcome === 'duplicate' ? 'duplicate' : 'inserted',
  };
}

/** A refused append is the copy's conflict; anything else is thrown again. */
export function campaignNotCopied(
  campaignId: string,
  recordDigest: string,
  error: unknown,
): CampaignCopyOutcome {
  if (!isEvalbookError(error, 'paperclip_evalbook_campaign_conflict')) throw error;
  return { campaignId, recordDigest, status: 'conflict', issues: error.issues };
}

const targetName = (retraction: Retraction): string =>
  retraction.attemptId === null
    ? `run ${retraction.runId}`
    : `attempt ${retraction.runId}/${retraction.attemptId}`;

/** One retraction against what the store holds of its target (after the batch's attempts). */
export function retractionCopyOutcome(
  retraction: Retraction,
  existing: Retraction | undefined,
  targetHeld: boolean,
): RetractionCopyOutcome {
  if (existing !== undefined)
    return existing.reason === retraction.reason &&
      existing.by === retraction.by &&
      existing.at === retraction.at
      ? { status: 'duplicate', retraction }
      : { status: 'conflict', retraction, existing };
  if (!targetHeld)
    return { status: 'refused', retraction, reason: `${targetName(retraction)} is not in the store` };
  return { status: 'inserted', retraction };
}

/** Every outcome that must not be written, as issues ([] means the copy holds). */
export function copyInIssues(outcome: CopyInOutcome): Issue[] {
  const issues: Issue[] = [];
  for (const entry of outcome.attempts)
    if (entry.status === 'conflict')
      issues.push({
        code: 'attempt_conflict',
        message: `attempt ${entry.key.runId}/${entry.key.attemptId} is held with another digest: nothing is overwritten`,
        path: `/attempts/${entry.key.attemptId}`,
        expected: entry.existingDigest,
        received: entry.bundleDigest,
      });
  for (const entry of outcome.policyVerdicts)
    if (entry.status === 'conflict' || entry.status === 'refused')
      issues.push({
        code: entry.status === 'conflict' ? 'policy_verdict_conflict' : 'policy_verdict_refused',
        message:
          entry.status === 'conflict'
            ? `the policy verdict of call ${entry.verdict.callId} (${entry.verdict.key.attemptId}, policy ${entry.verdict.policyDigest}) is held with another verdict`
            : entry.reason,
        path: `/policyVerdicts/${entry.verdict.key.attemptId}/${entry.verdict.callId}`,
        expected: entry.status === 'conflict' ? entry.existing.verdict : 'its attempt with that bundle',
        received: entry.verdict.verdict,
      });
  for (const entry of outcome.retractions)
    if (entry.status === 'conflict' || entry.status === 'refused')
      issues.push({
        code: entry.status === 'conflict' ? 'retraction_conflict' : 'retraction_target_missing',
        message:
          entry.status === 'conflict'
            ? `${targetName(entry.retraction)} is retracted there already, by ${entry.existing.by} at ${entry.existing.at} ("${entry.existing.reason}")`
            : entry.reason,
        path: `/retractions/${entry.retraction.runId}${entry.retraction.attemptId === null ? '' : `/${entry.retraction.attemptId}`}`,
        expected: entry.status === 'conflict' ? entry.existing : 'the retracted run or attempt',
        received: entry.retraction,
      });
  for (const entry of outcome.campaigns)
    if (entry.status === 'conflict')
      issues.push(
        ...entry.issues.map((issue) => ({
          ...issue,
          code: 'campaign_conflict',
          message: `campaign record ${entry.recordDigest} of ${JSON.stringify(entry.campaignId)}: ${issue.message}`,
          path: `/campaigns/${entry.campaignId}`,
        })),
      );
  for (const entry of outcome.tries)
    if (entry.status === 'conflict')
      issues.push({
        code: 'try_conflict',
        message: `the ${entry.row.event === 'started' ? 'start' : 'interruption'} of try ${entry.row.tryId} (campaign ${entry.row.campaignId}, ${entry.row.caseId} × ${entry.row.configId}) is held with other content: nothing is overwritten`,
        path: `/tries/${entry.row.tryId}/${entry.row.event}`,
        expected: entry.existing,
        received: entry.row,
      });
  return issues;
}

/** Throws (inside the store's transaction, so nothing is written) when the copy does not hold. */
export function assertCopyHolds(outcome: CopyInOutcome): CopyInOutcome {
  const issues = copyInIssues(outcome);
  if (issues.length > 0)
    throw new EvalbookError(
      'paperclip_evalbook_merge_conflict',
      `the copy does not hold (${issues.length} conflict(s)): nothing was written`,
      issues,
    );
  return outcome;
}
