// The numbers a report shows, built in one streaming pass over the store: every attempt gets its
// honest status (scoring.ts) and lands in a (run, case, config) tally; the grid, per-config rates,
// the trend across runs, flaky cases and paired comparisons are derived from those small tallies,
// never from a list of every attempt. Every rate states its denominator: what it counted, what it
// excluded and why. Runs are ordered by when they started; the newest run's grid (latestGrid, with
// each cell's change since its previous run) stands beside the grid pooled over every run, and the
// newest run's per-config rates (latestConfigStats) beside the pooled ones, so a collapse in the
// newest run is never hidden by a green pooled cell or rate (grid-view.ts picks the view every
// surface and gate reads; a comparison of configs pairs that view's runs); flakiness is variation within
// one run (a change between runs is a trend). Each check's verdicts are tallied per config (the
// checks × configs table), but for the runner's per-call observations (check-drift.ts). Stored policy verdicts, read after the attempts, are tallied per (config, policy
// digest) the same way, and each check's score per run feeds its drift (check-drift.ts). Retracted
// attempts, and foreign ones (kept apart at ingest, or not of the report's environment: see
// scoring's withExpectedChecks; unless includeForeign), count nowhere: not in a
// cell, a rate, a comparison, a trend, a drift or a gate; the summary says how many were left out.
import { instantMs } from '@paperclip-evals/contract';

import { EvalbookError } from '../errors.js';
import { CheckDriftTally, isPerCallObservation } from './check-drift.js';
import type { Issue } from '@paperclip-evals/contract';
import type { Layer } from '@paperclip-evals/checks';
import type { AttemptKey, ScoreRow } from '../ledger/convert.js';
import type { Environment } from '../ledger/environment.js';
import { attemptArtifactVerification, emptyArtifactCounts } from '../ledger/convert.js';
import type { ArtifactCounts } from '../ledger/convert.js';
import type { CheckDrift } from './check-drift.js';
import type { DriftThresholdOf } from '../ledger/environment.js';
import { CoverageTally } from '../ledger/cost.js';
import type { CoverageSummary } from '../ledger/cost.js';
import { POLICY_AGREEMENTS } from '../ledger/policy-verdicts.js';
import type { PolicyAgreement, PolicyVerdict } from '../ledger/policy-verdicts.js';
import { RetractionIndex, isForeign } from '../ledger/retraction.js';
import type { LeftOutCounts, LeftOutReason, Retraction } from '../ledger/retraction.js';
import { ATTEMPT_STATUSES, attemptVerdict } from './scoring.js';
import type { AttemptStatus, AttemptVerdict } from './scoring.js';
import {
  DEFAULT_BOOTSTRAP_RESAMPLES,
  DEFAULT_BOOTSTRAP_SEED,
  clusteredBootstrapInterval,
  mcnemarExact,
  pairedBootstrapDifference,
  passAtK,
  passHatK,
  wilsonInterval,
} from './statistics.js';
import type { StoredAttempt } from '../ledger/store.js';

export const SUMMARY_V1 = 'paperclip-evals/summary/v1';

/**
 * The two views of a summary's runs (grid-view.ts decides which a surface shows): newest_run, the
 * newest run's cells and rates (the default); all_runs, every run in scope pooled.
 */
export type GridView = 'newest_run' | 'all_runs';

/** A run or config named for the summary (--run, --a/--b, --a-run/--b-run) that the evalbook lacks. */
export function scopeError(message: string, issues: readonly Issue[] = []): EvalbookError {
  return new EvalbookError('paperclip_evalbook_scope_unknown', message, issues);
}

/**
 * all_attempts: errored, incomplete and over-budget attempts count against the rate (the default:
 * a flaky harness cannot make a config look better) · evaluated_only: only solved + unsolved count.
 */
export type DenominatorPolicy = 'all_attempts' | 'evaluated_only';

export type StatusCounts = Record<AttemptStatus, number>;

export interface Denominator {
  readonly policy: DenominatorPolicy;
  /** Attempts in the denominator. */
  readonly counted: number;
  /** Attempts left out, by why (only non-zero entries). */
  readonly excluded: Readonly<Partial<Record<AttemptStatus, number>>>;
}

export interface RateWithInterval {
  readonly solved: number;
  readonly denominator: Denominator;
  /** null when nothing was counted (never 0/0 = 0). */
  readonly solveRate: number | null;
  readonly ci95: readonly [number, number] | null;
}

export interface GridCell extends RateWithInterval {
  readonly caseId: string;
  readonly configId: string;
  readonly statusCounts: StatusCounts;
  /** pass@k (unbiased) and pass^k for k = 1 … min(counted, 5), when there are several attempts. */
  readonly passAtK: readonly { readonly k: number; readonly passAtK: number; readonly passHatK: number }[];
  /**
   * Some run of the cell has both solved and unsolved attempts: the agent's outcome varies within one
   * run (errors are not flakiness of the agent; a change from one run to the next is a trend).
   */
  readonly flaky: boolean;
  readonly cost: CoverageSummary;
  /** Priced cost ÷ solved attempts; null without a solve or when any attempt is unpriced. */
  readonly costPerSolvedNanodollars: number | null;
}

/** A cell's rate in one run. */
export interface CellRunRate {
  readonly runId: string;
  readonly solved: number;
  readonly counted: number;
  /** null when nothing was counted. */
  readonly solveRate: number | null;
}

/**
 * How a newest-run cell moved since its previous run: up, down or same (by delta), new (no earlier
 * run counted an attempt of it), or no_rate (the newest run counted nothing: no rate to compare).
 */
export type CellTrend = 'up' | 'down' | 'same' | 'new' | 'no_rate';

export const CELL_TRENDS: readonly CellTrend[] = ['up', 'down', 'same', 'new', 'no_rate'];

