// The --fail-on gates a CI job puts on a summary: each gate is judged on its own, every one must
// hold, and every verdict is reported (never only the last gate named). Nothing judged is not a
// pass: a gate without anything to judge fails with a reason saying what is missing. Every gate
// judges the view the grid shows (grid-view.ts): `below:RATE` the newest run's per-config rates by
// default (so `--fail-on below:0.8` in CI gates the run just made), every run pooled with all_runs,
// one run with --run; a comparison of configs the same runs; and each verdict says what it judged.
import { shownGrid, viewOf } from './grid-view.js';
import { deltaName, scopeError, sharedUnits } from './summary.js';
import type { GridView, ShownView } from './grid-view.js';
import type { CaseDelta, CompareSpec, EvalbookSummary } from './summary.js';

/**
 * A CI gate: `regression` (B significantly worse than A), `case-regression` (a shared case's solve
 * rate fell by at least `points` percentage points from A to B), `drift` (a check of the newest run
 * below its drift bar) or `below` (a config under a rate).
 */
export type FailOn =
  | { readonly kind: 'regression' }
  | { readonly kind: 'case-regression'; readonly points: number }
  | { readonly kind: 'drift' }
  | { readonly kind: 'below'; readonly rate: number };

/** One gate's verdict. */
export interface GateResult {
  /** The gate as written on the command line (`below:0.8`, `case-regression:50`, …). */
  readonly failOn: string;
  readonly passed: boolean;
  readonly reasons: readonly string[];
  /**
   * What the gate judged, in words: the view's runs (`newest run nightly-2 (of 2 runs)`, `all runs:
   * 2 runs pooled`, `run nightly-1`) for below and a comparison of configs, the two runs of a
   * comparison of runs, the run drift judges.
   */
  readonly judged: string;
}

/** Every gate's verdict; `passed` only when every gate held. */
export interface GateVerdicts {
  readonly passed: boolean;
  /** The view the verdicts were judged in (grid-view.ts viewOf). */
  readonly view: ShownView;
  readonly gates: readonly GateResult[];
}

/** The gate as written on the command line. */
export function failOnText(failOn: FailOn): string {
  if (failOn.kind === 'below') return `below:${failOn.rate}`;
  if (failOn.kind === 'case-regression') return `case-regression:${failOn.points}`;
  return failOn.kind;
}

/** Whether a gate judges the comparison (--a/--b or --a-run/--b-run). */
export function needsComparison(failOn: FailOn): boolean {
  return failOn.kind === 'regression' || failOn.kind === 'case-regression';
}

/**
 * Throws EvalbookError paperclip_evalbook_scope_unknown (a usage error) when a gate judges a
 * comparison and none is named — before any store is read, so the mistake costs nothing.
 */
export function assertGatesJudgeable(failOn: readonly FailOn[], compare: CompareSpec | undefined): void {
  if (compare !== undefined) return;
  const needing = failOn.filter(needsComparison).map(failOnText);
  if (needing.length > 0)
    throw scopeError(
      `--fail-on ${needing.join(', --fail-on ')} judges a comparison, and none is named: add --a and --b (configs) or --a-run and --b-run (runs)`,
    );
}

/** Judges every gate in the view the grid shows; null when no gate is named. */
export function decideGates(
  failOn: readonly FailOn[],
  summary: EvalbookSummary,
  view: GridView,
): GateVerdicts | null {
  if (failOn.length === 0) return null;
  const gates = failOn.map((gate) => decideGate(gate, summary, view));
  return { passed: gates.every((gate) => gate.passed), view: viewOf(summary, view), gates };
}

/** One gate's verdict over a summary, in a view. */
export function decideGate(failOn: FailOn, summary: EvalbookSummary, view: GridView): GateResult {
  const reasons =
    failOn.kind === 'regression'
      ? regressionReasons(summary)
      : failOn.kind === 'case-regression'
        ? caseRegressionReasons(failOn.points, summary)
        : failOn.kind === 'drift'
          ? driftReasons(summary)
          : belowReasons(failOn.rate, summary, view);
  return {
    failOn: failOnText(failOn),
    passed: reasons.length === 0,
    reasons,
    judged: judgedText(failOn, summary, view),
  };
}

