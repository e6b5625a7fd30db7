// The campaign record, evals-campaign/v1 (schemas/evals/campaign-v1.schema.json): what ran, at which
// suite revision, with which release, each planned attempt's outcome in the taxonomy, tries and
// retry cost, cost provider-reported and estimated kept apart with coverage, complete or partial
// and why. A shard writes the same record for its slice (`shard` set); `mergeCampaignRecords`
// combines every shard of one plan, a missing shard's attempts recorded with the infrastructure
// class `ci_cell_artifact_missing` and counted apart, as not run (`totals.notRunShardMissing`). A campaign id names one campaign: writing a record where another
// one of the same id but another suite, release or plan is recorded is refused.

import { existsSync } from 'node:fs';

import {
  DEFAULT_MAX_INPUT_BYTES,
  displayLocator,
  instantMs,
  isContractError,
  readJsonText,
  schemaIssuesOf,
} from '@paperclip-evals/contract';
import { attemptVerdict, openStore } from '@paperclip-evals/evalbook';
import { readRegularFile, writeOutputFile } from '@paperclip-evals/node';

import { CampaignError } from './errors.js';
import { planDigest, recordedLanes } from './plan.js';
import { NATIVE_BUNDLE_ABSENT } from './execute.js';
import { CAMPAIGN_FAILURE_CLASSES, UNKNOWN_COST } from './try-outcome.js';

import type { CompatibilityReceipt, Issue } from '@paperclip-evals/contract';
import type { AttemptKey, CampaignRecordOutcome, StoredAttempt } from '@paperclip-evals/evalbook';

import type { AttemptOutcome, Disposition, ExecuteResult, StopReason } from './execute.js';
import type { Join } from './join.js';
import type { CampaignPlan, CaseDefinition, PlannedAttempt, RecordedLane, Shard } from './plan.js';

export const CAMPAIGN_RECORD_V1 = 'evals-campaign/v1';
export const CAMPAIGN_RECORD_V1_SCHEMA_ID = 'https://paperclip-evals.dev/schemas/campaign/v1.json';

export type PartialReason =
  'lane_subset' | 'case_subset' | 'budget_stop' | 'interrupted' | 'shard' | 'shard_missing';

export interface CampaignTotals {
  readonly planned: number;
  readonly passed: number;
  readonly behaviorFailures: number;
  readonly gradingEvidenceFailures: number;
  /** Attempts that ran (or were meant to) and failed for their infrastructure; never a missing shard's. */
  readonly infrastructureFailures: number;
  readonly notRunBudget: number;
  readonly notRunStopped: number;
  /**
   * A merge's attempts of the shards that left no record (class ci_cell_artifact_missing): never
   * run, so not among infrastructureFailures. Records written before it counted them there.
   */
  readonly notRunShardMissing: number;
  /** Attempts the ledger already held (a resumed campaign): not run again. */
  readonly resumed: number;
  readonly tries: number;
  readonly retries: number;
  /** Attempts recorded from a success artifact with no native bundle (reasonCode native_bundle_absent). */
  readonly withoutNativeEvidence: number;
}

export interface CampaignCost {
  /**
   * Sums of the known figures of each kind, over every try (a resumed attempt once); kept apart,
   * never added to each other. A try whose figure is unknown adds nothing and is not counted in
   * the kind's `…Tries`: a sum with no known figure is `0` with `…Tries: 0`, which says "none
   * known" (never "$0"), so read each sum with its count.
   */
  readonly providerReportedNanodollars: number;
  readonly estimatedNanodollars: number;
  readonly legacyLedgerNanodollars: number;
  /**
   * How many of the figures counted (coverage.priced + coverage.unpriced: each try, a resumed
   * attempt once) had a provider-reported, an estimated, a legacy ledger figure. Optional: records
   * written before these were counted are valid without them.
   */
  readonly providerReportedTries?: number;
  readonly estimatedTries?: number;
  readonly legacyLedgerTries?: number;
  /** What the budget counted: per try provider-reported where present, else the estimate. */
  readonly observedNanodollars: number;
  /** Of that, the tries after the first of each attempt. */
  readonly retryObservedNanodollars: number;
  /** Tries (and resumed attempts) with an observed figure, and without one (unknown, never 0). */
  readonly coverage: { readonly priced: number; readonly unpriced: number };
  readonly ceilingNanodollars: number | null;
}