/** A cell of the newest run's grid: its numbers in that run and how they moved since its previous run. */
export interface LatestGridCell extends GridCell {
  readonly runId: string;
  /** The cell's nearest earlier run that counted an attempt; null when the cell is new in this run. */
  readonly previous: CellRunRate | null;
  /** solveRate − previous.solveRate; null when either is null. */
  readonly delta: number | null;
  /** delta in a word (what a terminal, Markdown or JUnit reader sees beside the cell). */
  readonly trend: CellTrend;
}

/** One check's verdicts over some attempts; errors and missing verdicts are counted, never a 0. */
export interface CheckCounts {
  readonly pass: number;
  readonly fail: number;
  readonly softFail: number;
  readonly error: number;
  readonly notEvaluated: number;
  /** pass ÷ (pass + fail + soft fail); null without a verdict. */
  readonly passRate: number | null;
}

/** A row of the checks × configs table: one check of the cases, for one config. */
export interface CheckRate {
  readonly checkId: string;
  readonly configId: string;
  /** The engine layer of an engine check; null for a check the runner reports. */
  readonly layer: Layer | null;
  /** From the environment's cases (the first that describes this check), else null. */
  readonly description: string | null;
  /** In the newest run (latestRun); null when the check has no row there. */
  readonly latest: CheckCounts | null;
  /** Over every run in scope, the first onward. */
  readonly all: CheckCounts;
}

/** What a case is, from the environment (null fields without one, or when it says nothing). */
export interface CaseIdentity {
  readonly caseId: string;
  readonly description: string | null;
  readonly prompt: string | null;
}

/** What a config is, from the environment. */
export interface ConfigIdentity {
  readonly configId: string;
  readonly model: string | null;
  readonly driver: string | null;
  readonly description: string | null;
}

export interface ConfigStat extends RateWithInterval {
  readonly configId: string;
  readonly cases: number;
  readonly statusCounts: StatusCounts;
  /** How ci95 was made: a percentile bootstrap resampling cases. */
  readonly interval: 'bootstrap_clustered_by_case';
  readonly cost: CoverageSummary;
  readonly costPerSolvedNanodollars: number | null;
}

export interface TrendPoint extends RateWithInterval {
  readonly runId: string;
  readonly configId: string;
}

export interface CaseDelta {
  readonly caseId: string;
  /**
   * A run comparison pairs each case on each config (the runs are the sides, so the same case on two
   * configs is two pairs: pooled, a config that collapsed and one that recovered would cancel out);
   * null in a config comparison, whose sides are the configs.
   */
  readonly configId: string | null;
  /** Solved and counted attempts on each side (under the denominator policy): the rates' own numbers. */
  readonly aSolved: number;
  readonly aCounted: number;
  readonly bSolved: number;
  readonly bCounted: number;
  readonly aSolveRate: number;
  readonly bSolveRate: number;
  readonly delta: number;
}

/** A paired delta's name: its case, and in a run comparison the config it is on. */
export function deltaName(delta: CaseDelta): string {
  return delta.configId === null ? delta.caseId : `${delta.caseId} on ${delta.configId}`;
}

/** "3 shared cases" (configs compared) or "6 shared case × config pairs" (runs compared). */
export function sharedUnits(comparison: Pick<Comparison, 'by' | 'sharedCases'>): string {
  const n = comparison.sharedCases;
  return comparison.by === 'config'
    ? `${n} shared case${n === 1 ? '' : 's'}`
    : `${n} shared case × config pair${n === 1 ? '' : 's'}`;
}

export interface Comparison {
  readonly by: 'config' | 'run';
  readonly a: string;
  readonly b: string;
  /**
   * The runs the comparison counts: by config, the view's (the newest run, or the --run, by default;
   * every run in scope with the all_runs view); by run, the two runs named.
   */
  readonly runs: readonly string[];
  readonly sharedCases: number;
  /** Cases only one side has: not compared. */
  readonly unsharedCases: number;
  readonly aWins: number;
  readonly bWins: number;
  readonly ties: number;
  /** Exact two-sided McNemar on cases whose majority outcome differs. */
  readonly mcnemarP: number;
  readonly discordant: { readonly aOnly: number; readonly bOnly: number };
  /** Mean over shared cases of (B's solve rate − A's); null without shared cases. */
  readonly deltaSolveRate: number | null;
  readonly deltaSolveRateCi95: readonly [number, number] | null;
  /** Cases where B is worse than A, worst first: what a reviewer must look at. */
  readonly regressions: readonly CaseDelta[];
  readonly improvements: readonly CaseDelta[];
  readonly cost: {
    readonly a: CoverageSummary;
    readonly b: CoverageSummary;
    /** Mean priced cost per attempt, B − A (null when either side has no priced attempt). */
    readonly meanDeltaNanodollars: number | null;
  };
}

/** One config's tool calls as replayed through one policy bundle: how often policy and runner agree. */
export interface PolicyStat {
  readonly configId: string;
  readonly policyDigest: string;
  /** Tool calls compared (the sum of the counts). */
  readonly toolCalls: number;
  readonly counts: Readonly<Record<PolicyAgreement, number>>;
}

