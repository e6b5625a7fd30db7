// The campaign plan: which attempts a campaign runs, decided from the suite (evalbook.yaml) and the
// flags alone, the same on every machine. Lanes are the configs with a `lane`; `all` means the
// enabled ones and a disabled lane runs only when named. Every (lane, case, attempt index) gets a
// stable attempt id derived from the campaign id, so a rerun, a resume and every CI matrix cell
// agree on it; `--shard K/N` takes every N-th attempt of that one order (upstream's round robin).
import { canonicalDigest, pointer, sha256Digest } from '@paperclip-evals/contract';

import { CampaignError } from './errors.js';

import type { Issue } from '@paperclip-evals/contract';
import type { Environment, EnvironmentCase, EnvironmentConfig } from '@paperclip-evals/evalbook';

type EnvironmentLane = NonNullable<EnvironmentConfig['lane']>;

/** Upstream's safe id (campaign, lane and case ids): alphanumeric first, then [A-Za-z0-9._-], ≤ 200. */
export const CAMPAIGN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;
/** Upstream's bounds of max_infrastructure_retries. */
export const MAX_INFRASTRUCTURE_RETRIES = 3;
export const DEFAULT_INFRASTRUCTURE_RETRIES = 1;
export const DEFAULT_ATTEMPTS = 1;
const NANODOLLARS_PER_USD = 1_000_000_000;

/** The request's limits (upstream's names: positive safe integers). */
export interface AttemptLimits {
  readonly turnTimeoutMs: number;
  readonly maxAgentTurns: number;
  readonly maxEstimatedCostNanodollars: number;
}

export interface Lane {
  /** The config id. */
  readonly id: string;
  readonly configSha256: string;
  readonly provider: string;
  readonly model: string;
  /** null: none sent (the eval-session derives it from the provider). */
  readonly driver: string | null;
  readonly enabled: boolean;
  readonly limits: AttemptLimits;
  /** The lane's per-provider fields and flags (absent: it has none, and its request carries none). */
  readonly profile?: LaneProfile;
}

/**
 * What a lane adds to every request and eval-session start of its provider, as upstream's request
 * parser and bin read them (docs/campaigns.md): request fields under upstream's names (acpxAgent,
 * opencodeVersion, managedProfile, agentCoreProfile) and bin flags (--candidate-profile,
 * --expected-acpx-profile). Part of the lane's identity: the plan digest, the campaign record and a
 * held try's check carry its sha256, so a changed profile never reuses an old outcome.
 */
export interface LaneProfile {
  readonly request: Readonly<Record<string, unknown>>;
  /** After --request R --output O, in this order. */
  readonly args: readonly string[];
  /** canonical sha256 of {request, args}. */
  readonly sha256: string;
  /** What a record, a plan and a grid show of it: names and versions, never a whole profile. */
  readonly label: string;
}

/** The lane fields upstream's eval-session reads, each taken by one provider only. */
export const LANE_PROVIDER_FIELDS = Object.freeze({
  acpx_agent: 'acpx',
  candidate_profile: 'acpx',
  expected_acpx_profile: 'acpx',
  opencode_version: 'opencode',
  managed_profile: 'claude_managed',
  agent_core_profile: 'aws_agentcore',
} as const);
/** Providers upstream's request parser refuses (exit 1, no session) without their profile. */
const REQUIRED_PROFILE: Readonly<Record<string, keyof typeof LANE_PROVIDER_FIELDS>> = Object.freeze({
  claude_managed: 'managed_profile',
  aws_agentcore: 'agent_core_profile',
});
/** Upstream's candidate ACPX agents; all but cursor need the bin's --candidate-profile. */
const CANDIDATE_ACPX_AGENTS: readonly string[] = ['pi', 'cursor', 'copilot', 'hermes'];
/** Upstream's bound of --expected-acpx-profile (bytes of its JSON). */
export const EXPECTED_ACPX_PROFILE_MAX_BYTES = 4096;
const INT32_MAX = 2_147_483_647;