export interface CampaignRecord {
  readonly schema: typeof CAMPAIGN_RECORD_V1;
  readonly campaignId: string;
  /** canonical sha256 of the environment: the suite revision. */
  readonly suiteFingerprint: string;
  /** sha256 of the plan (ids, lanes, cases, settings): every shard of one campaign has the same. */
  readonly planDigest: string;
  readonly package: { readonly name: string; readonly version: string };
  readonly runnerd: { readonly sha256: string };
  readonly receipt: CompatibilityReceipt;
  /** Each lane's provider, model, driver and, when it has one, its profile (sha256 and label). */
  readonly lanes: readonly RecordedLane[];
  readonly lanesLeftOut: readonly string[];
  readonly cases: readonly string[];
  /**
   * Each case's prompt and description as the environment gave them: what a published attempt page
   * shows of its case (issue 19). Optional: records written before it are valid without it. Not in
   * planDigest or suiteFingerprint.
   */
  readonly caseDefinitions?: readonly CaseDefinition[];
  readonly settings: CampaignPlan['settings'];
  /** null: the whole plan; else this record's slice (K of N). */
  readonly shard: Shard | null;
  readonly shardCount: number;
  /** The whole plan (every shard's attempts, in plan order): what a merge knows a missing shard by. */
  readonly plan: readonly PlannedAttempt[];
  /** Every planned attempt was decided and none stopped early, over the full selection. */
  readonly complete: boolean;
  readonly partial: readonly PartialReason[];
  readonly allPassed: boolean;
  readonly totals: CampaignTotals;
  readonly cost: CampaignCost;
  readonly attempts: readonly AttemptOutcome[];
  readonly timing: { readonly startedAt: string; readonly finishedAt: string; readonly durationMs: number };
}

function totalsOf(attempts: readonly AttemptOutcome[]): CampaignTotals {
  const count = (disposition: Disposition): number =>
    attempts.filter((attempt) => attempt.disposition === disposition).length;
  const tries = attempts.reduce((sum, attempt) => sum + attempt.tries.length, 0);
  const shardMissing = attempts.filter(isShardMissing).length;
  return {
    planned: attempts.length,
    passed: count('passed'),
    behaviorFailures: count('behavior_failure'),
    gradingEvidenceFailures: count('grading_evidence_failure'),
    infrastructureFailures: count('infrastructure_failure') - shardMissing,
    notRunBudget: count('not_run_budget'),
    notRunStopped: count('not_run_stopped'),
    notRunShardMissing: shardMissing,
    resumed: attempts.filter((attempt) => attempt.resumed).length,
    tries,
    retries: attempts.reduce((sum, attempt) => sum + Math.max(0, attempt.tries.length - 1), 0),
    withoutNativeEvidence: attempts.filter((attempt) => attempt.reasonCode === NATIVE_BUNDLE_ABSENT).length,
  };
}

/**
 * A merge's attempt of a shard that left no record (missingShardAttempts): class
 * ci_cell_artifact_missing with no try and not resumed. An attempt that ran and left upstream's
 * missing-cell artifact has the same class but a try: a real infrastructure failure.
 */
export function isShardMissing(attempt: AttemptOutcome): boolean {
  return (
    attempt.infrastructureFailure?.class === 'ci_cell_artifact_missing' &&
    attempt.tries.length === 0 &&
    !attempt.resumed
  );
}