export interface EvalbookSummary {
  readonly schema: typeof SUMMARY_V1;
  readonly denominatorPolicy: DenominatorPolicy;
  /** The run the grid, per-config rates and config comparisons are limited to (--run), or null for all. */
  readonly runScope: string | null;
  readonly attempts: number;
  readonly statusCounts: StatusCounts;
  /**
   * Attempts within the run scope that count nowhere in this summary: foreign (their case or config
   * is not the environment's: kept apart at ingest, or found so by the report's environment;
   * counted only with includeForeign), retracted, and retried (a campaign's try a later try of the
   * same planned attempt replaced: the planned attempt counts once, by its final try).
   */
  readonly leftOut: LeftOutCounts;
  /** Whether foreign attempts were asked for (includeForeign), and how many of them were counted. */
  readonly includeForeign: boolean;
  readonly foreignIncluded: number;
  /** The retractions of runs in the run scope (who, why, when), in the order they were made. */
  readonly retractions: readonly Retraction[];
  /** Attempts (within the run scope) by whether ingest verified their artifacts' bytes. */
  readonly artifactVerification: ArtifactCounts;
  /** Every run, by when its first attempt started (then insertion order), never by name. */
  readonly runs: readonly string[];
  readonly cases: readonly string[];
  readonly configs: readonly string[];
  /** Every run in scope pooled, per case × config. */
  readonly grid: readonly GridCell[];
  /** The runs `grid` pools, in `runs` order: every run in scope (the --run alone with one). */
  readonly gridRuns: readonly string[];
  /** The newest run in scope (the --run, else the last of `runs`); null without attempts. */
  readonly latestRun: string | null;
  /** The newest run's cells (cells it has no attempt for are absent), each with its change since its previous run. */
  readonly latestGrid: readonly LatestGridCell[];
  /** Per-config rates over every run in scope pooled (`gridRuns`): the all_runs view's. */
  readonly configStats: readonly ConfigStat[];
  /**
   * The newest run's per-config rates (`latestRun` alone; configs it has no attempt of are absent):
   * the newest_run view's, which the gates and verdicts read by default (grid-view.ts).
   */
  readonly latestConfigStats: readonly ConfigStat[];
  /** Per run (in `runs` order) and config. */
  readonly trend: readonly TrendPoint[];
  /** The newest run's flaky cells (both solved and unsolved attempts in that run). */
  readonly flakyCells: readonly { readonly caseId: string; readonly configId: string }[];
  readonly coverage: CoverageSummary;
  readonly comparison: Comparison | null;
  /** Policy replay verdicts per config and policy digest (within the run scope); null when none are stored. */
  readonly policy: readonly PolicyStat[] | null;
  /**
   * Each (case, check, config)'s score per run and its drift, drifting first. With a run scope, that
   * run is the one judged against the runs before it.
   */
  readonly checkDrift: readonly CheckDrift[];
  /** Soft checks that fell short (within the run scope), per check, most first: shown, not failing. */
  readonly softFailures: readonly { readonly checkId: string; readonly attempts: number }[];
  /** Each check × config's verdicts (within the run scope), by check then config. */
  readonly checkRates: readonly CheckRate[];
  /** Score rows (within the run scope) that are the runner's per-call observations: in no check row or drift. */
  readonly perCallObservations: number;
  /** What each case and config of the summary is, from the environment (empty lists without one). */
  readonly identity: {
    readonly cases: readonly CaseIdentity[];
    readonly configs: readonly ConfigIdentity[];
  };
}

export interface CompareSpec {
  readonly by: 'config' | 'run';
  readonly a: string;
  readonly b: string;
}

export interface SummaryOptions {
  readonly policy?: DenominatorPolicy;
  /** Only attempts of this run (grid, configs and comparisons by config). */
  readonly runId?: string;
  /**
   * A run whose every attempt is left out (retracted) gives a summary with nothing counted instead of
   * an error: a published site shows such a campaign (what it held, and that none of it counts).
   */
  readonly leftOutRunAllowed?: boolean;
  readonly compare?: CompareSpec;
  /**
   * The runs a comparison of configs pairs (grid-view.ts): newest_run (the default) the newest run
   * (or the --run), all_runs every run in scope. A comparison of runs names its runs.
   */
  readonly view?: GridView;
  /** Bootstrap seed and resamples: the same evalbook always gives the same intervals. */
  readonly seed?: number;
  readonly resamples?: number;
  /** The static threshold of a check's drift bar (from the environment); default 0.8. */
  readonly driftThresholdOf?: DriftThresholdOf;
  /** Count attempts kept apart as foreign like any other (default: left out, and counted as such). */
  readonly includeForeign?: boolean;
  /** The store's retractions: the attempts they cover are left out. */
  readonly retractions?: readonly Retraction[];
  /** The store's retried tries (LedgerStore.retriedTries): left out, their final try counts. */
  readonly retried?: readonly AttemptKey[];
  /** The environment's cases and configs: what they are (identity) and their checks' descriptions. */
  readonly suite?: Pick<Environment, 'cases' | 'configs'>;
}

/** Bootstrap intervals over cases need at least this many cases with counted attempts. */
const MIN_BOOTSTRAP_CASES = 2;

/** pass@k is listed up to this k: beyond it the numbers say little a reader can act on. */
const MAX_K = 5;

const emptyCounts = (): StatusCounts => ({
  solved: 0,
  unsolved: 0,
  errored: 0,
  incomplete: 0,
  over_budget: 0,
});

/** One (run, case, config) tally. */
interface Tally {
  readonly runId: string;
  readonly caseId: string;
  readonly configId: string;
  readonly counts: StatusCounts;
  readonly cost: CoverageTally;
}

/** One (config, policy digest) tally of policy verdicts. */
interface PolicyTally {
  readonly configId: string;
  readonly policyDigest: string;
  readonly counts: Record<PolicyAgreement, number>;
}

/** Merged tallies: the counts and cost of a group of (run, case, config) tallies. */
interface Group {
  readonly counts: StatusCounts;
  readonly costs: CoverageTally[];
  /** Some (run, case, config) tally of the group has both solved and unsolved attempts. */
  flaky: boolean;
}

/** One check × config's verdict counts per run (in the run scope). */
interface CheckTally {
  readonly checkId: string;
  readonly configId: string;
  readonly layer: Layer | null;
  readonly byRun: Map<string, Record<ScoreRow['status'], number>>;
}