export interface PlannedAttempt {
  readonly attemptId: string;
  readonly laneId: string;
  readonly caseId: string;
  /** 1-based, per lane × case. */
  readonly index: number;
  /** 1-based shard of `shardCount` this attempt belongs to. */
  readonly shard: number;
}

/**
 * What a published attempt page shows of a case, as the environment gives it: its prompt (a case a
 * campaign runs has one) and its description (null: none). Carried by the campaign record
 * (`caseDefinitions`) so pages come from the ledger alone; never part of the plan digest (the
 * suite fingerprint already covers the environment they come from).
 */
export interface CaseDefinition {
  readonly id: string;
  readonly prompt: string;
  readonly description: string | null;
}

export interface Shard {
  readonly index: number;
  readonly count: number;
}

export interface CampaignSettings {
  readonly attempts: number;
  readonly maxInfrastructureRetries: number;
  /** null: no ceiling. */
  readonly maxCostNanodollars: number | null;
}

export interface CampaignPlan {
  readonly campaignId: string;
  /** canonical sha256 of the environment as loaded: the suite revision this campaign ran. */
  readonly suiteFingerprint: string;
  readonly lanes: readonly Lane[];
  /** Every lane id of the suite that was not selected (disabled and not named, or not named). */
  readonly lanesLeftOut: readonly string[];
  readonly cases: readonly string[];
  /** Each selected case's prompt and description, in `cases` order (not in planDigest). */
  readonly caseDefinitions: readonly CaseDefinition[];
  /** Whether every enabled lane was selected (a subset is diagnostic, never a "full campaign"). */
  readonly allEnabledLanes: boolean;
  /** Whether every case was selected. */
  readonly allCases: boolean;
  readonly settings: CampaignSettings;
  /** The whole plan, in its one order (lane, case, index), each attempt with its shard. */
  readonly attempts: readonly PlannedAttempt[];
  readonly shardCount: number;
}

export interface PlanOptions {
  readonly campaignId: string;
  /** 'all' (the default): every enabled lane. */
  readonly lanes?: 'all' | readonly string[];
  /** 'all' (the default): every case. */
  readonly cases?: 'all' | readonly string[];
  /** Shards of the plan (default 1). */
  readonly shardCount?: number;
  /** Wins over the environment's campaign.max_cost_usd. */
  readonly maxCostUsd?: number;
  /** Wins over the environment's campaign.attempts. */
  readonly attempts?: number;
}

/** The stable id of one planned attempt: the same campaign, lane, case and index give the same id. */
export function plannedAttemptId(campaignId: string, laneId: string, caseId: string, index: number): string {
  const hex = canonicalDigest([campaignId, laneId, caseId, index]).slice(
    'sha256:'.length,
    'sha256:'.length + 24,
  );
  return `att_${hex}`;
}

/** The id of try `n` (1-based) of an attempt: the first try is the attempt id itself. */
export function tryAttemptId(attemptId: string, tryNumber: number): string {
  return tryNumber === 1 ? attemptId : `${attemptId}-r${tryNumber - 1}`;
}

/** 1-based shard of the attempt at `position` of the plan: round robin, so shards differ by at most one. */
export function shardOf(position: number, shardCount: number): number {
  return (position % shardCount) + 1;
}

/** USD to integer nanodollars (rounded to the nearest nanodollar). */
export function usdToNanodollars(usd: number): number {
  return Math.round(usd * NANODOLLARS_PER_USD);
}

/** Parses `K/N` (1 ≤ K ≤ N ≤ 256). */
export function parseShard(text: string): Shard {
  const match = /^([1-9][0-9]*)\/([1-9][0-9]*)$/.exec(text);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (match === null || index > count || count > 256)
    throw new CampaignError('paperclip_campaign_suite_invalid', `--shard ${text} is not K/N`, [
      {
        code: 'shard_invalid',
        message: `--shard takes K/N with 1 ≤ K ≤ N ≤ 256 (this cell's number and the number of cells)`,
        path: '--shard',
        expected: 'K/N, e.g. 2/4',
        received: text,
      },
    ]);
  return { index, count };
}