/**
 * A total over figures some of which may be unknown (null): the sum of the known ones and how many
 * were known and unknown — never an unknown figure read as 0 (the project's rule: unknown is not zero).
 */
export interface FigureTotal {
  readonly nanodollars: number;
  readonly known: number;
  readonly unknown: number;
}

export function figureTotal(figures: Iterable<number | null>): FigureTotal {
  let nanodollars = 0;
  let known = 0;
  let unknown = 0;
  for (const figure of figures) {
    if (figure === null) unknown++;
    else {
      known++;
      nanodollars += figure;
    }
  }
  return { nanodollars, known, unknown };
}

function costOf(attempts: readonly AttemptOutcome[], ceiling: number | null): CampaignCost {
  const costs = attempts.flatMap((attempt) =>
    attempt.resumed ? [attempt.cost] : attempt.tries.map((entry) => entry.cost),
  );
  const retries = attempts.flatMap((attempt) =>
    attempt.resumed ? [] : attempt.tries.slice(1).map((entry) => entry.cost),
  );
  const provider = figureTotal(costs.map((cost) => cost.providerReportedNanodollars));
  const estimated = figureTotal(costs.map((cost) => cost.estimatedNanodollars));
  const legacy = figureTotal(costs.map((cost) => cost.legacyLedgerNanodollars));
  const observed = figureTotal(costs.map((cost) => cost.observedNanodollars));
  return {
    providerReportedNanodollars: provider.nanodollars,
    estimatedNanodollars: estimated.nanodollars,
    legacyLedgerNanodollars: legacy.nanodollars,
    providerReportedTries: provider.known,
    estimatedTries: estimated.known,
    legacyLedgerTries: legacy.known,
    observedNanodollars: observed.nanodollars,
    retryObservedNanodollars: figureTotal(retries.map((cost) => cost.observedNanodollars)).nanodollars,
    coverage: { priced: observed.known, unpriced: observed.unknown },
    ceilingNanodollars: ceiling,
  };
}

function partialOf(
  plan: CampaignPlan,
  shard: Shard | null,
  stopped: StopReason | null,
  attempts: readonly AttemptOutcome[],
): PartialReason[] {
  const reasons: PartialReason[] = [];
  if (!plan.allEnabledLanes) reasons.push('lane_subset');
  if (!plan.allCases) reasons.push('case_subset');
  if (
    stopped === 'budget' ||
    stopped === 'budget_unproven' ||
    attempts.some((a) => a.disposition === 'not_run_budget')
  )
    reasons.push('budget_stop');
  if (stopped === 'interrupted' || attempts.some((a) => a.disposition === 'not_run_stopped'))
    reasons.push('interrupted');
  if (shard !== null) reasons.push('shard');
  if (attempts.some(isShardMissing)) reasons.push('shard_missing');
  return [...new Set(reasons)];
}

function assemble(
  base: Omit<CampaignRecord, 'complete' | 'partial' | 'allPassed' | 'totals' | 'cost'>,
  plan: CampaignPlan,
  stopped: StopReason | null,
): CampaignRecord {
  const partial = partialOf(plan, base.shard, stopped, base.attempts);
  const totals = totalsOf(base.attempts);
  const record: CampaignRecord = {
    ...base,
    complete: partial.length === 0,
    partial,
    allPassed: partial.length === 0 && totals.passed === totals.planned,
    totals,
    cost: costOf(base.attempts, plan.settings.maxCostNanodollars),
  };
  assertCampaignRecord(record);
  return record;
}