export class SummaryBuilder {
  private readonly tallies = new Map<string, Tally>();
  private readonly totals = emptyCounts();
  private readonly coverage = new CoverageTally();
  private attempts = 0;
  private readonly leftOutCounts: Record<LeftOutReason, number> = { foreign: 0, retracted: 0, retried: 0 };
  /** keyText of each retried try. */
  private readonly retried: ReadonlySet<string>;
  private foreignIncluded = 0;
  private readonly retracted: RetractionIndex;
  /** Keys of foreign attempts left out (few), so their policy verdicts are left out too. */
  private readonly foreignKeys = new Set<string>();
  /** Runs seen only through left-out attempts, with why: a --run naming one is told so. */
  private readonly leftOutRuns = new Map<string, Set<LeftOutReason>>();
  private readonly artifacts = emptyArtifactCounts();
  private readonly policyTallies = new Map<string, PolicyTally>();
  private policyVerdicts = 0;
  private readonly checkDrift = new CheckDriftTally();
  private readonly softFailures = new Map<string, number>();
  private readonly checkTallies = new Map<string, CheckTally>();
  private perCallObservations = 0;
  /** Each run's first place in the stream and its earliest attempt start (ms), for the run order. */
  private readonly runInfo = new Map<string, { firstSeen: number; earliestStart: number }>();

  constructor(private readonly options: SummaryOptions = {}) {
    this.retracted = new RetractionIndex(options.retractions ?? []);
    this.retried = new Set((options.retried ?? []).map(keyText));
  }

  /** Why this summary leaves an attempt out (retracted first, then retried), or null when it counts. */
  leftOut(stored: StoredAttempt): LeftOutReason | null {
    if (this.retracted.of(stored.key) !== undefined) return 'retracted';
    if (this.retried.size > 0 && this.retried.has(keyText(stored.key))) return 'retried';
    if (isForeign(stored) && this.options.includeForeign !== true) return 'foreign';
    return null;
  }

  /**
   * Counts one attempt; returns its verdict (so a report can list it beside the attempt), or null
   * when it is left out (retracted, retried, or foreign without includeForeign): then it counts nowhere.
   */
  add(stored: StoredAttempt): AttemptVerdict | null {
    const { runId, caseId, configId } = stored.key;
    const leftOut = this.leftOut(stored);
    if (leftOut !== null) {
      if (this.inScope(runId)) this.leftOutCounts[leftOut]++;
      if (leftOut === 'foreign') this.foreignKeys.add(keyText(stored.key));
      let reasons = this.leftOutRuns.get(runId);
      if (reasons === undefined) this.leftOutRuns.set(runId, (reasons = new Set()));
      reasons.add(leftOut);
      return null;
    }
    const verdict = attemptVerdict(stored.record, stored.scores);
    const started = instantMs(stored.record.startedAt ?? '');
    const run = this.runInfo.get(runId);
    if (run === undefined)
      this.runInfo.set(runId, {
        firstSeen: this.runInfo.size,
        earliestStart: Number.isNaN(started) ? Infinity : started,
      });
    else if (started < run.earliestStart) run.earliestStart = started;
    const key = `${runId}\u0000${caseId}\u0000${configId}`;
    let tally = this.tallies.get(key);
    if (tally === undefined) {
      tally = {
        runId,
        caseId,
        configId,
        counts: emptyCounts(),
        cost: new CoverageTally(),
      };
      this.tallies.set(key, tally);
    }
    // The totals speak of the run scope (--run) like the grid; the trend and drift see every run.
    const inScope = this.inScope(runId);
    if (inScope) {
      this.attempts++;
      this.coverage.add(stored.record.cost);
      if (isForeign(stored)) this.foreignIncluded++;
      this.artifacts[attemptArtifactVerification(stored.record.references.map((ref) => ref.verification))]++;
    }
    tally.counts[verdict.status]++;
    const callIds = new Set(stored.record.toolCalls.map((call) => call.callId));
    if (inScope) {
      this.totals[verdict.status]++;
      for (const score of stored.scores) {
        if (score.status === 'soft_fail')
          this.softFailures.set(score.checkId, (this.softFailures.get(score.checkId) ?? 0) + 1);
        if (isPerCallObservation(score, callIds)) this.perCallObservations++;
        else this.addCheck(runId, configId, score);
      }
    }
    tally.cost.add(stored.record.cost);
    this.checkDrift.add(stored.key, stored.scores, callIds);
    return verdict;
  }

  private addCheck(runId: string, configId: string, score: ScoreRow): void {
    const key = `${score.checkId}\u0000${configId}`;
    let check = this.checkTallies.get(key);
    if (check === undefined)
      this.checkTallies.set(
        key,
        (check = { checkId: score.checkId, configId, layer: score.layer, byRun: new Map() }),
      );
    let counts = check.byRun.get(runId);
    if (counts === undefined)
      check.byRun.set(runId, (counts = { pass: 0, fail: 0, soft_fail: 0, error: 0, not_evaluated: 0 }));
    counts[score.status]++;
  }

  /**
   * Each (run, case, config) tally's status counts, within the run scope (what the HTML report
   * shares its embedded attempts by).
   */
  cellRunCounts(): { runId: string; caseId: string; configId: string; counts: StatusCounts }[] {
    return [...this.tallies.values()]
      .filter((tally) => this.inScope(tally.runId))
      .map(({ runId, caseId, configId, counts }) => ({ runId, caseId, configId, counts: { ...counts } }));
  }

  /** Whether a run is in the run scope (every run without one). */
  inScope(runId: string): boolean {
    return this.options.runId === undefined || runId === this.options.runId;
  }

