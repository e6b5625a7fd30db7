// Drift of each check across runs, for reports: per (case, check, config), the check's mean score in
// each run (runs in the summary's order: by start time), and the checks engine's drift algorithm on
// that series — the newest scored run against up to 50 earlier ones, at least 10, with the bar
// max(static threshold, mean − 2·max(stddev, 0.02)), with a fall below the history's own part told
// apart from a score that is merely under the static threshold. A run's score is a mean over attempts, a
// measurement rather than one verdict, so every earlier run enters the baseline (the engine leaves
// out single hard failures; a low run here is exactly what the baseline must remember).
import { DEFAULT_STATIC_THRESHOLD, DRIFT_MIN_STDDEV, driftReport } from '@paperclip-evals/checks';

import type { Layer } from '@paperclip-evals/checks';

import type { ScoreRow } from '../ledger/convert.js';
import type { AttemptKey } from '../ledger/convert.js';
import type { DriftThresholdOf } from '../ledger/environment.js';

/** One run of one check: its mean score over the attempts that got a verdict. */
export interface CheckRunScore {
  readonly runId: string;
  /** Mean of the verdicts' scores (pass 1, fail 0, engine scores as given); null without a verdict. */
  readonly score: number | null;
  /** Attempts with a verdict (pass, fail, soft_fail). */
  readonly verdicts: number;
  /** Attempts whose check errored or was not evaluated: not in the mean, never a 0. */
  readonly unscored: number;
}

/**
 * drift_detected: the newest score fell below its own history (mean − 2·max(sd, 0.02)) ·
 * below_threshold: under the static threshold, but no lower than usual (a check that is always low
 * has not drifted: the rates in the report say it fails) · ok · insufficient_history: no bar yet.
 * The engine's query_drift reports both of the first two as drift_detected.
 */
export type CheckDriftStatus = 'ok' | 'drift_detected' | 'below_threshold' | 'insufficient_history';

export interface CheckDrift {
  readonly caseId: string;
  readonly checkId: string;
  readonly configId: string;
  /** The engine layer of an engine check; null for a check the runner reports. */
  readonly layer: Layer | null;
  /** Oldest first; runs where the check had no attempt are absent. */
  readonly runs: readonly CheckRunScore[];
  readonly staticThreshold: number;
  /** insufficient_history: fewer than 10 scored runs before the newest, so no bar yet. */
  readonly status: CheckDriftStatus;
  /** mean − 2·max(sd, 0.02) of the baseline: falling below it is drift. */
  readonly historyBar: number | null;
  /** The newest run with a score (what is judged); null when no run has one. */
  readonly latestRunId: string | null;
  readonly latestScore: number | null;
  /** Scored runs before the newest that form the baseline (at most 50). */
  readonly baselineRuns: number;
  readonly mean: number | null;
  readonly stddev: number | null;
  readonly bar: number | null;
  /** latestScore − mean. */
  readonly deviation: number | null;
}

interface RunTally {
  sum: number;
  verdicts: number;
  unscored: number;
}

interface SeriesTally {
  readonly caseId: string;
  readonly checkId: string;
  readonly configId: string;
  readonly layer: Layer | null;
  readonly runs: Map<string, RunTally>;
}

const SCORED = new Set<ScoreRow['status']>(['pass', 'fail', 'soft_fail']);

/**
 * Whether a score row is one of the runner's per-call observations — one row per tool call, named
 * after that call (the reference runner reports `tool:<operation>:<callId>`; an observation may
 * instead carry the call's `callId`). Such a row is not a check of the case: its id differs in every
 * attempt, so it would make one drift series (and one checks × configs row) per tool call ever made.
 * Only runner rows (layer null) qualify; an engine check is always a check.
 */