/** The record of a run (the whole plan, or one shard of it). */
export function campaignRecord(
  plan: CampaignPlan,
  join: Join,
  shard: Shard | null,
  result: ExecuteResult,
): CampaignRecord {
  return assemble(
    {
      schema: CAMPAIGN_RECORD_V1,
      campaignId: plan.campaignId,
      suiteFingerprint: plan.suiteFingerprint,
      planDigest: planDigest(plan),
      package: { name: join.packageName, version: join.packageVersion },
      runnerd: { sha256: join.runnerdSha256 },
      receipt: join.receipt,
      lanes: recordedLanes(plan),
      lanesLeftOut: plan.lanesLeftOut,
      cases: plan.cases,
      caseDefinitions: plan.caseDefinitions,
      settings: plan.settings,
      shard,
      shardCount: plan.shardCount,
      plan: plan.attempts,
      attempts: result.attempts,
      timing: {
        startedAt: result.startedAt,
        finishedAt: result.finishedAt,
        durationMs: Math.max(0, instantMs(result.finishedAt) - instantMs(result.startedAt)),
      },
    },
    plan,
    result.stopped,
  );
}

/** Every way `value` is not an evals-campaign/v1 record ([] when it is one). */
export function campaignRecordIssues(value: unknown): Issue[] {
  return schemaIssuesOf(CAMPAIGN_RECORD_V1_SCHEMA_ID, value, () => 'schema_violation');
}

function assertCampaignRecord(record: CampaignRecord): void {
  const issues = campaignRecordIssues(JSON.parse(JSON.stringify(record)));
  if (issues.length > 0)
    throw new Error(`internal: the campaign record breaks its schema: ${JSON.stringify(issues.slice(0, 5))}`);
}

/** What makes two records the same campaign (and the same slice of it). */
export type CampaignIdentity = Pick<
  CampaignRecord,
  'campaignId' | 'suiteFingerprint' | 'planDigest' | 'package' | 'runnerd' | 'shard'
>;

/** The identity a run of `plan` with `join` records (checked against --out before anything runs). */
export function campaignIdentity(plan: CampaignPlan, join: Join, shard: Shard | null): CampaignIdentity {
  return {
    campaignId: plan.campaignId,
    suiteFingerprint: plan.suiteFingerprint,
    planDigest: planDigest(plan),
    package: { name: join.packageName, version: join.packageVersion },
    runnerd: { sha256: join.runnerdSha256 },
    shard,
  };
}

/** The part of the identity known before the join (the plan): what `evals run` checks first. */
export type PlanIdentity = Pick<CampaignIdentity, 'campaignId' | 'suiteFingerprint' | 'planDigest' | 'shard'>;

export function planIdentity(plan: CampaignPlan, shard: Shard | null): PlanIdentity {
  return {
    campaignId: plan.campaignId,
    suiteFingerprint: plan.suiteFingerprint,
    planDigest: planDigest(plan),
    shard,
  };
}

/**
 * Each plan identity field a recorded campaign (a record as the ledger keeps it, read as untrusted
 * JSON) disagrees on with `now`: the recorded value and this run's.
 */
export function planIdentityDifferences(
  recorded: Readonly<Record<string, unknown>>,
  now: PlanIdentity,
): { field: string; recorded: string; now: string }[] {
  const shard: unknown = recorded.shard;
  const part = (key: keyof Shard): string =>
    JSON.stringify((shard as Partial<Record<keyof Shard, unknown>>)[key] ?? null);
  const shardText =
    shard === null
      ? 'the whole campaign'
      : typeof shard === 'object'
        ? `shard ${part('index')}/${part('count')}`
        : `not a shard (${typeof shard})`;
  const before: Record<string, string> = {
    suiteFingerprint: String(recorded.suiteFingerprint),
    planDigest: String(recorded.planDigest),
    shard: shardText,
  };
  const after: Record<string, string> = {
    suiteFingerprint: now.suiteFingerprint,
    planDigest: now.planDigest,
    shard: now.shard === null ? 'the whole campaign' : `shard ${now.shard.index}/${now.shard.count}`,
  };
  return Object.keys(before)
    .filter((field) => before[field] !== after[field])
    .map((field) => ({ field, recorded: before[field] ?? '', now: after[field] ?? '' }));
}