/** What a gate judged, in words (GateResult.judged). */
function judgedText(failOn: FailOn, summary: EvalbookSummary, view: GridView): string {
  const comparison = summary.comparison;
  if (needsComparison(failOn) && comparison?.by === 'run') return `runs ${comparison.a} and ${comparison.b}`;
  if (failOn.kind === 'drift')
    return summary.latestRun === null ? 'no attempts' : `the checks of run ${summary.latestRun}`;
  return viewOf(summary, view).text;
}

function regressionReasons(summary: EvalbookSummary): string[] {
  const comparison = summary.comparison;
  if (comparison === null)
    return ['no comparison to judge: name --a and --b (configs) or --a-run and --b-run'];
  if (comparison.sharedCases === 0) return [`${comparison.a} and ${comparison.b} share no case to compare`];
  if (comparison.deltaSolveRateCi95 === null)
    return [
      `${comparison.a} and ${comparison.b} share ${sharedUnits(comparison).replace(' shared', '')}: an interval needs 2 or more`,
    ];
  if (comparison.deltaSolveRateCi95[1] < 0)
    return [
      `${comparison.b} solves fewer cases than ${comparison.a}: Δ ${comparison.deltaSolveRate?.toFixed(3) ?? '?'}, 95% CI [${comparison.deltaSolveRateCi95[0].toFixed(3)}, ${comparison.deltaSolveRateCi95[1].toFixed(3)}] below 0`,
    ];
  return [];
}

/**
 * How many percentage points a case's solve rate fell from A to B (negative when it rose), rounded
 * to 1e-9 so that 0.7 − 0.2 is the 50 points it means, not 49.999….
 */
export function caseDropPoints(delta: CaseDelta): number {
  return Math.round((delta.aSolveRate - delta.bSolveRate) * 100 * 1e9) / 1e9;
}

function caseRegressionReasons(points: number, summary: EvalbookSummary): string[] {
  const comparison = summary.comparison;
  if (comparison === null)
    return ['no comparison to judge: name --a and --b (configs) or --a-run and --b-run'];
  if (comparison.sharedCases === 0) return [`${comparison.a} and ${comparison.b} share no case to compare`];
  // Every shared case is a regression or an improvement or a tie; only the regressions can fall.
  return comparison.regressions
    .filter((delta) => caseDropPoints(delta) >= points)
    .map(
      (delta) =>
        `${deltaName(delta)}: ${delta.aSolved}/${delta.aCounted} → ${delta.bSolved}/${delta.bCounted} (−${caseDropPoints(delta).toFixed(1)} pts)`,
    );
}

function driftReasons(summary: EvalbookSummary): string[] {
  const reasons: string[] = [];
  // Nothing judged is not a pass (as with regression and nothing to compare).
  if (!summary.checkDrift.some((drift) => drift.bar !== null))
    reasons.push(
      summary.checkDrift.length === 0
        ? 'no check scores to judge'
        : 'nothing to judge yet: no check has 10 earlier scored runs for a bar',
    );
  for (const drift of summary.checkDrift)
    if (drift.status === 'drift_detected')
      reasons.push(
        `check ${drift.checkId} of ${drift.caseId} on ${drift.configId}: ${drift.latestScore?.toFixed(3) ?? '?'} in ${drift.latestRunId ?? '?'} < bar ${drift.bar?.toFixed(3) ?? '?'} (mean ${drift.mean?.toFixed(3) ?? '?'} over ${drift.baselineRuns} earlier runs)`,
      );
  return reasons;
}

/**
 * The configs of the view under the rate (at exactly the rate holds). A config the view's runs have
 * no attempt of is not judged (it is not in that grid either); a view with no config fails.
 */
function belowReasons(rate: number, summary: EvalbookSummary, view: GridView): string[] {
  const reasons: string[] = [];
  const { configStats } = shownGrid(summary, view);
  for (const config of configStats)
    if (config.solveRate === null) reasons.push(`${config.configId}: nothing counted, so no rate to hold`);
    else if (config.solveRate < rate)
      reasons.push(`${config.configId}: solve rate ${config.solveRate.toFixed(3)} < ${rate}`);
  if (configStats.length === 0) reasons.push('no attempts in scope');
  return reasons;
}