  /** Counts one stored policy verdict (outside the run scope: counted as seen, left out of the table). */
  addPolicyVerdict(verdict: PolicyVerdict): void {
    // A left-out attempt's verdicts are left out with it.
    if (this.retracted.of(verdict.key) !== undefined || this.foreignKeys.has(keyText(verdict.key))) return;
    this.policyVerdicts++;
    if (this.options.runId !== undefined && verdict.key.runId !== this.options.runId) return;
    const { configId } = verdict.key;
    const key = `${configId}\u0000${verdict.policyDigest}`;
    let tally = this.policyTallies.get(key);
    if (tally === undefined) {
      const counts = Object.fromEntries(POLICY_AGREEMENTS.map((agreement) => [agreement, 0]));
      tally = {
        configId,
        policyDigest: verdict.policyDigest,
        counts: counts as Record<PolicyAgreement, number>,
      };
      this.policyTallies.set(key, tally);
    }
    tally.counts[verdict.agreement]++;
  }

  /**
   * Throws EvalbookError paperclip_evalbook_scope_unknown when --run, --a/--b or --a-run/--b-run
   * name something the evalbook lacks.
   */
  build(): EvalbookSummary {
    this.checkNames();
    const policy = this.options.policy ?? 'all_attempts';
    // Runs by when their first attempt started (the runner's event time), then by first appearance
    // in the store (insertion order) — never by name: nightly-10 comes after nightly-9.
    const runs = [...this.runInfo]
      .sort(([, a], [, b]) => a.earliestStart - b.earliestStart || a.firstSeen - b.firstSeen)
      .map(([runId]) => runId);
    const runOrder = new Map(runs.map((runId, index) => [runId, index]));
    const scoped = [...this.tallies.values()].filter(
      (tally) => this.options.runId === undefined || tally.runId === this.options.runId,
    );
    const sorted = (values: Iterable<string>): string[] => [...new Set(values)].sort();
    const cases = sorted(scoped.map((tally) => tally.caseId));
    const configs = sorted(scoped.map((tally) => tally.configId));

    const cellGroups = groupBy(scoped, (tally) => [tally.caseId, tally.configId]);
    const grid: GridCell[] = [];
    for (const caseId of cases)
      for (const configId of configs) {
        const group = cellGroups.get(JSON.stringify([caseId, configId]));
        if (group !== undefined) grid.push(gridCell(caseId, configId, group, policy));
      }

    const configStats = this.configStats(cellGroups, cases, configs, policy);

    const trendGroups = groupBy([...this.tallies.values()], (tally) => [tally.runId, tally.configId]);
    const trend: TrendPoint[] = [...trendGroups.entries()]
      .map(([key, group]) => {
        const [runId = '', configId = ''] = JSON.parse(key) as string[];
        return { runId, configId, ...withWilson(rateOf(group, policy)) };
      })
      .sort((x, y) =>
        x.runId === y.runId
          ? cmp(x.configId, y.configId)
          : (runOrder.get(x.runId) ?? 0) - (runOrder.get(y.runId) ?? 0),
      );

    const latestRun = this.options.runId ?? runs.at(-1) ?? null;
    const latestGrid = this.latestGrid(latestRun, cases, configs, runOrder, policy);
    // The newest run's per-config rates: configStats of a summary scoped to that run.
    const latestTallies = scoped.filter((tally) => tally.runId === latestRun);
    const latestConfigStats = this.configStats(
      groupBy(latestTallies, (tally) => [tally.caseId, tally.configId]),
      sorted(latestTallies.map((tally) => tally.caseId)),
      sorted(latestTallies.map((tally) => tally.configId)),
      policy,
    );
    const gridRuns = runs.filter((runId) => this.inScope(runId));
    return {
      schema: SUMMARY_V1,
      denominatorPolicy: policy,
      runScope: this.options.runId ?? null,
      attempts: this.attempts,
      statusCounts: { ...this.totals },
      leftOut: { ...this.leftOutCounts },
      includeForeign: this.options.includeForeign === true,
      foreignIncluded: this.foreignIncluded,
      retractions: (this.options.retractions ?? []).filter((retraction) => this.inScope(retraction.runId)),
      artifactVerification: { ...this.artifacts },
      runs,
      cases,
      configs,
      grid,
      gridRuns,
      latestRun,
      latestGrid,
      configStats,
      latestConfigStats,
      trend,
      flakyCells: latestGrid
        .filter((cell) => cell.flaky)
        .map(({ caseId, configId }) => ({ caseId, configId })),
      coverage: this.coverage.summary(),
      comparison:
        this.options.compare === undefined
          ? null
          : this.compare(
              this.options.compare,
              policy,
              (this.options.view ?? 'newest_run') === 'all_runs' || latestRun === null
                ? gridRuns
                : [latestRun],
            ),
      policy: this.policyVerdicts === 0 ? null : this.policyStats(),
      checkDrift: this.checkDrift.build(runOrder, this.options.driftThresholdOf, this.options.runId),
      softFailures: [...this.softFailures]
        .map(([checkId, attempts]) => ({ checkId, attempts }))
        .sort((x, y) => y.attempts - x.attempts || cmp(x.checkId, y.checkId)),
      checkRates: this.checkRates(latestRun),
      perCallObservations: this.perCallObservations,
      identity: this.identity(cases, configs),
    };
  }

