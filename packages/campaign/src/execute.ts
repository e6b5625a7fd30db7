// Runs a campaign's planned attempts once the join holds: for each attempt not already in the
// ledger (resume), a private work folder, an upstream-shaped eval-session request written there,
// the eval-session process (node's startKillableRun), the try read (try-outcome.ts) and its native
// bundle ingested at once with evalbook's ingest (whole or nothing). A retryable infrastructure
// failure is tried again up to max_infrastructure_retries, each try kept under its own attempt id;
// anything else is final. Before every start the observed spend (this run's tries and what the
// ledger holds for the campaign, so a shared PostgreSQL ledger makes the ceiling global) is held
// against the ceiling; at it, or with an unknown cost and no --allow-unpriced, nothing more starts
// and the rest is `not run (budget)`. `stop` ends scheduling (running tries finish), `kill` kills them
// (a try the campaign stopped is eval_session_interrupted: no result written, run again by a rerun).
// Write-ahead: every try's start is appended to the ledger before its session is spawned (the
// evalbook's try-starts.ts), so a try whose run was killed with it is never forgotten: a start the
// ledger holds no attempt of, and that this process is not running, is a try of unknown spend.
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

import {
  EVAL_SESSION_PROVIDER_DRIVERS,
  INFRASTRUCTURE_FAILURE_CLASSES,
  maskSecrets,
} from '@paperclip-evals/contract';
import { NO_NATIVE_EVIDENCE, attemptVerdict, ingest, openStore, caseOf } from '@paperclip-evals/evalbook';

import { assertHeldTryOfPlan, assertLedgerPlan } from './ledger-plan.js';
import { legacyPlanDigest, shardAttempts, tryAttemptId } from './plan.js';
import { readRegularFile, startKillableRun } from '@paperclip-evals/node';
import {
  EVAL_SESSION_ARTIFACT_V1,
  MAX_ARTIFACT_BYTES,
  INTERRUPTED_TRY,
  UNKNOWN_COST,
  campaignFailure,
  interruptedTry,
  interruptionOf,
  readTry,
  tryCostOf,
} from './try-outcome.js';

import type { CompatibilityReceipt } from '@paperclip-evals/contract';
import type { Environment, IngestSummary, LedgerStore, StoredAttempt } from '@paperclip-evals/evalbook';

import type { CampaignPlan, Lane, PlannedAttempt, Shard } from './plan.js';
import type { KillableRun } from '@paperclip-evals/node';
import type { InfrastructureFailure, NativeEvidence, TryCost, TryReading } from './try-outcome.js';

export const EVAL_SESSION_REQUEST_V1 = 'paperclip-runner/eval-session-request/v1';

/** The taxonomy of an attempt (upstream's dispositions, and ours for what never ran). */
export type Disposition =
  | 'passed'
  | 'behavior_failure'
  | 'grading_evidence_failure'
  | 'infrastructure_failure'
  | 'not_run_budget'
  | 'not_run_stopped';

export interface TryOutcome {
  readonly attemptId: string;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly durationMs: number;
  readonly infrastructureFailure: InfrastructureFailure | null;
  /**
   * What the ledger holds of the try: its native bundle (inserted, duplicate); `synthesized`: the
   * campaign's own eval-session artifact for a try that left no evidence (its infrastructure failure,
   * so a rerun counts the try); `refused`: nothing could be stored; `none`: nothing to store.
   */
  readonly ingest: 'inserted' | 'duplicate' | 'synthesized' | 'refused' | 'none';
  /** Why the ledger refused the try's native bundle (then the try is recorded by the campaign's artifact). */
  readonly ledgerRefusal?: LedgerRefusal;
  /**
   * A success artifact that referenced no native bundle (upstream's eval-session writes none): the
   * session's own artifact alone is what the ledger holds of the try (`ingest`: inserted/duplicate).
   */
  readonly evidenceGap?: EvidenceGap;
  readonly cost: TryCost;
}

/** The one evidence gap a campaign records: a session that ran but left no native-execution bundle. */
export const NATIVE_BUNDLE_ABSENT = 'native_bundle_absent';

export interface EvidenceGap {
  readonly code: typeof NATIVE_BUNDLE_ABSENT;
  readonly message: string;
}

/** The ledger's refusal of a try's native bundle: its code (ingest's issue code, or the store's) and why. */
export interface LedgerRefusal {
  readonly code: string;
  readonly message: string;
}

export interface AttemptOutcome {
  readonly attemptId: string;
  readonly laneId: string;
  readonly caseId: string;
  readonly index: number;
  readonly shard: number;
  readonly disposition: Disposition;
  /** Why (the verdict's reason, the failure's message); null for passed. */
  readonly reason: string | null;
  readonly infrastructureFailure: Omit<InfrastructureFailure, 'message'> | null;
  /** Every try this run made, in order; empty for an attempt the ledger already held or that never ran. */
  readonly tries: readonly TryOutcome[];
  /** The try the disposition is of (in the ledger when it carried evidence); null when nothing ran. */
  readonly finalAttemptId: string | null;
  /** Already in the ledger before this run: skipped, not run again. */
  readonly resumed: boolean;
  /**
   * The disposition's coded reason when the campaign gives one: `native_bundle_absent` (the final
   * try left a success artifact without a native bundle: recorded from the artifact alone, never solved).
   */
  readonly reasonCode?: typeof NATIVE_BUNDLE_ABSENT;
  /** The cost of every try (a resumed attempt: the ledger's figures of its final try). */
  readonly cost: TryCost;
}

/** The release side of the join, as the campaign runs it. */
export interface JoinedRelease {
  readonly packageName: string;
  readonly packageVersion: string;
  /** Absolute path; the eval-session re-hashes it against runnerdSha256. */
  readonly runnerdPath: string;
  readonly runnerdSha256: string;
  readonly receipt: CompatibilityReceipt;
  /** How to start the eval-session bin: argv[0] and the arguments before --request. */
  readonly evalSession: { readonly command: string; readonly args: readonly string[] };
  /** The package's build metadata (the qualification record's): what a synthesized artifact states. */
  readonly buildMetadata: Readonly<Record<string, unknown>>;
}