/** Reads a campaign (or shard) record file, fail closed. */
export async function readCampaignRecord(path: string): Promise<CampaignRecord> {
  let bytes: Buffer;
  try {
    // Its size before a byte is read: over the JSON text limit, input_too_large (not read).
    bytes = await readRegularFile(path, { maxBytes: DEFAULT_MAX_INPUT_BYTES });
  } catch (error) {
    if (isContractError(error))
      throw new CampaignError(
        'paperclip_campaign_record_invalid',
        `${path} is not an evals-campaign/v1 record`,
        error.issues.map((issue) => ({ ...issue, message: `${path}: ${issue.message}` })),
      );
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new CampaignError('paperclip_campaign_record_invalid', `cannot read ${path} (${code})`, [
      {
        code: 'campaign_record_unreadable',
        message: `${path}: ${code}`,
        path,
        expected: 'a readable evals-campaign/v1 record',
        received: code,
      },
    ]);
  }
  const parsed = readJsonText(bytes);
  const issues = parsed.ok ? campaignRecordIssues(parsed.value) : parsed.issues;
  if (issues.length > 0 || !parsed.ok)
    throw new CampaignError(
      'paperclip_campaign_record_invalid',
      `${path} is not an evals-campaign/v1 record`,
      issues.map((issue) => ({ ...issue, message: `${path}: ${issue.message}` })),
    );
  return parsed.value as CampaignRecord;
}

/**
 * Writes the record atomically (contract's writeOutputFile). Where a record of the same campaign id
 * is already recorded for another suite, release, plan or shard, nothing is written: a campaign id
 * names one campaign (a rerun of the same campaign replaces its record with the newer one).
 */
export async function writeCampaignRecord(path: string, record: CampaignRecord): Promise<void> {
  await assertRecordable(path, record);
  await writeOutputFile(path, (write) => write(`${JSON.stringify(record, null, 2)}\n`));
}

/**
 * Refuses (paperclip_campaign_record_conflict) when `path` holds a record of the same campaign id for another
 * suite, release, plan or shard (before the join: the plan's fields only); anything else there is
 * writeOutputFile's to judge.
 */
export async function assertRecordable(
  path: string,
  identity: CampaignIdentity | PlanIdentity,
): Promise<void> {
  const existing = await readCampaignRecord(path).catch(() => null);
  if (existing === null || existing.campaignId !== identity.campaignId) return;
  const differences = identityDifferences(existing, identity);
  if (differences.length === 0) return;
  throw new CampaignError(
    'paperclip_campaign_record_conflict',
    `${path} records campaign ${identity.campaignId} with another ${differences.map((d) => d.field).join(', ')}: write this run's record to another --out, or run it under a new --campaign id (nothing was written)`,
    differences.map((difference) => ({
      code: 'campaign_id_reused',
      message: `campaign ${identity.campaignId} is recorded there with another ${difference.field}: a campaign id names one campaign`,
      path: `${path}#/${difference.field}`,
      expected: difference.recorded,
      received: difference.now,
    })),
  );
}

/**
 * Each identity field two records disagree on, readably: the recorded value and this run's (only
 * the fields `now` has: before the join, the plan's).
 */
function identityDifferences(
  recorded: CampaignIdentity,
  now: CampaignIdentity | PlanIdentity,
): { field: string; recorded: string; now: string }[] {
  const shown = (identity: CampaignIdentity | PlanIdentity): Record<string, string> => ({
    suiteFingerprint: identity.suiteFingerprint,
    planDigest: identity.planDigest,
    ...('package' in identity ? { package: `${identity.package.name}@${identity.package.version}` } : {}),
    ...('runnerd' in identity ? { runnerd: identity.runnerd.sha256 } : {}),
    shard:
      identity.shard === null
        ? 'the whole campaign'
        : `shard ${identity.shard.index}/${identity.shard.count}`,
  });
  const after = shown(now);
  const before = Object.fromEntries(
    Object.entries(shown(recorded)).filter(([field]) => Object.hasOwn(after, field)),
  );
  return Object.keys(before)
    .filter((field) => before[field] !== after[field])
    .map((field) => ({ field, recorded: before[field] ?? '', now: after[field] ?? '' }));
}