  /** Per-config rates over the cells' groups (by case, then config): a rate and a case-clustered bootstrap interval. */
  private configStats(
    cellGroups: ReadonlyMap<string, Group>,
    cases: readonly string[],
    configs: readonly string[],
    policy: DenominatorPolicy,
  ): ConfigStat[] {
    return configs.map((configId) => {
      const perCase = cases
        .map((caseId) => cellGroups.get(JSON.stringify([caseId, configId])))
        .filter((group): group is Group => group !== undefined);
      const merged = mergeGroups(perCase);
      const rate = rateOf(merged, policy);
      const clusters = perCase.map((group) => {
        const { solved, counted } = solvedAndCounted(group.counts, policy);
        return { successes: solved, trials: counted };
      });
      const counted = clusters.filter((cluster) => cluster.trials > 0);
      // Resampling one case says nothing about other cases: no interval rather than a point.
      const interval =
        rate.solveRate === null || counted.length < MIN_BOOTSTRAP_CASES
          ? null
          : clusteredBootstrapInterval(counted, this.bootstrapOptions());
      const cost = summariseCost(merged.costs);
      return {
        configId,
        cases: perCase.length,
        statusCounts: merged.counts,
        ...rate,
        ci95: interval === null ? null : ([interval.lo, interval.hi] as const),
        interval: 'bootstrap_clustered_by_case' as const,
        cost,
        costPerSolvedNanodollars: costPerSolved(cost, rate.solved),
      } satisfies ConfigStat;
    });
  }

  /** The newest run's cells, each with the cell's nearest earlier run that counted something. */
  private latestGrid(
    latestRun: string | null,
    cases: readonly string[],
    configs: readonly string[],
    runOrder: ReadonlyMap<string, number>,
    policy: DenominatorPolicy,
  ): LatestGridCell[] {
    if (latestRun === null) return [];
    const last = runOrder.get(latestRun) ?? -1;
    const byCell = new Map<string, Tally[]>();
    for (const tally of this.tallies.values()) {
      const key = JSON.stringify([tally.caseId, tally.configId]);
      const list = byCell.get(key);
      if (list === undefined) byCell.set(key, [tally]);
      else list.push(tally);
    }
    const cells: LatestGridCell[] = [];
    for (const caseId of cases)
      for (const configId of configs) {
        const tallies = byCell.get(JSON.stringify([caseId, configId])) ?? [];
        const newest = tallies.find((tally) => tally.runId === latestRun);
        if (newest === undefined) continue;
        const cell = gridCell(
          caseId,
          configId,
          mergeGroups([...groupBy([newest], () => []).values()]),
          policy,
        );
        const earlier = tallies
          .filter((tally) => (runOrder.get(tally.runId) ?? Infinity) < last)
          .filter((tally) => solvedAndCounted(tally.counts, policy).counted > 0)
          .sort((x, y) => (runOrder.get(y.runId) ?? 0) - (runOrder.get(x.runId) ?? 0))[0];
        if (earlier === undefined) {
          cells.push({
            ...cell,
            runId: latestRun,
            previous: null,
            delta: null,
            trend: cell.solveRate === null ? 'no_rate' : 'new',
          });
          continue;
        }
        const { solved, counted } = solvedAndCounted(earlier.counts, policy);
        const previous = { runId: earlier.runId, solved, counted, solveRate: solved / counted };
        const delta = cell.solveRate === null ? null : cell.solveRate - previous.solveRate;
        cells.push({
          ...cell,
          runId: latestRun,
          previous,
          delta,
          trend: delta === null ? 'no_rate' : delta > 0 ? 'up' : delta < 0 ? 'down' : 'same',
        });
      }
    return cells;
  }

  private checkRates(latestRun: string | null): CheckRate[] {
    const descriptions = new Map<string, string>();
    for (const entry of this.options.suite?.cases ?? [])
      for (const check of entry.checks ?? [])
        if (check.description !== undefined && !descriptions.has(check.id))
          descriptions.set(check.id, check.description);
    const countsOf = (runs: Iterable<Record<ScoreRow['status'], number>>): CheckCounts => {
      const sum = { pass: 0, fail: 0, soft_fail: 0, error: 0, not_evaluated: 0 };
      for (const run of runs)
        for (const status of Object.keys(sum) as ScoreRow['status'][]) sum[status] += run[status];
      const verdicts = sum.pass + sum.fail + sum.soft_fail;
      return {
        pass: sum.pass,
        fail: sum.fail,
        softFail: sum.soft_fail,
        error: sum.error,
        notEvaluated: sum.not_evaluated,
        passRate: verdicts === 0 ? null : sum.pass / verdicts,
      };
    };
    return [...this.checkTallies.values()]
      .sort((x, y) => cmp(x.checkId, y.checkId) || cmp(x.configId, y.configId))
      .map((check) => {
        const latest = latestRun === null ? undefined : check.byRun.get(latestRun);
        return {
          checkId: check.checkId,
          configId: check.configId,
          layer: check.layer,
          description: descriptions.get(check.checkId) ?? null,
          latest: latest === undefined ? null : countsOf([latest]),
          all: countsOf(check.byRun.values()),
        };
      });
  }

  private identity(cases: readonly string[], configs: readonly string[]): EvalbookSummary['identity'] {
    const suite = this.options.suite;
    if (suite === undefined) return { cases: [], configs: [] };
    const caseOf = new Map(suite.cases.map((entry) => [entry.id, entry]));
    const configOf = new Map(suite.configs.map((entry) => [entry.id, entry]));
    return {
      cases: cases.flatMap((caseId) => {
        const entry = caseOf.get(caseId);
        return entry === undefined
          ? []
          : [{ caseId, description: entry.description ?? null, prompt: entry.prompt ?? null }];
      }),
      configs: configs.flatMap((configId) => {
        const entry = configOf.get(configId);
        return entry === undefined
          ? []
          : [
              {
                configId,
                model: entry.model,
                driver: entry.driver,
                description: entry.description ?? null,
              },
            ];
      }),
    };
  }