export interface CampaignProgress {
  readonly planned: number;
  readonly done: number;
  readonly running: number;
  readonly resumed: number;
  /** Finished attempts by disposition, and infrastructure failures by class. */
  readonly byDisposition: Readonly<Partial<Record<Disposition, number>>>;
  readonly failuresByClass: Readonly<Record<string, number>>;
  /**
   * The spend the ceiling counts: what the ledger recorded for the campaign when this run began (a
   * resumed campaign starts from it, never from $0) plus this run's tries new to the ledger.
   */
  readonly observedNanodollars: number;
  /** Tries of unknown cost, counted the same way (the ledger's, then this run's). */
  readonly unknownCostTries: number;
  /**
   * Of unknownCostTries, the ledger's tries of the campaign that were started and never settled (no
   * attempt in the ledger; not running in this process): a killed run's, a killed session's, or on a
   * shared PostgreSQL ledger another shard's still running.
   */
  readonly unsettledTries: number;
  readonly ceilingNanodollars: number | null;
  /** null until one attempt finished. */
  readonly etaMs: number | null;
  /** Why scheduling stopped, or null. */
  readonly stopped: StopReason | null;
}

export type StopReason = 'budget' | 'budget_unproven' | 'interrupted';

export interface ExecuteOptions {
  readonly plan: CampaignPlan;
  readonly shard: Shard | null;
  readonly release: JoinedRelease;
  readonly environment: Environment;
  readonly environmentPath: string;
  readonly storeUrl: string;
  /** Where each attempt's private folder goes (kept: every try's request and artifact). */
  readonly workDir: string;
  readonly maxParallel: number;
  /** Keep scheduling when a try's cost is unknown (a ceiling is then not proven). */
  readonly allowUnpriced?: boolean;
  /**
   * The eval-session's whole environment (default: none at all), e.g. a live provider's credentials
   * (`evals run --pass-env NAME`). The values go to the child only: every text the campaign keeps of
   * a try (a failure's message, a reason) has them masked, and no file it writes holds them.
   */
  readonly sessionEnv?: Readonly<Record<string, string>>;
  /** Aborted: start nothing more; running tries finish. */
  readonly stop?: AbortSignal;
  /** Aborted: kill running tries' process groups. */
  readonly kill?: AbortSignal;
  readonly onProgress?: (progress: CampaignProgress) => void;
  /** Told once per decided attempt (run, resumed or not run), with the progress after it. */
  readonly onAttempt?: (outcome: AttemptOutcome, progress: CampaignProgress) => void;
}

export interface ExecuteResult {
  readonly attempts: readonly AttemptOutcome[];
  readonly stopped: StopReason | null;
  readonly startedAt: string;
  readonly finishedAt: string;
}

/** Extra time a session gets past its turn timeout before its group is killed. */
export function sessionTimeoutMs(lane: Lane): number {
  const turn = lane.limits.turnTimeoutMs;
  return turn + Math.min(30_000, Math.max(2_000, turn));
}

/**
 * The eval-session request of one try (paperclip-runner/eval-session-request/v1; evalCase is ours):
 * the lane's per-provider fields (its profile's request: acpxAgent, opencodeVersion, managedProfile,
 * agentCoreProfile) under upstream's names. No `session.seed`: upstream reads it as a fixture seed
 * object (CapabilityFixtureSeed | CapabilityFixtureState), never a string; a case's own `session`
 * may carry one, sent as is (docs/eval-session.md).
 */
export function evalSessionRequest(
  plan: CampaignPlan,
  attempt: PlannedAttempt,
  tryId: string,
  lane: Lane,
  environment: Environment,
  release: JoinedRelease,
  workingDirectory: string,
): Record<string, unknown> {
  const entry = caseOf(environment, attempt.caseId);
  if (entry?.prompt === undefined) throw new Error(`internal: case ${attempt.caseId} has no prompt`);
  return {
    schema: EVAL_SESSION_REQUEST_V1,
    attemptId: tryId,
    prompt: entry.prompt,
    model: lane.model,
    provider: lane.provider,
    ...(lane.driver === null ? {} : { driver: lane.driver }),
    ...lane.profile?.request,
    runnerd: { path: release.runnerdPath, sha256: release.runnerdSha256 },
    limits: lane.limits,
    session: {
      ...entry.session,
      runId: plan.campaignId,
      provider: lane.provider,
      requestedModel: lane.model,
      workingDirectory,
    },
    evalCase: {
      caseId: attempt.caseId,
      caseSha256: entry.sha256,
      configId: lane.id,
      configSha256: lane.configSha256,
    },
  };
}

/** The eval-session's arguments for one try: the bin's, --request and --output, then the lane's flags. */
export function evalSessionArgs(
  release: JoinedRelease,
  lane: Lane,
  requestPath: string,
  artifactPath: string,
): string[] {
  return [
    ...release.evalSession.args,
    '--request',
    requestPath,
    '--output',
    artifactPath,
    ...(lane.profile?.args ?? []),
  ];
}

/** Our additive `evalCase` of an artifact the campaign writes or keys: the planned run, case, config and lane profile. */
function plannedEvalCase(
  plan: CampaignPlan,
  attempt: PlannedAttempt,
  lane: Lane,
  environment: Environment,
): Record<string, string> {
  return {
    runId: plan.campaignId,
    caseId: attempt.caseId,
    caseSha256: caseOf(environment, attempt.caseId)?.sha256 ?? '',
    configId: lane.id,
    configSha256: lane.configSha256,
    ...(lane.profile === undefined ? {} : { laneProfileSha256: lane.profile.sha256 }),
  };
}

/** Who writes the artifact of a try that left no evidence (its `synthesizedBy`). */
export const SYNTHESIZED_BY = 'paperclip-evals campaign';