export function isPerCallObservation(score: ScoreRow, callIds: ReadonlySet<string>): boolean {
  if (score.layer !== null || callIds.size === 0) return false;
  const evidence = score.evidence;
  if (typeof evidence === 'object' && evidence !== null) {
    const callId = (evidence as { callId?: unknown }).callId;
    if (typeof callId === 'string' && callIds.has(callId)) return true;
  }
  // An id kept apart as `<id>#<index>` (a duplicate) still names its call before the suffix.
  const id = score.checkId.replace(/#\d+$/, '');
  const colon = id.lastIndexOf(':');
  return colon >= 0 && callIds.has(id.slice(colon + 1));
}

export class CheckDriftTally {
  private readonly series = new Map<string, SeriesTally>();

  /** Adds an attempt's score rows, but for its per-call observations (isPerCallObservation). */
  add(key: AttemptKey, scores: readonly ScoreRow[], callIds: ReadonlySet<string> = new Set()): void {
    for (const score of scores) {
      if (isPerCallObservation(score, callIds)) continue;
      const id = `${key.caseId}\u0000${score.checkId}\u0000${key.configId}`;
      let series = this.series.get(id);
      if (series === undefined) {
        series = {
          caseId: key.caseId,
          checkId: score.checkId,
          configId: key.configId,
          layer: score.layer,
          runs: new Map(),
        };
        this.series.set(id, series);
      }
      let run = series.runs.get(key.runId);
      if (run === undefined) series.runs.set(key.runId, (run = { sum: 0, verdicts: 0, unscored: 0 }));
      if (SCORED.has(score.status) && score.score !== null) {
        run.sum += score.score;
        run.verdicts++;
      } else run.unscored++;
    }
  }

  /**
   * Every series: drifting ones first, then those below their threshold. `runOrder` places each run (its index in the summary's run
   * order); with `newestRun`, runs after it are left out (it is the one judged).
   */
  build(
    runOrder: ReadonlyMap<string, number>,
    thresholdOf: DriftThresholdOf = () => undefined,
    newestRun?: string,
  ): CheckDrift[] {
    const last = newestRun === undefined ? Infinity : (runOrder.get(newestRun) ?? -1);
    const drifts: CheckDrift[] = [];
    for (const series of this.series.values()) {
      const runs: CheckRunScore[] = [...series.runs]
        .filter(([runId]) => (runOrder.get(runId) ?? Infinity) <= last)
        .sort(([a], [b]) => (runOrder.get(a) ?? 0) - (runOrder.get(b) ?? 0))
        .map(([runId, run]) => ({
          runId,
          score: run.verdicts === 0 ? null : run.sum / run.verdicts,
          verdicts: run.verdicts,
          unscored: run.unscored,
        }));
      if (runs.length === 0 || (newestRun !== undefined && runs.at(-1)?.runId !== newestRun)) continue;
      const scored = runs.filter((run) => run.score !== null);
      const staticThreshold = thresholdOf(series.caseId, series.checkId) ?? DEFAULT_STATIC_THRESHOLD;
      const report = driftReport(
        series.checkId,
        scored.map((run) => ({ score: run.score ?? 0, status: 'pass' as const })),
        staticThreshold,
      );
      const historyBar =
        report.baseline_active && report.mean !== null && report.stddev !== null
          ? report.mean - 2 * Math.max(report.stddev, DRIFT_MIN_STDDEV)
          : null;
      drifts.push({
        caseId: series.caseId,
        checkId: series.checkId,
        configId: series.configId,
        layer: series.layer,
        runs,
        staticThreshold,
        status: statusOf(report.latest_score, historyBar, report.bar),
        historyBar,
        latestRunId: scored.at(-1)?.runId ?? null,
        latestScore: report.latest_score,
        baselineRuns: report.count,
        mean: report.mean,
        stddev: report.stddev,
        bar: report.bar,
        deviation: report.deviation,
      });
    }
    const rank = (drift: CheckDrift): number =>
      drift.status === 'drift_detected' ? 0 : drift.status === 'below_threshold' ? 1 : 2;
    const text = (drift: CheckDrift): string =>
      `${drift.caseId}\u0000${drift.checkId}\u0000${drift.configId}`;
    return drifts.sort((x, y) => rank(x) - rank(y) || (text(x) < text(y) ? -1 : text(x) > text(y) ? 1 : 0));
  }
}

function statusOf(latest: number | null, historyBar: number | null, bar: number | null): CheckDriftStatus {
  if (latest === null || historyBar === null || bar === null) return 'insufficient_history';
  if (latest < historyBar) return 'drift_detected';
  return latest < bar ? 'below_threshold' : 'ok';
}