  private checkNames(): void {
    const runs = new Set(this.runInfo.keys());
    const configs = new Set([...this.tallies.values()].map((tally) => tally.configId));
    const known = (kind: 'run' | 'config', names: ReadonlySet<string>, name: string, flag: string): void => {
      if (names.has(name)) return;
      const listed = [...names].sort().slice(0, 10);
      const shown = `${listed.join(', ')}${names.size > 10 ? ', …' : ''}`;
      const issue = (message: string, expected: string): Issue => ({
        code: `${kind}_unknown`,
        component: flag,
        message,
        expected,
        received: name,
      });
      const leftOut = kind === 'run' ? this.leftOutRuns.get(name) : undefined;
      if (leftOut !== undefined && flag === '--run' && this.options.leftOutRunAllowed === true) return;
      if (leftOut !== undefined) {
        const message = `run ${JSON.stringify(name)} has no attempt to count: ${[...leftOut]
          .map((reason) =>
            reason === 'retracted'
              ? 'its attempts are retracted (see `evals runs`)'
              : reason === 'retried'
                ? 'some of its tries were replaced by a retry'
                : "its attempts are foreign, not of the environment's suite (--include-foreign counts them)",
          )
          .join('; ')}`;
        throw scopeError(message, [issue(message, 'a run with attempts that count')]);
      }
      const message =
        `no ${kind} named ${JSON.stringify(name)} in this evalbook` +
        (names.size === 0 ? ' (it has no attempts)' : `; its ${kind}s: ${shown}`);
      const expected =
        names.size === 0
          ? `a ${kind} of the evalbook (it has none yet: evals ingest first)`
          : `one of ${shown}${kind === 'run' ? ' (evals runs lists them)' : ''}`;
      throw scopeError(message, [issue(message, expected)]);
    };
    if (this.options.runId !== undefined) known('run', runs, this.options.runId, '--run');
    const compare = this.options.compare;
    if (compare !== undefined) {
      const names = compare.by === 'run' ? runs : configs;
      known(compare.by, names, compare.a, compare.by === 'run' ? '--a-run' : '--a');
      known(compare.by, names, compare.b, compare.by === 'run' ? '--b-run' : '--b');
    }
  }

  private policyStats(): PolicyStat[] {
    return [...this.policyTallies.values()]
      .map(({ configId, policyDigest, counts }) => ({
        configId,
        policyDigest,
        toolCalls: Object.values(counts).reduce((sum, n) => sum + n, 0),
        counts: { ...counts },
      }))
      .sort((x, y) =>
        x.configId === y.configId ? cmp(x.policyDigest, y.policyDigest) : cmp(x.configId, y.configId),
      );
  }

  private bootstrapOptions(): { resamples: number; seed: number } {
    return {
      resamples: this.options.resamples ?? DEFAULT_BOOTSTRAP_RESAMPLES,
      seed: this.options.seed ?? DEFAULT_BOOTSTRAP_SEED,
    };
  }

  /**
   * Pairs two configs within `viewRuns` (the view's runs: the newest run or the --run, or every run
   * in scope with the all_runs view) or two runs (all configs; named, so no view applies) over their
   * shared cases.
   */
  private compare(spec: CompareSpec, policy: DenominatorPolicy, viewRuns: readonly string[]): Comparison {
    const within = new Set(viewRuns);
    // The paired unit: a case (configs compared) or a case on a config (runs compared).
    const unitOf = (tally: Tally): string[] =>
      spec.by === 'config' ? [tally.caseId] : [tally.caseId, tally.configId];
    const side = (name: string): Map<string, Group> =>
      groupBy(
        [...this.tallies.values()].filter((tally) =>
          spec.by === 'config' ? tally.configId === name && within.has(tally.runId) : tally.runId === name,
        ),
        unitOf,
      );
    const a = side(spec.a);
    const b = side(spec.b);
    const deltas: CaseDelta[] = [];
    let aOnly = 0;
    let bOnly = 0;
    for (const [key, aGroup] of a) {
      const bGroup = b.get(key);
      if (bGroup === undefined) continue;
      const aRate = rateOf(aGroup, policy);
      const bRate = rateOf(bGroup, policy);
      if (aRate.solveRate === null || bRate.solveRate === null) continue;
      const [caseId = '', configId = null] = JSON.parse(key) as string[];
      deltas.push({
        caseId,
        configId,
        aSolved: aRate.solved,
        aCounted: aRate.denominator.counted,
        bSolved: bRate.solved,
        bCounted: bRate.denominator.counted,
        aSolveRate: aRate.solveRate,
        bSolveRate: bRate.solveRate,
        delta: bRate.solveRate - aRate.solveRate,
      });
      const aPass = aRate.solveRate > 0.5;
      const bPass = bRate.solveRate > 0.5;
      if (aPass && !bPass) aOnly++;
      if (bPass && !aPass) bOnly++;
    }
    deltas.sort((x, y) => cmp(x.caseId, y.caseId) || cmp(x.configId ?? '', y.configId ?? ''));
    const allCases = new Set([...a.keys(), ...b.keys()]);
    const difference =
      deltas.length < MIN_BOOTSTRAP_CASES
        ? null
        : pairedBootstrapDifference(
            deltas.map((delta) => ({ a: delta.aSolveRate, b: delta.bSolveRate })),
            this.bootstrapOptions(),
          );
    const aCost = summariseCost(mergeGroups([...a.values()]).costs);
    const bCost = summariseCost(mergeGroups([...b.values()]).costs);
    const meanCost = (cost: CoverageSummary): number | null =>
      cost.priced === 0 ? null : cost.pricedTotalNanodollars / cost.priced;
    const aMean = meanCost(aCost);
    const bMean = meanCost(bCost);
    return {
      by: spec.by,
      a: spec.a,
      b: spec.b,
      runs: spec.by === 'config' ? [...viewRuns] : [spec.a, spec.b],
      sharedCases: deltas.length,
      unsharedCases: allCases.size - deltas.length,
      aWins: deltas.filter((delta) => delta.delta < 0).length,
      bWins: deltas.filter((delta) => delta.delta > 0).length,
      ties: deltas.filter((delta) => delta.delta === 0).length,
      mcnemarP: mcnemarExact(aOnly, bOnly),
      discordant: { aOnly, bOnly },
      deltaSolveRate:
        deltas.length === 0 ? null : deltas.reduce((sum, delta) => sum + delta.delta, 0) / deltas.length,
      deltaSolveRateCi95: difference === null ? null : [difference.lo, difference.hi],
      regressions: deltas.filter((delta) => delta.delta < 0).sort((x, y) => x.delta - y.delta),
      improvements: deltas.filter((delta) => delta.delta > 0).sort((x, y) => y.delta - x.delta),
      cost: {
        a: aCost,
        b: bCost,
        meanDeltaNanodollars: aMean === null || bMean === null ? null : Math.round(bMean - aMean),
      },
    };
  }
}