function laneOf(config: EnvironmentConfig, at: number, issues: Issue[]): Lane | null {
  const lane = config.lane;
  if (lane === undefined) return null;
  const limits = config.limits;
  if (limits === undefined) {
    issues.push({
      code: 'lane_limits_missing',
      message: `lane ${config.id} has no limits: an eval-session request needs them`,
      path: pointer('configs', at, 'limits'),
      expected:
        'limits {turn_timeout_ms, max_agent_turns, max_estimated_cost_usd | max_estimated_cost_nanodollars}',
      received: 'none',
    });
    return null;
  }
  const cost = limits.max_estimated_cost_nanodollars ?? usdToNanodollars(limits.max_estimated_cost_usd ?? 0);
  const before = issues.length;
  const profile = laneProfileOf(config.id, lane, at, issues);
  if (issues.length > before) return null;
  return {
    id: config.id,
    configSha256: config.sha256,
    provider: lane.provider,
    model: lane.model ?? config.model,
    driver: lane.driver ?? null,
    enabled: lane.enabled ?? true,
    limits: {
      turnTimeoutMs: limits.turn_timeout_ms,
      maxAgentTurns: limits.max_agent_turns,
      maxEstimatedCostNanodollars: Math.max(1, cost),
    },
    ...(profile === null ? {} : { profile }),
  };
}

/**
 * The lane's per-provider fields checked as upstream's parser checks them (a lane it would refuse is
 * refused here, before any session starts), then as they are sent; null: the lane has none.
 */