/**
 * Whether a run's record goes into the ledger: a whole campaign (a shard's record is the merge's to
 * combine) that was not interrupted (an interrupted run is resumed under the same id, and its
 * resumed record is the one recorded). A budget stop or a lane/case subset is recorded: partial,
 * and says why; its resumed record is recorded beside it and supersedes it.
 */
export function isLedgerRecord(record: CampaignRecord): boolean {
  return record.shard === null && !record.partial.includes('interrupted');
}

/**
 * What became of a record sent to the ledger: recorded (the campaign's first) · revised (appended
 * beside the campaign's earlier record of the same plan — a resumed campaign's; the newest is the
 * campaign's current state, and the earlier ones stay) · duplicate (the same record was there).
 */
export type LedgerRecordOutcome = CampaignRecordOutcome;

/**
 * Appends the record to the ledger at `storeUrl` (issue 19: `evals publish` reads campaigns from
 * there): the same record again is a no-op, a newer record of the same campaign and plan is kept
 * beside the earlier ones (issue 18: a budget-stopped campaign resumed to completion publishes
 * complete), and a record of another plan under the same campaign id is refused (the store's coded
 * paperclip_evalbook_campaign_conflict, nothing written).
 */
export async function storeCampaignRecord(
  storeUrl: string,
  record: CampaignRecord,
): Promise<LedgerRecordOutcome> {
  const store = await openStore(storeUrl);
  try {
    return await store.recordCampaign({ campaignId: record.campaignId, record: asJson(record) });
  } finally {
    await store.close();
  }
}

/**
 * Refuses (paperclip_campaign_record_conflict) before anything is written when the ledger at `storeUrl` already
 * records the campaign id for another plan — what storeCampaignRecord would refuse after `--out` was
 * written. A SQLite store that is not there yet holds nothing, so nothing conflicts.
 */
/** What the ledger holds of one attempt, as the scoring reads it. */
export type LedgerAttemptLookup = (key: AttemptKey) => Promise<{
  readonly record: Parameters<typeof attemptVerdict>[0];
  readonly scores: StoredAttempt['scores'];
} | null>;

/**
 * Where a (merged) record's dispositions disagree with the attempts a ledger holds: a record is
 * never trusted over the ledger it is stored beside. For each attempt whose final try the ledger
 * holds, its verdict as the ledger derives it (attemptVerdict over the stored record and scores, as
 * a resumed campaign reads a held try): an attempt the record says passed must be solved there, and
 * one it says is a behaviour failure must not be (a shard record edited from behavior_failure to
 * passed, or the other way). Each disagreement is a shard_store_conflict at the attempt's pointer in
 * the record; a try the ledger does not hold is not judged here (mergeShardStores requires each).
 */
export async function ledgerDispositionIssues(
  record: CampaignRecord,
  lookup: LedgerAttemptLookup,
  where: string,
): Promise<Issue[]> {
  const issues: Issue[] = [];
  for (const [index, attempt] of record.attempts.entries()) {
    if (attempt.finalAttemptId === null) continue;
    if (attempt.disposition !== 'passed' && attempt.disposition !== 'behavior_failure') continue;
    const stored = await lookup({
      runId: record.campaignId,
      caseId: attempt.caseId,
      configId: attempt.laneId,
      attemptId: attempt.finalAttemptId,
    });
    if (stored === null) continue;
    const status = attemptVerdict(stored.record, stored.scores).status;
    const agrees = attempt.disposition === 'passed' ? status === 'solved' : status !== 'solved';
    if (agrees) continue;
    issues.push({
      code: 'shard_store_conflict',
      message: `attempt ${attempt.finalAttemptId} (${attempt.caseId} × ${attempt.laneId}) is ${attempt.disposition} in the shard record but ${status} in ${where}: a record never overrides the ledger (nothing was written; merge the shard records the campaign wrote)`,
      path: `/attempts/${index}/disposition`,
      expected: `${status === 'solved' ? 'passed' : 'not passed'} (the ledger's verdict: ${status})`,
      received: attempt.disposition,
    });
  }
  return issues;
}

