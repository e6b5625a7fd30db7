// A campaign id names one suite: before a run starts any session it checks that what the ledger holds
// under that id is of this plan. A campaign record of another plan (another suite, lanes, cases or
// attempts per case) refuses the run, listing what differs; and a held try (resume) counts only when
// it ran the lane and case planned now — its case and config digests, and, where the ledger kept the
// try's session artifact, its provider, model and lane profile — on the release joined now (runnerd
// digest, package version), so a rerun with a changed suite or release never takes the old one's
// outcomes, record or no record.
import { canonicalize } from '@paperclip-evals/contract';

import { CampaignError } from './errors.js';
import { planDigest, recordedLanes } from './plan.js';

import type { Issue } from '@paperclip-evals/contract';
import type { Environment, LedgerStore, StoredAttempt } from '@paperclip-evals/evalbook';
import type { CampaignPlan, Lane, PlannedAttempt } from './plan.js';

/** What the plan is, field by field, as a campaign record names it (the plan digest's inputs). */
function planFields(plan: CampaignPlan): Record<string, unknown> {
  return {
    suiteFingerprint: plan.suiteFingerprint,
    lanes: recordedLanes(plan),
    cases: plan.cases,
    attempts: plan.settings.attempts,
  };
}

const recordedFields = (record: Readonly<Record<string, unknown>>): Record<string, unknown> => ({
  suiteFingerprint: record.suiteFingerprint,
  lanes: record.lanes,
  cases: record.cases,
  attempts: (record.settings as { attempts?: unknown } | undefined)?.attempts,
});

const conflict = (plan: CampaignPlan, issues: Issue[]): CampaignError =>
  new CampaignError(
    'paperclip_campaign_record_conflict',
    `the ledger holds campaign ${plan.campaignId} of another plan (${[...new Set(issues.map((issue) => issue.component))].join(', ')} differ): a campaign id names one suite; run this plan under a new --campaign id (nothing was run)`,
    issues,
  );

/** A field's canonical JSON (the ledger keeps records canonical: key order is no difference). */
const canonicalOrUndefined = (value: unknown): string | undefined =>
  value === undefined ? undefined : canonicalize(value);

/**
 * Refuses (paperclip_campaign_record_conflict) when the ledger records this campaign id for another
 * plan. A record of the plan's `legacyDigest` (plan.ts legacyPlanDigest: written before the ledger's
 * place left the suite's fingerprint) is of this plan.
 */
export async function assertLedgerPlan(
  store: LedgerStore,
  plan: CampaignPlan,
  legacyDigest?: string,
): Promise<void> {
  const digest = planDigest(plan);
  const now = planFields(plan);
  for (const stored of await store.campaigns()) {
    if (
      stored.campaignId !== plan.campaignId ||
      stored.record.planDigest === digest ||
      stored.record.planDigest === legacyDigest
    )
      continue;
    const recorded = recordedFields(stored.record);
    const issues: Issue[] = Object.keys(now)
      .filter((field) => canonicalOrUndefined(recorded[field]) !== canonicalOrUndefined(now[field]))
      .map((field) => ({
        code: 'campaign_plan_differs',
        message: `campaign ${plan.campaignId} is recorded in the ledger with another ${field}`,
        component: field,
        expected: recorded[field],
        received: now[field],
      }));
    if (issues.length === 0)
      issues.push({
        code: 'campaign_plan_differs',
        message: `campaign ${plan.campaignId} is recorded in the ledger with another plan (its planned attempts)`,
        component: 'planDigest',
        expected: stored.record.planDigest,
        received: digest,
      });
    throw conflict(plan, issues);
  }
}

/**
 * Refuses (paperclip_campaign_record_conflict) a held try that ran another lane or case definition than the
 * one planned — its case or config digest, or its session's provider, model or lane profile — or on
 * another release than the one joined now (its runnerd digest, its package version): a campaign is
 * one release, and a rerun on another never takes the old one's outcomes as its own. A try that
 * names no release (upstream's artifact for a missing cell: nothing ran) is not judged by it.
 */
export function assertHeldTryOfPlan(
  plan: CampaignPlan,
  environment: Environment,
  attempt: PlannedAttempt,
  lane: Lane,
  held: StoredAttempt,
  release: {
    readonly packageVersion: string;
    readonly runnerdSha256: string;
    /** The join's receipt: the version negotiated, the build metadata's (upstream's differs from package.json's). */
    readonly receipt?: { readonly packageVersion: string };
  },
): void {
  const record = held.record;
  const caseSha256 = environment.cases.find((entry) => entry.id === attempt.caseId)?.sha256;
  const ranOn = record.evalSession?.runnerdSha256 ?? record.runner.binarySha256;
  const checks: [string, unknown, unknown][] = [
    ...(ranOn === ''
      ? []
      : ([['runnerdSha256', release.runnerdSha256, ranOn]] as [string, unknown, unknown][])),
    ...(record.runner.packageVersion === ''
      ? []
      : ([
          [
            'packageVersion',
            // The release's version is its package.json's or its build metadata's: a bundle may state either.
            record.runner.packageVersion === release.receipt?.packageVersion
              ? release.receipt.packageVersion
              : release.packageVersion,
            record.runner.packageVersion,
          ],
        ] as [string, unknown, unknown][])),
    ['caseSha256', caseSha256, record.caseSha256],
    ['configSha256', lane.configSha256, record.configSha256],
    ...(record.evalSession === undefined
      ? []
      : ([
          ['provider', lane.provider, record.evalSession.provider],
          ['model', lane.model, record.evalSession.requestedModel],
        ] as [string, unknown, unknown][])),
    // The lane's profile (its per-provider fields and flags) as the campaign stated it in the try's
    // artifact (evalCase.laneProfileSha256; absent: none). A bare bundle states none: a lane with a
    // profile cannot be shown to be what it ran.
    [
      'laneProfileSha256',
      lane.profile?.sha256 ?? null,
      record.evalSession === undefined
        ? lane.profile === undefined
          ? null
          : 'unknown (a native bundle alone states no lane profile)'
        : (record.evalSession.artifact.evalCase?.laneProfileSha256 ?? null),
    ],
  ];
  const issues: Issue[] = checks
    .filter(([, planned, ran]) => planned !== ran)
    .map(([field, planned, ran]) => ({
      code: 'campaign_held_try_differs',
      message: `the ledger's try ${held.key.attemptId} of campaign ${plan.campaignId} ran another ${field} than this plan's (lane ${lane.id}, case ${attempt.caseId}): it is not this plan's result`,
      component: field,
      expected: planned,
      received: ran,
    }));
  if (issues.length > 0) throw conflict(plan, issues);
}