/**
 * The eval-session artifact the campaign writes for a try that left no evidence of its own (a hang
 * killed, a crash, garbage, an exit 0 without output, a failure artifact without a bundle):
 * upstream-shaped (the failure shape, as upstream's aggregate synthesizes for a missing cell), with
 * the try's infrastructure failure, the session's usage when its own artifact had one, and our
 * additive `evalCase` (the planned run, case, config and lane profile) and `synthesizedBy`. Ingested like any
 * artifact, it puts the try in the Evalbook as errored with its class, so a rerun counts it.
 */
export function synthesizedArtifact(
  plan: CampaignPlan,
  attempt: PlannedAttempt,
  lane: Lane,
  tryId: string,
  release: JoinedRelease,
  environment: Environment,
  failure: InfrastructureFailure,
  facts: {
    readonly startedAt: Date;
    readonly finishedAt: Date;
    readonly exitCode: number | null;
    readonly signal: string | null;
    readonly usage?: unknown;
    /** The ledger's code when it refused the try's own bundle. */
    readonly ledgerCode?: string;
  },
): Record<string, unknown> {
  return {
    schema: EVAL_SESSION_ARTIFACT_V1,
    attemptId: tryId,
    build: release.buildMetadata,
    runnerd: { path: '[withheld]', sha256: release.runnerdSha256 },
    requestedModel: lane.model,
    provider: lane.provider,
    driver: EVAL_SESSION_PROVIDER_DRIVERS[lane.provider] ?? lane.driver ?? lane.provider,
    providerVersion: null,
    providerSessionId: null,
    infrastructureError: failure.message,
    infrastructureFailure: {
      class: failure.class,
      category: failure.category,
      retryable: failure.retryable,
      diagnostics: {
        exitCode: facts.exitCode,
        signal: facts.signal,
        ...(facts.ledgerCode === undefined ? {} : { ledgerCode: facts.ledgerCode }),
      },
    },
    ...(facts.usage === undefined ? {} : { usage: facts.usage }),
    timing: {
      startedAt: facts.startedAt.toISOString(),
      finishedAt: facts.finishedAt.toISOString(),
      durationMs: Math.max(0, facts.finishedAt.getTime() - facts.startedAt.getTime()),
    },
    evalCase: plannedEvalCase(plan, attempt, lane, environment),
    synthesizedBy: SYNTHESIZED_BY,
  };
}

/** Classes a retry may help (upstream's retryable ones and ours): what a resumed held try is judged by. */
/**
 * The infrastructure failure a held try records, as the run that made it said: the session's
 * artifact's when the ledger kept it, else — a bundle stored without its artifact (a ledger written
 * before the campaign stored artifacts) — the bundle's infrastructure or budget failure read by the
 * one class table (contract's: category and retryability by class), never guessed.
 */
export function heldInfrastructureFailure(
  record: StoredAttempt['record'],
): AttemptOutcome['infrastructureFailure'] {
  if (record.evalSession !== undefined) return record.evalSession.infrastructureFailure;
  const failure = record.failure;
  if (
    failure === null ||
    (failure.classification !== 'infrastructure' && failure.classification !== 'budget')
  )
    return null;
  const entry = (
    INFRASTRUCTURE_FAILURE_CLASSES as Readonly<Record<string, { category: string; retryable: boolean }>>
  )[failure.code];
  return entry === undefined
    ? { class: failure.code, category: 'runner_infrastructure', retryable: failure.retryable ?? false }
    : { class: failure.code, category: entry.category, retryable: entry.retryable };
}

interface Verdict {
  readonly disposition: Disposition;
  readonly reason: string | null;
  readonly infrastructureFailure?: AttemptOutcome['infrastructureFailure'];
  readonly reasonCode?: typeof NATIVE_BUNDLE_ABSENT;
}

/** Bundle failure classifications of the runner's side (evalbook scores them errored). */
const RUNNER_SIDE: ReadonlySet<string> = new Set(['infrastructure', 'runner', 'provider']);

const DISPOSITION_OF_STATUS = {
  solved: 'passed',
  unsolved: 'behavior_failure',
  over_budget: 'behavior_failure',
  errored: 'grading_evidence_failure',
  incomplete: 'grading_evidence_failure',
} as const;

/**
 * The try's output folder, made new: `output/`, or — when a run that was killed mid-try left one
 * (its session, in its own process group, may outlive it and still be writing there) — the first of
 * `output.2/`, `output.3/`, … that does not exist, so nothing the old session writes is ever read.
 */