export async function assertLedgerRecordable(storeUrl: string, record: CampaignRecord): Promise<void> {
  if (storeUrl.startsWith('sqlite:') && !existsSync(storeUrl.slice('sqlite:'.length))) return;
  const store = await openStore(storeUrl, { mustExist: true });
  try {
    const where = displayLocator(storeUrl);
    const disagreements = await ledgerDispositionIssues(record, (key) => store.getAttempt(key), where);
    if (disagreements.length > 0)
      throw new CampaignError(
        'paperclip_campaign_record_conflict',
        `the shard records disagree with the ledger ${where}: nothing was written`,
        disagreements,
      );
    const other = (await store.campaigns()).find(
      (entry) => entry.campaignId === record.campaignId && entry.record.planDigest !== record.planDigest,
    );
    if (other === undefined) return;
    throw new CampaignError(
      'paperclip_campaign_record_conflict',
      `the ledger already records campaign ${JSON.stringify(record.campaignId)} for another plan: a campaign id names one campaign (nothing was written; merge into another store, or run it again under a new --campaign id)`,
      [
        {
          code: 'campaign_id_reused',
          message: `campaign ${JSON.stringify(record.campaignId)} is recorded with plan digest ${String(other.record.planDigest)} (record ${other.recordDigest})`,
          path: '/planDigest',
          expected: `plan digest ${String(other.record.planDigest)} (the campaign recorded), or a new campaign id`,
          received: `plan digest ${record.planDigest}`,
        },
      ],
    );
  } finally {
    await store.close();
  }
}

const asJson = (record: CampaignRecord): Record<string, unknown> =>
  JSON.parse(JSON.stringify(record)) as Record<string, unknown>;

/**
 * Combines the shard records of one campaign (same id, suite, release, plan; each shard once) into
 * the campaign's record. A shard with no record: each of its planned attempts is an infrastructure
 * failure of class ci_cell_artifact_missing (upstream's), and the record is partial.
 */