function laneProfileOf(id: string, lane: EnvironmentLane, at: number, issues: Issue[]): LaneProfile | null {
  const path = (field: string): string => pointer('configs', at, 'lane', field);
  const given = (Object.keys(LANE_PROVIDER_FIELDS) as (keyof typeof LANE_PROVIDER_FIELDS)[]).filter(
    (field) => lane[field] !== undefined,
  );
  for (const field of given)
    if (LANE_PROVIDER_FIELDS[field] !== lane.provider)
      issues.push({
        code: 'lane_field_provider_mismatch',
        message: `lane ${id}: ${field} is for provider ${LANE_PROVIDER_FIELDS[field]} only (upstream's eval-session refuses it for ${lane.provider}, before any session)`,
        path: path(field),
        expected: `no ${field} for provider ${lane.provider}`,
        received: field,
      });
  const required = REQUIRED_PROFILE[lane.provider];
  if (required !== undefined && lane[required] === undefined)
    issues.push({
      code: 'lane_profile_missing',
      message: `lane ${id}: provider ${lane.provider} needs ${required} (upstream's eval-session exits 1 without it, writing no artifact)`,
      path: path(required),
      expected: `${required} {…} (docs/campaigns.md lists its fields)`,
      received: 'none',
    });
  const agentVersion = lane.managed_profile?.agentVersion;
  if (typeof agentVersion === 'string' && Number(agentVersion) > INT32_MAX)
    issues.push({
      code: 'lane_profile_invalid',
      message: `lane ${id}: managed_profile.agentVersion must be a canonical positive int32`,
      path: `${path('managed_profile')}/agentVersion`,
      expected: `1 to ${INT32_MAX}`,
      received: agentVersion,
    });
  if (lane.provider === 'acpx') {
    const agent = lane.acpx_agent;
    const candidate = lane.candidate_profile;
    // Ours, stricter than upstream (which runs codex when none is named): the agent is never a default.
    if (agent === undefined)
      issues.push({
        code: 'lane_acpx_agent_missing',
        message: `lane ${id}: an acpx lane names its agent (upstream's eval-session would run its default, codex, without saying so)`,
        path: path('acpx_agent'),
        expected: 'acpx_agent: codex | claude | grok | pi | cursor | copilot | hermes',
        received: 'none',
      });
    if (candidate !== undefined && candidate !== agent)
      issues.push({
        code: 'lane_candidate_profile_mismatch',
        message: `lane ${id}: candidate_profile must be the lane's own candidate acpx_agent`,
        path: path('candidate_profile'),
        expected:
          agent !== undefined && CANDIDATE_ACPX_AGENTS.includes(agent) ? agent : 'no candidate_profile',
        received: candidate,
      });
    if (
      agent !== undefined &&
      CANDIDATE_ACPX_AGENTS.includes(agent) &&
      agent !== 'cursor' &&
      candidate !== agent
    )
      issues.push({
        code: 'lane_candidate_profile_missing',
        message: `lane ${id}: acpx_agent ${agent} is a candidate ACPX profile: upstream's eval-session runs it only with --candidate-profile ${agent}`,
        path: path('candidate_profile'),
        expected: agent,
        received: candidate ?? 'none',
      });
    if (candidate !== undefined && lane.expected_acpx_profile === undefined)
      issues.push({
        code: 'lane_expected_acpx_profile_missing',
        message: `lane ${id}: --candidate-profile needs --expected-acpx-profile (upstream refuses the flag alone): give expected_acpx_profile, the built runner's ACPX profile`,
        path: path('expected_acpx_profile'),
        expected: 'expected_acpx_profile {…}',
        received: 'none',
      });
    const expectedBytes =
      lane.expected_acpx_profile === undefined
        ? 0
        : Buffer.byteLength(JSON.stringify(lane.expected_acpx_profile));
    if (expectedBytes > EXPECTED_ACPX_PROFILE_MAX_BYTES)
      issues.push({
        code: 'lane_expected_acpx_profile_too_large',
        message: `lane ${id}: expected_acpx_profile is ${expectedBytes} bytes as JSON; upstream's bound is ${EXPECTED_ACPX_PROFILE_MAX_BYTES}`,
        path: path('expected_acpx_profile'),
        expected: `at most ${EXPECTED_ACPX_PROFILE_MAX_BYTES} bytes`,
        received: `${expectedBytes} bytes`,
      });
  }
  if (given.length === 0) return null;
  const request: Record<string, unknown> = {
    ...(lane.acpx_agent === undefined ? {} : { acpxAgent: lane.acpx_agent }),
    ...(lane.opencode_version === undefined ? {} : { opencodeVersion: lane.opencode_version }),
    ...(lane.managed_profile === undefined ? {} : { managedProfile: lane.managed_profile }),
    ...(lane.agent_core_profile === undefined ? {} : { agentCoreProfile: lane.agent_core_profile }),
  };
  const args = [
    ...(lane.candidate_profile === undefined ? [] : ['--candidate-profile', lane.candidate_profile]),
    ...(lane.expected_acpx_profile === undefined
      ? []
      : ['--expected-acpx-profile', JSON.stringify(lane.expected_acpx_profile)]),
  ];
  const named = (value: unknown): string =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { profileId?: unknown }).profileId === 'string'
      ? (value as { profileId: string }).profileId
      : '?';
  const label = [
    lane.acpx_agent === undefined ? null : `acpx agent ${lane.acpx_agent}`,
    lane.candidate_profile === undefined ? null : `candidate profile ${lane.candidate_profile}`,
    lane.expected_acpx_profile === undefined ? null : 'expected ACPX profile',
    lane.opencode_version === undefined ? null : `opencode ${lane.opencode_version}`,
    lane.managed_profile === undefined ? null : `managed profile ${named(lane.managed_profile)}`,
    lane.agent_core_profile === undefined ? null : `AgentCore profile ${named(lane.agent_core_profile)}`,
  ]
    .filter((part) => part !== null)
    .join(', ');
  return { request, args, sha256: canonicalDigest({ request, args }), label };
}