const keyText = (key: StoredAttempt['key']): string =>
  [key.runId, key.caseId, key.configId, key.attemptId].join('\u0000');

function cmp(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

function groupBy(tallies: readonly Tally[], keyOf: (tally: Tally) => string[]): Map<string, Group> {
  const groups = new Map<string, Group>();
  for (const tally of tallies) {
    const key = JSON.stringify(keyOf(tally));
    let group = groups.get(key);
    if (group === undefined) {
      group = { counts: emptyCounts(), costs: [], flaky: false };
      groups.set(key, group);
    }
    for (const status of ATTEMPT_STATUSES) group.counts[status] += tally.counts[status];
    group.costs.push(tally.cost);
    if (tally.counts.solved > 0 && tally.counts.unsolved > 0) group.flaky = true;
  }
  return groups;
}

function mergeGroups(groups: readonly Group[]): Group {
  const merged: Group = { counts: emptyCounts(), costs: [], flaky: false };
  for (const group of groups) {
    for (const status of ATTEMPT_STATUSES) merged.counts[status] += group.counts[status];
    merged.costs.push(...group.costs);
    if (group.flaky) merged.flaky = true;
  }
  return merged;
}

function summariseCost(tallies: readonly CoverageTally[]): CoverageSummary {
  const merged = new CoverageTally();
  for (const tally of tallies) merged.merge(tally);
  return merged.summary();
}

function solvedAndCounted(
  counts: StatusCounts,
  policy: DenominatorPolicy,
): { solved: number; counted: number } {
  const evaluated = counts.solved + counts.unsolved;
  const counted =
    policy === 'evaluated_only'
      ? evaluated
      : evaluated + counts.errored + counts.incomplete + counts.over_budget;
  return { solved: counts.solved, counted };
}

function rateOf(group: Group, policy: DenominatorPolicy): Omit<RateWithInterval, 'ci95'> {
  const { solved, counted } = solvedAndCounted(group.counts, policy);
  const excluded: Partial<Record<AttemptStatus, number>> = {};
  if (policy === 'evaluated_only')
    for (const status of ['errored', 'incomplete', 'over_budget'] as const)
      if (group.counts[status] > 0) excluded[status] = group.counts[status];
  return {
    solved,
    denominator: { policy, counted, excluded },
    solveRate: counted === 0 ? null : solved / counted,
  };
}

function withWilson(rate: Omit<RateWithInterval, 'ci95'>): RateWithInterval {
  if (rate.denominator.counted === 0) return { ...rate, ci95: null };
  const interval = wilsonInterval(rate.solved, rate.denominator.counted);
  return { ...rate, ci95: [interval.lo, interval.hi] };
}

function costPerSolved(cost: CoverageSummary, solved: number): number | null {
  // With an unpriced attempt the total is a lower bound: a per-solve figure would flatter.
  return solved === 0 || cost.unpriced > 0 ? null : Math.round(cost.pricedTotalNanodollars / solved);
}

function gridCell(caseId: string, configId: string, group: Group, policy: DenominatorPolicy): GridCell {
  const rate = withWilson(rateOf(group, policy));
  const counted = rate.denominator.counted;
  const passAtKRows =
    counted < 2
      ? []
      : Array.from({ length: Math.min(counted, MAX_K) }, (_, index) => ({
          k: index + 1,
          passAtK: passAtK(counted, rate.solved, index + 1),
          passHatK: passHatK(counted, rate.solved, index + 1),
        }));
  const cost = summariseCost(group.costs);
  return {
    caseId,
    configId,
    statusCounts: group.counts,
    ...rate,
    passAtK: passAtKRows,
    flaky: group.flaky,
    cost,
    costPerSolvedNanodollars: costPerSolved(cost, rate.solved),
  };
}

/**
 * The summary of a whole store, in one streaming pass over its attempts and then its policy verdicts
 * (what `evals grid` and `evals compare` show). A store without policyVerdicts has none.
 */
export async function summariseStore(
  store: {
    attempts(): AsyncIterable<StoredAttempt>;
    policyVerdicts?(): AsyncIterable<PolicyVerdict>;
    retractions?(): Promise<Retraction[]>;
    retriedTries?(): Promise<AttemptKey[]>;
  },
  options: SummaryOptions = {},
): Promise<EvalbookSummary> {
  const retractions = options.retractions ?? (await store.retractions?.());
  const retried = options.retried ?? (await store.retriedTries?.());
  const builder = new SummaryBuilder({
    ...options,
    ...(retractions === undefined ? {} : { retractions }),
    ...(retried === undefined ? {} : { retried }),
  });
  for await (const stored of store.attempts()) builder.add(stored);
  if (store.policyVerdicts !== undefined)
    for await (const verdict of store.policyVerdicts()) builder.addPolicyVerdict(verdict);
  return builder.build();
}