async function freshOutputDir(dir: string): Promise<string> {
  for (let n = 1; ; n++) {
    const path = join(dir, n === 1 ? 'output' : `output.${n}`);
    try {
      await mkdir(path, { mode: 0o700 });
      return path;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

function costOfStored(stored: StoredAttempt): TryCost {
  return tryCostOf(stored.record.cost);
}

function sumSpend(
  a: { observed: number; unknown: number },
  b: { observed: number; unknown: number },
): { observed: number; unknown: number } {
  return { observed: a.observed + b.observed, unknown: a.unknown + b.unknown };
}

type CampaignTry = Awaited<ReturnType<LedgerStore['campaignTries']>>[number];

/** One try's identity among a campaign's starts (its attempt key but for the run). */
const tryKey = (entry: { caseId: string; configId: string; tryId: string }): string =>
  JSON.stringify([entry.caseId, entry.configId, entry.tryId]);

/**
 * What the start of a try comes to in the ledger, by what became of it (TryOutcome's ingest): the
 * attempt the ledger then holds settles it (inserted, duplicate, synthesized); otherwise (refused:
 * nothing could be stored; none: an interrupted try) it stays a try of unknown spend, for good.
 */
export function startSettlement(ingest: TryOutcome['ingest']): 'settled' | 'unknown_spend' {
  return ingest === 'inserted' || ingest === 'duplicate' || ingest === 'synthesized'
    ? 'settled'
    : 'unknown_spend';
}

/** Sums what the budget counts; provider-reported and estimated stay apart (see record.ts). */
function addCost(into: { observed: number; unknown: number }, cost: TryCost): void {
  if (cost.observedNanodollars === null) into.unknown++;
  else into.observed += cost.observedNanodollars;
}

export async function executeCampaign(options: ExecuteOptions): Promise<ExecuteResult> {
  const { plan, environment } = options;
  const startedAt = new Date().toISOString();
  const attempts = shardAttempts(plan, options.shard);
  const lanes = new Map(plan.lanes.map((lane) => [lane.id, lane]));
  const outcomes = new Map<string, AttemptOutcome>();
  const running = new Set<KillableRun>();
  /** This run's tries new to the ledger or not in it, and of them those not in it. */
  const fresh = { observed: 0, unknown: 0 };
  const unrecorded = { observed: 0, unknown: 0 };
  const byDisposition: Partial<Record<Disposition, number>> = {};
  const failuresByClass: Record<string, number> = {};
  let stopped: StopReason | null = null;
  let active = 0;
  let resumedCount = 0;
  const began = performance.now();
  let finishedRun = 0;

  const killAll = (): void => {
    for (const session of running) session.kill();
  };
  options.kill?.addEventListener('abort', killAll, { once: true });

  /** The values of the session's environment, masked in every text the campaign keeps of a try. */
  const secrets = Object.values(options.sessionEnv ?? {});
  const redact = (text: string): string => (secrets.length === 0 ? text : maskSecrets(text, secrets));
  /**
   * A passed variable's value the session wrote into its artifact (an error naming a provider key) is
   * masked in the file itself, before it is read or stored: the ledger keeps the artifact whole, and
   * the value is in no file the campaign keeps. (The artifact is referenced by no digest; its
   * bundle's bytes are, and stay as written.)
   */
  const maskArtifact = async (path: string): Promise<void> => {
    if (secrets.length === 0) return;
    // Its size before a byte is read: one over the artifact cap is left as it is (readTry refuses it).
    const bytes = await readRegularFile(path, { maxBytes: MAX_ARTIFACT_BYTES }).catch(() => null);
    if (bytes === null) return;
    const text = bytes.toString('utf8');
    const clean = redact(text);
    if (clean !== text) await writeFile(path, clean, { mode: 0o600 });
  };
  const masked = (reading: TryReading): TryReading =>
    reading.kind === 'infrastructure'
      ? { ...reading, failure: { ...reading.failure, message: redact(reading.failure.message) } }
      : reading;

  const store: LedgerStore = await openStore(options.storeUrl);
  /** The tries this process started (their start rows are ours: counted by this run, never as unknown). */
  const startedHere = new Set<string>();
  /** The ledger's starts of this campaign, read before the first start: the try numbers taken. */
  let ledgerTries: readonly CampaignTry[] = [];
  const unsettledElsewhere = (tries: readonly CampaignTry[]): number =>
    tries.filter((entry) => !entry.settled && !startedHere.has(tryKey(entry))).length;
  const snapshot = (): CampaignProgress => {
    const done = outcomes.size;
    const ranDone = finishedRun;
    const left = attempts.length - done;
    return {
      planned: attempts.length,
      done,
      running: active,
      resumed: resumedCount,
      byDisposition: { ...byDisposition },
      failuresByClass: { ...failuresByClass },
      observedNanodollars: (heldAtStart?.observed ?? 0) + fresh.observed,
      unknownCostTries: (heldAtStart?.unknown ?? 0) + fresh.unknown,
      unsettledTries: heldAtStart?.unsettled ?? 0,
      ceilingNanodollars: plan.settings.maxCostNanodollars,
      etaMs:
        ranDone === 0
          ? null
          : Math.round((((performance.now() - began) / ranDone) * left) / Math.max(1, options.maxParallel)),
      stopped,
    };
  };
  const progress = (): void => {
    options.onProgress?.(snapshot());
  };
  const finish = (outcome: AttemptOutcome): void => {
    outcomes.set(outcome.attemptId, outcome);
    byDisposition[outcome.disposition] = (byDisposition[outcome.disposition] ?? 0) + 1;
    if (outcome.infrastructureFailure !== null)
      failuresByClass[outcome.infrastructureFailure.class] =
        (failuresByClass[outcome.infrastructureFailure.class] ?? 0) + 1;
    progress();
    options.onAttempt?.(outcome, snapshot());
  };

  /**
   * The ledger's spend for this campaign, from one aggregate query (the store's runs(): summed in
   * SQL, never every row): earlier runs, and with a shared PostgreSQL ledger every shard's tries —
   * plus, as unknown, every start of the campaign the ledger holds no attempt of and this process is
   * not running (a killed run's try; on a shared PostgreSQL, another shard's running one: a shard
   * cannot tell a running try from a dead one, so until it settles its spend is unknown). The starts
   * are read first: a try that settles between the two reads is counted twice, never not at all.
   */
  const ledgerSpend = async (): Promise<{ observed: number; unknown: number; unsettled: number }> => {
    const unsettled = unsettledElsewhere(await store.campaignTries(plan.campaignId));
    const run = (await store.runs()).find((entry) => entry.runId === plan.campaignId);
    return {
      observed: run?.spend.observedNanodollars ?? 0,
      unknown: (run === undefined ? 0 : run.spend.unpriced - run.spend.unsettledTries) + unsettled,
      unsettled,
    };
  };
  /** Read once before the first start; a PostgreSQL ledger (shared by shards) is asked again before each. */
  let heldAtStart: { observed: number; unknown: number; unsettled: number } | null = null;

  /** null: go ahead; otherwise why nothing more may start. */
  const budgetStop = async (): Promise<StopReason | null> => {
    if (options.stop?.aborted === true) return 'interrupted';
    const ceiling = plan.settings.maxCostNanodollars;
    if (ceiling === null) return null;
    // SQLite: the ledger read once plus every try this run added. PostgreSQL: the global total now
    // (this run's stored tries are in it) plus this run's tries the ledger does not hold.
    heldAtStart ??= await ledgerSpend();
    const total =
      store.kind === 'postgres' ? sumSpend(await ledgerSpend(), unrecorded) : sumSpend(heldAtStart, fresh);
    if (total.unknown > 0 && options.allowUnpriced !== true) return 'budget_unproven';
    if (total.observed >= ceiling) return 'budget';
    return null;
  };

  /** The try numbers of an attempt the ledger holds starts of (an interrupted or killed try's too). */
  const startedNumbers = (attempt: PlannedAttempt): number[] =>
    ledgerTries
      .filter(
        (entry) =>
          entry.attemptId === attempt.attemptId &&
          entry.caseId === attempt.caseId &&
          entry.configId === attempt.laneId,
      )
      .map((entry) => entry.tryNumber);

  /**
   * The last try of an attempt the ledger holds (resume), with its try number and how many of its
   * tries the ledger holds (what counts against the retries: a try with no result, killed, does not),
   * or null.
   */
  const heldTry = async (
    attempt: PlannedAttempt,
  ): Promise<{ stored: StoredAttempt; tryNumber: number; recorded: number } | null> => {
    let found: { stored: StoredAttempt; tryNumber: number } | null = null;
    let recorded = 0;
    const last = Math.max(plan.settings.maxInfrastructureRetries + 1, ...startedNumbers(attempt));
    for (let tryNumber = 1; tryNumber <= last; tryNumber++) {
      const stored = await store.getAttempt({
        runId: plan.campaignId,
        caseId: attempt.caseId,
        configId: attempt.laneId,
        attemptId: tryAttemptId(attempt.attemptId, tryNumber),
      });
      if (stored === null) continue;
      found = { stored, tryNumber };
      recorded++;
    }
    return found === null ? null : { ...found, recorded };
  };

  /**
   * Appends the start of the attempt's next try to the ledger (committed: a SQLite transaction, a
   * PostgreSQL statement) before its session is spawned, from try `tryNumber` on: a number another
   * run started meanwhile is skipped. The try id it took.
   */
  const claimTry = async (
    attempt: PlannedAttempt,
    tryNumber: number,
  ): Promise<{ tryId: string; tryNumber: number }> => {
    for (let number = tryNumber; ; number++) {
      const tryId = tryAttemptId(attempt.attemptId, number);
      const key = tryKey({ caseId: attempt.caseId, configId: attempt.laneId, tryId });
      // Ours before it is committed: a PostgreSQL budget read meanwhile never counts it as another's.
      startedHere.add(key);
      const appended = await store.recordTryStart({
        campaignId: plan.campaignId,
        caseId: attempt.caseId,
        configId: attempt.laneId,
        attemptId: attempt.attemptId,
        tryNumber: number,
        tryId,
        startedAt: new Date().toISOString(),
        runner: {
          packageName: options.release.packageName,
          packageVersion: options.release.packageVersion,
          runnerdSha256: options.release.runnerdSha256,
          host: hostname(),
          pid: process.pid,
        },
      });
      if (appended) return { tryId, tryNumber: number };
      startedHere.delete(key);
    }
  };

  const verdictOf = async (attempt: PlannedAttempt, tryId: string): Promise<Verdict | null> => {
    const stored = await store.getAttempt({
      runId: plan.campaignId,
      caseId: attempt.caseId,
      configId: attempt.laneId,
      attemptId: tryId,
    });
    if (stored === null) return null;
    const expected = (caseOf(environment, attempt.caseId)?.checks ?? []).map((check) => check.id);
    const scored = new Set(stored.scores.map((score) => score.checkId));
    const scores = [
      ...stored.scores,
      ...expected
        .filter((id) => !scored.has(id))
        .map((checkId) => ({ checkId, status: 'not_evaluated' as const, reason: 'no verdict' })),
    ];
    const verdict = attemptVerdict(stored.record, scores);
    // The runner's own failure recorded in the bundle (infrastructure, runner, provider): the
    // attempt says nothing about the agent, but it carries evidence, so it is not tried again.
    const failure = stored.record.failure;
    if (verdict.status === 'errored' && failure !== null && RUNNER_SIDE.has(failure.classification))
      return {
        disposition: 'infrastructure_failure',
        reason: verdict.reason,
        infrastructureFailure: { class: failure.code, category: failure.classification, retryable: false },
      };
    return { disposition: DISPOSITION_OF_STATUS[verdict.status], reason: verdict.reason };
  };

  /** Ingests the campaign's artifact of a try without evidence; null when stored, else why not. */
  const recordWithoutEvidence = async (
    attempt: PlannedAttempt,
    lane: Lane,
    tryId: string,
    dir: string,
    reading: Extract<TryReading, { kind: 'infrastructure' }>,
    facts: {
      startedAt: Date;
      finishedAt: Date;
      exitCode: number | null;
      signal: string | null;
      ledgerCode?: string;
    },
  ): Promise<string | null> => {
    const path = join(dir, 'campaign-artifact.json');
    const usage = reading.artifact?.usage;
    // The session's usage is kept when its artifact had one; if the ledger refuses it, the try is
    // recorded without (unknown cost, never zero) rather than not at all.
    let why = 'nothing stored';
    for (const withUsage of usage === undefined ? [false] : [true, false]) {
      const artifact = synthesizedArtifact(
        plan,
        attempt,
        lane,
        tryId,
        options.release,
        environment,
        reading.failure,
        {
          ...facts,
          ...(withUsage ? { usage } : {}),
        },
      );
      await writeFile(path, `${JSON.stringify(artifact, null, 2)}\n`, { mode: 0o600 });
      const summary = await ingest({
        inputs: [path],
        storeUrl: options.storeUrl,
        environmentPath: options.environmentPath,
        qualifiedRunnerdSha256: options.release.runnerdSha256,
      });
      if (summary.inserted === 1 || summary.duplicates === 1) return null;
      why = refusalOf(summary).message;
    }
    return `not recorded in the ledger: ${why}`;
  };

  const runTry = async (
    attempt: PlannedAttempt,
    lane: Lane,
    tryId: string,
  ): Promise<{
    outcome: TryOutcome;
    verdict: Verdict | null;
  }> => {
    const dir = join(options.workDir, tryId);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
    const outputDir = await freshOutputDir(dir);
    const requestPath = join(dir, 'request.json');
    const artifactPath = join(outputDir, 'artifact.json');
    const request = evalSessionRequest(plan, attempt, tryId, lane, environment, options.release, dir);
    await writeFile(requestPath, `${JSON.stringify(request, null, 2)}\n`, { mode: 0o600 });
    const timeoutMs = sessionTimeoutMs(lane);
    const startedAt = new Date();
    const session = startKillableRun({
      command: options.release.evalSession.command,
      args: evalSessionArgs(options.release, lane, requestPath, artifactPath),
      cwd: dir,
      env: { ...options.sessionEnv },
      timeoutMs,
    });
    running.add(session);
    if (options.kill?.aborted === true) session.kill();
    const result = await session.done;
    running.delete(session);
    const base = {
      attemptId: tryId,
      exitCode: result.exitCode,
      signal: result.signal,
      durationMs: result.durationMs,
    };
    // A try the campaign stopped is no result: nothing of it is written, so a rerun runs it again
    // under this try id (it consumes no retry). A timeout we enforced, or a session that died on its
    // own, is read (and recorded) as what it is.
    const interrupted = interruptionOf(
      result,
      options.stop?.aborted === true || options.kill?.aborted === true,
    );
    if (interrupted !== null)
      return {
        outcome: {
          ...base,
          infrastructureFailure: interruptedTry(interrupted),
          ingest: 'none',
          cost: UNKNOWN_COST,
        },
        verdict: { disposition: 'not_run_stopped', reason: interrupted },
      };
    await maskArtifact(artifactPath);
    const read = masked(await readTry(result, artifactPath, tryId, timeoutMs));
    let reading: TryReading = read;
    let ingested: TryOutcome['ingest'] = 'none';
    let ledgerRefusal: LedgerRefusal | null = null;
    if (read.nativeExecution !== null) {
      // The reader verified the bundle beside the artifact (digest, size, the native parser, their
      // agreement); it is stored under the planned try, or not at all. Its files are verified where
      // the bin wrote them (the artifact's folder is the root), and the runnerd it names must be the
      // one the join verified: as `evals ingest` of the artifact does.
      ledgerRefusal = keyRefusal(read.nativeExecution.key, {
        runId: plan.campaignId,
        caseId: attempt.caseId,
        configId: lane.id,
        attemptId: tryId,
      });
      if (ledgerRefusal === null) {
        // The artifact, with its bundle beside it (as `evals ingest artifact.json` stores it): the
        // record keeps the session's artifact, so its failure's class, category and retryability
        // are read back as the run saw them.
        const summary = await ingest({
          inputs: [artifactPath],
          storeUrl: options.storeUrl,
          environmentPath: options.environmentPath,
          artifactRoot: outputDir,
          qualifiedRunnerdSha256: options.release.runnerdSha256,
        });
        if (summary.inserted === 1) ingested = 'inserted';
        else if (summary.duplicates === 1) ingested = 'duplicate';
        else {
          const refusal = refusalOf(summary);
          ledgerRefusal = { code: refusal.code, message: redact(refusal.message) };
        }
      }
      // Evidence the ledger refused is no result: the try is an infrastructure failure of its own
      // class (not retryable: the same bytes are refused again), recorded by the campaign's
      // artifact below so a rerun counts it. A failure artifact keeps the failure it states.
      if (ledgerRefusal !== null)
        reading =
          read.kind === 'evidence'
            ? {
                kind: 'infrastructure',
                failure: campaignFailure(
                  'eval_session_evidence_refused',
                  `the ledger refused the try's native bundle (${ledgerRefusal.code}): ${ledgerRefusal.message}`,
                ),
                nativeExecution: read.nativeExecution,
                artifact: read.artifact,
                cost: read.cost,
              }
            : {
                ...read,
                failure: {
                  ...read.failure,
                  message: `${read.failure.message} (its native bundle was refused by the ledger, ${ledgerRefusal.code}: ${ledgerRefusal.message})`,
                },
              };
    }
    // Upstream's success shape: a session that ran (a turn, its usage) and wrote no native bundle.
    // It is the try's only evidence: the session's own artifact is stored under the planned try (the
    // campaign adds only our additive `evalCase`, the planned run, case and config), as `evals
    // ingest` stores an artifact alone — never solved (a completed turn is incomplete: recording
    // missing; a failed or interrupted one a behaviour result), its cost counted, a rerun counting it.
    let evidenceGap: EvidenceGap | null = null;
    if (reading.kind === 'evidence' && reading.nativeExecution === null) {
      evidenceGap = {
        code: NATIVE_BUNDLE_ABSENT,
        message:
          "the session's success artifact references no native-execution bundle (upstream's eval-session writes none): recorded from the artifact alone, which has no events or checks to grade",
      };
      const path = join(dir, 'session-artifact.json');
      const planned = { ...reading.artifact, evalCase: plannedEvalCase(plan, attempt, lane, environment) };
      await writeFile(path, `${JSON.stringify(planned, null, 2)}\n`, { mode: 0o600 });
      const summary = await ingest({
        inputs: [path],
        storeUrl: options.storeUrl,
        environmentPath: options.environmentPath,
        qualifiedRunnerdSha256: options.release.runnerdSha256,
      });
      if (summary.inserted === 1) ingested = 'inserted';
      else if (summary.duplicates === 1) ingested = 'duplicate';
      else {
        // Refused like a bundle the ledger refuses: recorded by the campaign's artifact instead.
        const refusal = refusalOf(summary);
        ledgerRefusal = { code: refusal.code, message: redact(refusal.message) };
        reading = {
          kind: 'infrastructure',
          failure: campaignFailure(
            'eval_session_evidence_refused',
            `the ledger refused the try's artifact (it references no native bundle) (${ledgerRefusal.code}): ${ledgerRefusal.message}`,
          ),
          nativeExecution: null,
          artifact: reading.artifact,
          cost: reading.cost,
        };
      }
    }
    let evidenceFailure: string | null = null;
    if (reading.kind === 'infrastructure' && ingested !== 'inserted' && ingested !== 'duplicate') {
      // No evidence of its own in the ledger: the campaign's artifact records the try and its class.
      const recorded = await recordWithoutEvidence(attempt, lane, tryId, dir, reading, {
        startedAt,
        finishedAt: new Date(),
        exitCode: result.exitCode,
        signal: result.signal,
        ...(ledgerRefusal === null ? {} : { ledgerCode: ledgerRefusal.code }),
      });
      if (recorded === null) ingested = 'synthesized';
      else {
        ingested = 'refused';
        evidenceFailure = redact(recorded);
      }
    }
    const outcome: TryOutcome = {
      ...base,
      infrastructureFailure:
        reading.kind === 'infrastructure'
          ? evidenceFailure === null
            ? reading.failure
            : { ...reading.failure, message: `${reading.failure.message} (${evidenceFailure})` }
          : null,
      ingest: ingested,
      ...(ledgerRefusal === null ? {} : { ledgerRefusal }),
      ...(evidenceGap === null ? {} : { evidenceGap }),
      cost: reading.cost,
    };
    if (reading.kind === 'infrastructure') return { outcome, verdict: null };
    if (evidenceFailure !== null)
      return { outcome, verdict: { disposition: 'grading_evidence_failure', reason: evidenceFailure } };
    const judged = await verdictOf(attempt, tryId);
    const verdict: Verdict | null =
      judged === null || evidenceGap === null
        ? judged
        : {
            ...judged,
            reason: `${NATIVE_BUNDLE_ABSENT}: ${judged.reason ?? 'not graded'}`,
            reasonCode: evidenceGap.code,
          };
    return {
      outcome,
      verdict:
        verdict === null
          ? null
          : { ...verdict, reason: verdict.reason === null ? null : redact(verdict.reason) },
    };
  };

  const runAttempt = async (attempt: PlannedAttempt): Promise<void> => {
    const lane = lanes.get(attempt.laneId);
    if (lane === undefined) throw new Error(`internal: no lane ${attempt.laneId}`);
    const held = await heldTry(attempt);
    // A held try that failed retryably is tried again where the run left off, its earlier tries
    // counted (they are in the ledger: a try without evidence by the campaign's artifact).
    const heldFailure = held?.stored.record.failure ?? null;
    const infrastructure = held === null ? null : heldInfrastructureFailure(held.stored.record);
    const heldRetryable = infrastructure?.retryable === true;
    if (held !== null && !(heldRetryable && held.recorded <= plan.settings.maxInfrastructureRetries)) {
      const verdict = infrastructure === null ? await verdictOf(attempt, held.stored.key.attemptId) : null;
      // A held try recorded from a session's artifact alone (no native bundle) keeps its code.
      const alone =
        infrastructure === null &&
        held.stored.record.evalSession !== undefined &&
        held.stored.record.transcript.omissionReason === NO_NATIVE_EVIDENCE;
      resumedCount++;
      finish({
        ...identity(attempt),
        disposition:
          infrastructure !== null
            ? 'infrastructure_failure'
            : (verdict?.disposition ?? 'grading_evidence_failure'),
        reason: infrastructure !== null ? (heldFailure?.message ?? null) : (verdict?.reason ?? null),
        infrastructureFailure: infrastructure ?? verdict?.infrastructureFailure ?? null,
        tries: [],
        finalAttemptId: held.stored.key.attemptId,
        resumed: true,
        ...(alone ? { reasonCode: NATIVE_BUNDLE_ABSENT } : {}),
        cost: costOfStored(held.stored),
      });
      return;
    }
    const tries: TryOutcome[] = [];
    // The next try takes a number no try of the attempt has had: one the ledger holds a start of (a
    // killed try, its spend unknown for good) is never reused, so its start is never settled by
    // another session's result. Only tries with a result count against the retries.
    let nextNumber = Math.max(held?.tryNumber ?? 0, ...startedNumbers(attempt)) + 1;
    for (let made = held?.recorded ?? 0; ; made++) {
      const why = stopped ?? (await budgetStop());
      if (why !== null) {
        stopped ??= why;
        const last = tries.at(-1);
        finish({
          ...identity(attempt),
          ...(last === undefined
            ? {
                disposition: why === 'interrupted' ? 'not_run_stopped' : 'not_run_budget',
                reason: stopReasonText(why),
                infrastructureFailure: null,
                finalAttemptId: null,
              }
            : {
                disposition: 'infrastructure_failure',
                reason: `${last.infrastructureFailure?.message ?? ''} (not tried again: ${stopReasonText(why)})`,
                infrastructureFailure: withoutMessage(last.infrastructureFailure),
                finalAttemptId: last.attemptId,
              }),
          tries,
          resumed: false,
          cost: sumCost(tries),
        });
        return;
      }
      const { tryId, tryNumber } = await claimTry(attempt, nextNumber);
      nextNumber = tryNumber + 1;
      active++;
      progress();
      const { outcome, verdict } = await runTry(attempt, lane, tryId);
      active--;
      tries.push(outcome);
      // The campaign's own word that it killed the session: why the start stays unsettled (its spend
      // is unknown all the same; a failure to write this leaves the start alone, just as unknown).
      if (outcome.infrastructureFailure?.class === INTERRUPTED_TRY.class)
        await store
          .recordTryInterruption({
            campaignId: plan.campaignId,
            caseId: attempt.caseId,
            configId: attempt.laneId,
            attemptId: attempt.attemptId,
            tryNumber,
            tryId,
            at: new Date().toISOString(),
            reason: outcome.infrastructureFailure.message,
          })
          .catch(() => undefined);
      if (outcome.ingest !== 'duplicate') addCost(fresh, outcome.cost);
      if (outcome.ingest !== 'inserted' && outcome.ingest !== 'synthesized' && outcome.ingest !== 'duplicate')
        addCost(unrecorded, outcome.cost);
      const failure = outcome.infrastructureFailure;
      if (verdict !== null || failure === null) {
        finish({
          ...identity(attempt),
          disposition: verdict?.disposition ?? 'grading_evidence_failure',
          reason: verdict === null ? 'the ingested attempt cannot be read back' : verdict.reason,
          // A stopped attempt states no infrastructure failure (its try says it was interrupted).
          infrastructureFailure: verdict?.infrastructureFailure ?? null,
          tries,
          finalAttemptId: tryId,
          resumed: false,
          ...(verdict?.reasonCode === undefined ? {} : { reasonCode: verdict.reasonCode }),
          cost: sumCost(tries),
        });
        return;
      }
      if (!failure.retryable || made + 1 > plan.settings.maxInfrastructureRetries) {
        finish({
          ...identity(attempt),
          disposition: 'infrastructure_failure',
          reason: failure.message,
          infrastructureFailure: withoutMessage(failure),
          tries,
          finalAttemptId: tryId,
          resumed: false,
          cost: sumCost(tries),
        });
        return;
      }
    }
  };

  try {
    // A campaign id names one suite: what the ledger holds under it must be this plan's, checked
    // before any session starts (a rerun with a changed suite never takes the old suite's results).
    await assertLedgerPlan(store, plan, legacyPlanDigest(plan, options.environment));
    ledgerTries = await store.campaignTries(plan.campaignId);
    for (const attempt of attempts) {
      const held = await heldTry(attempt);
      const lane = lanes.get(attempt.laneId);
      if (held !== null && lane !== undefined)
        assertHeldTryOfPlan(plan, environment, attempt, lane, held.stored, options.release);
    }
    // The spend so far: a resumed campaign's progress starts from what the ledger records.
    heldAtStart = await ledgerSpend();
    progress();
    let next = 0;
    const worker = async (): Promise<void> => {
      for (;;) {
        const attempt = attempts[next++];
        if (attempt === undefined) return;
        await runAttempt(attempt);
        if (outcomes.get(attempt.attemptId)?.resumed === false) finishedRun++;
      }
    };
    await Promise.all(
      Array.from({ length: Math.max(1, Math.min(options.maxParallel, attempts.length)) }, worker),
    );
  } finally {
    options.kill?.removeEventListener('abort', killAll);
    killAll();
    await store.close();
  }
  const ordered = attempts.map((attempt) => {
    const outcome = outcomes.get(attempt.attemptId);
    if (outcome === undefined) throw new Error(`internal: attempt ${attempt.attemptId} was never decided`);
    return outcome;
  });
  return { attempts: ordered, stopped, startedAt, finishedAt: new Date().toISOString() };
}

/** What the ledger said when it stored nothing of one input: its first code, and every reason it gave. */
function refusalOf(summary: IngestSummary): LedgerRefusal {
  const why: { code: string; text: string }[] = [
    ...summary.invalid.map((entry) => ({
      code: entry.issues[0]?.code ?? 'invalid',
      text: `invalid: ${entry.issues.map((issue) => issue.code).join(', ')}`,
    })),
    ...summary.foreign.map((entry) => ({
      code: entry.issues[0]?.code ?? 'foreign',
      text: `not of the suite: ${entry.issues.map((issue) => issue.code).join(', ')}`,
    })),
    ...summary.conflicts.map((entry) => ({
      code: 'attempt_digest_conflict',
      text: `the ledger holds another record for this attempt (${entry.existingDigest}, this bundle ${entry.bundleDigest}): nothing overwritten`,
    })),
    ...summary.storeRefused.map((entry) => ({
      code: entry.error.code,
      text: `the store refused it: ${entry.error.message}`,
    })),
    ...summary.unreadable.map((entry) => ({ code: 'unreadable', text: `unreadable: ${entry.error}` })),
  ];
  return {
    code: why[0]?.code ?? 'not_stored',
    message: why.map((entry) => entry.text).join('; ') || 'nothing stored',
  };
}

/** A bundle whose identity is not the planned try's is never stored (it would count elsewhere, or nowhere). */
function keyRefusal(bundle: NativeEvidence['key'], planned: NativeEvidence['key']): LedgerRefusal | null {
  const differ = (['runId', 'caseId', 'configId', 'attemptId'] as const).filter(
    (field) => bundle[field] !== planned[field],
  );
  if (differ.length === 0) return null;
  return {
    code: 'attempt_key_mismatch',
    message: `the bundle is of another attempt than the planned try (${differ
      .map((field) => `${field} ${JSON.stringify(bundle[field])}, planned ${JSON.stringify(planned[field])}`)
      .join('; ')}): not stored`,
  };
}

function identity(
  attempt: PlannedAttempt,
): Pick<AttemptOutcome, 'attemptId' | 'laneId' | 'caseId' | 'index' | 'shard'> {
  return {
    attemptId: attempt.attemptId,
    laneId: attempt.laneId,
    caseId: attempt.caseId,
    index: attempt.index,
    shard: attempt.shard,
  };
}

function withoutMessage(
  failure: InfrastructureFailure | null | undefined,
): AttemptOutcome['infrastructureFailure'] {
  if (failure === null || failure === undefined) return null;
  return { class: failure.class, category: failure.category, retryable: failure.retryable };
}

export function stopReasonText(why: StopReason): string {
  return why === 'budget'
    ? 'not run (budget): the campaign reached its cost ceiling'
    : why === 'budget_unproven'
      ? 'not run (budget): a try of unknown cost leaves the remaining budget unproven (--allow-unpriced to go on)'
      : 'not run: the campaign was interrupted';
}

/** Every try's figures summed, each kind apart; a kind with any unknown try is null (not proven). */
export function sumCost(tries: readonly TryOutcome[]): TryCost {
  const sum = (pick: (cost: TryCost) => number | null): number | null => {
    let total = 0;
    for (const { cost } of tries) {
      const value = pick(cost);
      if (value === null) return null;
      total += value;
    }
    return tries.length === 0 ? null : total;
  };
  const observed = sum((cost) => cost.observedNanodollars);
  const provider = sum((cost) => cost.providerReportedNanodollars);
  return {
    providerReportedNanodollars: provider,
    estimatedNanodollars: sum((cost) => cost.estimatedNanodollars),
    legacyLedgerNanodollars: sum((cost) => cost.legacyLedgerNanodollars),
    observedNanodollars: observed,
    observedFrom: observed === null ? null : provider !== null ? 'provider_reported' : 'estimated',
  };
}