/** The plan, or a CampaignError (paperclip_campaign_suite_invalid) listing every problem of the suite and flags. */
export function planCampaign(environment: Environment, options: PlanOptions): CampaignPlan {
  const issues: Issue[] = [];
  if (!CAMPAIGN_ID_PATTERN.test(options.campaignId))
    issues.push({
      code: 'campaign_id_invalid',
      message:
        'a campaign id starts with a letter or digit, then letters, digits, ".", "_" or "-", at most 200',
      path: '--campaign',
      expected: String(CAMPAIGN_ID_PATTERN),
      received: options.campaignId,
    });
  const allLanes: Lane[] = [];
  environment.configs.forEach((config, at) => {
    const lane = laneOf(config, at, issues);
    if (lane !== null) allLanes.push(lane);
  });
  const named = options.lanes === undefined || options.lanes === 'all' ? null : options.lanes;
  const lanes: Lane[] = [];
  if (named === null) lanes.push(...allLanes.filter((lane) => lane.enabled));
  else
    for (const id of new Set(named)) {
      const lane = allLanes.find((candidate) => candidate.id === id);
      if (lane !== undefined) lanes.push(lane);
      else
        issues.push({
          code: environment.configs.some((config) => config.id === id) ? 'lane_missing' : 'lane_unknown',
          message: environment.configs.some((config) => config.id === id)
            ? `config ${id} has no lane (or no limits): it cannot run in a campaign`
            : `no config ${id} in the environment`,
          path: '--lanes',
          expected: `one of ${allLanes.map((lane) => lane.id).join(', ') || '(no lanes: add lane and limits to a config)'}`,
          received: id,
        });
    }
  if (named !== null && new Set(named).size !== named.length)
    issues.push({
      code: 'lane_duplicate',
      message: 'a lane is named twice',
      path: '--lanes',
      expected: 'each lane once',
      received: named.join(','),
    });
  const namedCases = options.cases === undefined || options.cases === 'all' ? null : options.cases;
  const cases: EnvironmentCase[] = [];
  if (namedCases === null) cases.push(...environment.cases);
  else
    for (const id of new Set(namedCases)) {
      const entry = environment.cases.find((candidate) => candidate.id === id);
      if (entry !== undefined) cases.push(entry);
      else
        issues.push({
          code: 'case_unknown',
          message: `no case ${id} in the environment`,
          path: '--cases',
          expected: `one of ${environment.cases.map((item) => item.id).join(', ')}`,
          received: id,
        });
    }
  for (const entry of cases)
    if (entry.prompt === undefined)
      issues.push({
        code: 'case_prompt_missing',
        message: `case ${entry.id} has no prompt: the eval-session request needs one`,
        path: pointer('cases', environment.cases.indexOf(entry), 'prompt'),
        expected: 'a prompt',
        received: 'none',
      });
  if (lanes.length === 0 && issues.length === 0)
    issues.push({
      code: 'lanes_none',
      message: 'no lane to run: every config lacks a lane or is disabled',
      path: '/configs',
      expected: 'a config with lane {provider} and limits (a disabled lane runs when named with --lanes)',
      received: `${allLanes.length} lane(s), none enabled`,
    });
  if (cases.length === 0 && issues.length === 0)
    issues.push({
      code: 'cases_none',
      message: 'no case to run',
      path: '/cases',
      expected: 'at least one case',
      received: 'none',
    });
  if (issues.length > 0)
    throw new CampaignError(
      'paperclip_campaign_suite_invalid',
      'the suite and flags do not make a campaign plan',
      issues,
    );

  const shardCount = options.shardCount ?? 1;
  const attemptsPer = options.attempts ?? environment.campaign?.attempts ?? DEFAULT_ATTEMPTS;
  const maxCostUsd = options.maxCostUsd ?? environment.campaign?.max_cost_usd;
  const attempts: PlannedAttempt[] = [];
  for (const lane of lanes)
    for (const entry of cases)
      for (let index = 1; index <= attemptsPer; index++)
        attempts.push({
          attemptId: plannedAttemptId(options.campaignId, lane.id, entry.id, index),
          laneId: lane.id,
          caseId: entry.id,
          index,
          shard: shardOf(attempts.length, shardCount),
        });
  const selected = new Set(lanes.map((lane) => lane.id));
  return {
    campaignId: options.campaignId,
    suiteFingerprint: suiteFingerprintOf(environment),
    lanes,
    lanesLeftOut: allLanes.filter((lane) => !selected.has(lane.id)).map((lane) => lane.id),
    cases: cases.map((entry) => entry.id),
    caseDefinitions: cases.map((entry) => ({
      id: entry.id,
      prompt: entry.prompt ?? '',
      description: entry.description ?? null,
    })),
    allEnabledLanes: allLanes.filter((lane) => lane.enabled).every((lane) => selected.has(lane.id)),
    allCases: cases.length === environment.cases.length,
    settings: {
      attempts: attemptsPer,
      maxInfrastructureRetries:
        environment.campaign?.max_infrastructure_retries ?? DEFAULT_INFRASTRUCTURE_RETRIES,
      maxCostNanodollars: maxCostUsd === undefined ? null : usdToNanodollars(maxCostUsd),
    },
    attempts,
    shardCount,
  };
}