export function mergeCampaignRecords(
  shards: readonly { path: string; record: CampaignRecord }[],
): CampaignRecord {
  const issues: Issue[] = [];
  const first = shards[0];
  if (first === undefined)
    throw new CampaignError('paperclip_campaign_record_invalid', 'no shard record to merge', [
      {
        code: 'shards_none',
        message: 'evals merge needs shard records',
        path: '',
        expected: 'one or more',
        received: 'none',
      },
    ]);
  // What every shard of one campaign shares, readably (the field, and its value as a person reads it).
  const shared = (record: CampaignRecord): Record<string, string> => ({
    campaignId: record.campaignId,
    suiteFingerprint: record.suiteFingerprint,
    planDigest: record.planDigest,
    package: `${record.package.name}@${record.package.version}`,
    runnerd: record.runnerd.sha256,
    shardCount: String(record.shardCount),
  });
  const differences = (record: CampaignRecord): [string, string, string][] => {
    const want = shared(first.record);
    return Object.entries(shared(record))
      .filter(([field, value]) => want[field] !== value)
      .map(([field, value]) => [field, want[field] ?? '', value]);
  };
  const byIndex = new Map<number, { path: string; record: CampaignRecord }>();
  for (const shard of shards) {
    const { record, path } = shard;
    if (record.shard === null)
      issues.push({
        code: 'shard_record_expected',
        message: `${path} is a whole campaign, not a shard`,
        path,
        expected: 'a record written with --shard K/N',
        received: 'shard: null',
      });
    else if (differences(record).length > 0)
      issues.push(
        ...differences(record).map(([field, expected, received]) => ({
          code: 'shard_conflict',
          message: `${path} is a shard of another campaign, suite, release or plan: its ${field} is not ${first.path}'s`,
          path: `${path}#/${field}`,
          expected,
          received,
        })),
      );
    else if (byIndex.has(record.shard.index))
      issues.push({
        code: 'shard_duplicate',
        message: `${path} and ${byIndex.get(record.shard.index)?.path ?? ''} are both shard ${record.shard.index}/${record.shard.count}`,
        path,
        expected: 'each shard once',
        received: `shard ${record.shard.index} twice`,
      });
    else byIndex.set(record.shard.index, shard);
  }
  if (issues.length > 0)
    throw new CampaignError('paperclip_campaign_record_conflict', 'the shard records do not merge', issues);
  const base = first.record;
  const attempts: AttemptOutcome[] = [];
  for (let index = 1; index <= base.shardCount; index++) {
    const shard = byIndex.get(index);
    if (shard !== undefined) {
      attempts.push(...shard.record.attempts);
      continue;
    }
    // The planned attempts of the missing shard: known from the plan every shard shares.
    attempts.push(...missingShardAttempts(base, index));
  }
  const planOrder = plannedOrder(base);
  attempts.sort((a, b) => (planOrder.get(a.attemptId) ?? 0) - (planOrder.get(b.attemptId) ?? 0));
  const records = [...byIndex.values()].map((shard) => shard.record);
  const startedAt = records.map((record) => record.timing.startedAt).sort()[0] ?? base.timing.startedAt;
  const finishedAt =
    records
      .map((record) => record.timing.finishedAt)
      .sort()
      .at(-1) ?? base.timing.finishedAt;
  const planShape: CampaignPlan = {
    campaignId: base.campaignId,
    suiteFingerprint: base.suiteFingerprint,
    lanes: [],
    lanesLeftOut: base.lanesLeftOut,
    cases: base.cases,
    caseDefinitions: [],
    allEnabledLanes: !base.partial.includes('lane_subset'),
    allCases: !base.partial.includes('case_subset'),
    settings: base.settings,
    attempts: [],
    shardCount: base.shardCount,
  };
  // One suite (the shards' fingerprint is one): every shard that carries the cases carries the same.
  const caseDefinitions = records.find((record) => record.caseDefinitions !== undefined)?.caseDefinitions;
  const stopped = records.some((record) => record.partial.includes('budget_stop'))
    ? 'budget'
    : records.some((record) => record.partial.includes('interrupted'))
      ? 'interrupted'
      : null;
  return assemble(
    {
      ...base,
      ...(caseDefinitions === undefined ? {} : { caseDefinitions }),
      shard: null,
      attempts,
      timing: {
        startedAt,
        finishedAt,
        durationMs: Math.max(0, instantMs(finishedAt) - instantMs(startedAt)),
      },
    },
    planShape,
    stopped,
  );
}

/** The plan's attempts (ids, lanes, cases, shards) as every shard record carries them. */
function plannedOrder(record: CampaignRecord): Map<string, number> {
  return new Map(record.plan.map((attempt, position) => [attempt.attemptId, position]));
}

function missingShardAttempts(record: CampaignRecord, shard: number): AttemptOutcome[] {
  return record.plan
    .filter((attempt) => attempt.shard === shard)
    .map((attempt) => ({
      ...attempt,
      disposition: 'infrastructure_failure' as const,
      reason: `shard ${shard}/${record.shardCount} left no record (a CI cell without its artifact)`,
      infrastructureFailure: {
        class: 'ci_cell_artifact_missing',
        ...CAMPAIGN_FAILURE_CLASSES.ci_cell_artifact_missing,
      },
      tries: [],
      finalAttemptId: null,
      resumed: false,
      cost: UNKNOWN_COST,
    }));
}