/** The attempts of one shard, in plan order. */
export function shardAttempts(plan: CampaignPlan, shard: Shard | null): readonly PlannedAttempt[] {
  return shard === null ? plan.attempts : plan.attempts.filter((attempt) => attempt.shard === shard.index);
}

/**
 * A digest of what the plan is: the campaign id, the suite, lanes, cases, attempts per case and the
 * planned attempts (with their shards). The same on every machine for the same inputs. The cases'
 * prompts and descriptions (caseDefinitions) are not in it: the suite fingerprint covers them, and
 * a record that carries them is of the same plan as one written before it did. How the
 * campaign is run is not part of it: the cost ceiling, the retry budget and the parallelism (so a
 * resume with a higher ceiling, more retries or other parallelism continues the same campaign).
 */
export function planDigest(plan: CampaignPlan): string {
  return sha256Digest(
    JSON.stringify([
      plan.campaignId,
      plan.suiteFingerprint,
      plan.lanes,
      plan.cases,
      plan.settings.attempts,
      plan.attempts,
    ]),
  );
}

/** The campaign settings that say how a campaign is run, not what it is: never in its identity. */
const RUN_SETTINGS = ['max_cost_usd', 'max_infrastructure_retries', 'max_parallel'] as const;

/**
 * The suite's fingerprint: the environment as loaded, without where its ledger is (`store:`: the
 * same ledger moved, or named through --store, is the same suite) and without the campaign's run
 * settings.
 */
function suiteFingerprintOf(environment: Environment): string {
  const { store: _where, ...suite } = environment;
  return legacySuiteFingerprintOf(suite);
}

/** The fingerprint as it was before `store:` was left out of it (records written then carry it). */
function legacySuiteFingerprintOf(environment: Environment): string {
  if (environment.campaign === undefined) return canonicalDigest(environment);
  const campaign = Object.fromEntries(
    Object.entries(environment.campaign).filter(
      ([key]) => !(RUN_SETTINGS as readonly string[]).includes(key),
    ),
  );
  return canonicalDigest({ ...environment, campaign });
}

/**
 * The plan's digest as a record written before `store:` left the suite's fingerprint gives it: such
 * a record is of this plan still (it resumes), whatever the ledger's place was then.
 */
export function legacyPlanDigest(plan: CampaignPlan, environment: Environment): string {
  return planDigest({ ...plan, suiteFingerprint: legacySuiteFingerprintOf(environment) });
}

/** The plan's lanes as a campaign record names them (what a ledger's record is compared by). */
export function recordedLanes(plan: CampaignPlan): RecordedLane[] {
  return plan.lanes.map(({ id, provider, model, driver, enabled, profile }) => ({
    id,
    provider,
    model,
    driver,
    enabled,
    ...(profile === undefined ? {} : { profile: { sha256: profile.sha256, label: profile.label } }),
  }));
}

/** A lane as a campaign record names it: its profile by digest and label only (absent: none). */
export interface RecordedLane extends Pick<Lane, 'id' | 'provider' | 'model' | 'driver' | 'enabled'> {
  readonly profile?: Pick<LaneProfile, 'sha256' | 'label'>;
}
