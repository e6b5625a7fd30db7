// Drift of an assertion's score across runs (seed 003, query_drift): the newest recorded run against
// a baseline of up to 50 earlier passing or soft-failing runs, which needs at least 10 of them. The
// bar is max(static_threshold, mean − 2·max(stddev, 0.02)); a newest score below it is drift.
// Where runs are kept is the DriftHistory's business: in memory here, in the Evalbook store later.

export const DRIFT_WINDOW_RUNS = 50;
export const DRIFT_MIN_BASELINE_RUNS = 10;
export const DEFAULT_STATIC_THRESHOLD = 0.8;
/** The floor under the standard deviation, so a perfectly steady history does not flag noise. */
export const DRIFT_MIN_STDDEV = 0.02;

export interface DriftRun {
  readonly score: number;
  readonly status: 'pass' | 'soft_fail' | 'hard_fail';
}

/**
 * Scored runs of each assertion, in insertion order. A store that cannot be read or written rejects
 * with ChecksError drift_history_unavailable (query_drift answers it 3001; a batch still answers its rows).
 */
export interface DriftHistory {
  append(assertionId: string, run: DriftRun): Promise<void>;
  /**
   * This assertion's runs, oldest first: at least the newest run and the 50 newest passing or
   * soft-failing runs before it (more is fine; older runs and hard failures are ignored).
   */
  runs(assertionId: string): Promise<DriftRun[]>;
}

/**
 * Keeps in memory only what a drift query can look at: the newest run and the 50 newest eligible
 * runs before it (a hard failure that is no longer the newest can never matter again).
 */
export class InMemoryDriftHistory implements DriftHistory {
  readonly #runs = new Map<string, DriftRun[]>();

  append(assertionId: string, run: DriftRun): Promise<void> {
    const kept = (this.#runs.get(assertionId) ?? []).filter((earlier) => earlier.status !== 'hard_fail');
    this.#runs.set(assertionId, [...kept.slice(-DRIFT_WINDOW_RUNS), run]);
    return Promise.resolve();
  }

  runs(assertionId: string): Promise<DriftRun[]> {
    return Promise.resolve([...(this.#runs.get(assertionId) ?? [])]);
  }
}

export interface DriftReport {
  readonly assertion_id: string;
  /** Of the baseline runs; null when there are none. */
  readonly mean: number | null;
  readonly stddev: number | null;
  /** Baseline runs: eligible runs before the newest, at most 50. */
  readonly count: number;
  readonly latest_score: number | null;
  /** latest_score − mean. */
  readonly deviation: number | null;
  readonly status: 'ok' | 'drift_detected';
  /** Whether the baseline has the 10 runs it needs; without it the status is always ok. */
  readonly baseline_active: boolean;
  /** The bar the newest score was held to, when the baseline is active. */
  readonly bar: number | null;
}

/**
 * The seed's algorithm on a run history (oldest first). The newest run is compared whatever its
 * status; hard failures never enter the baseline. The standard deviation is the population one.
 */
export function driftReport(
  assertionId: string,
  runs: readonly DriftRun[],
  staticThreshold: number = DEFAULT_STATIC_THRESHOLD,
): DriftReport {
  const latest = runs.at(-1);
  const baseline = runs
    .slice(0, -1)
    .filter((run) => run.status !== 'hard_fail')
    .slice(-DRIFT_WINDOW_RUNS)
    .map((run) => run.score);
  const count = baseline.length;
  const mean = count === 0 ? null : baseline.reduce((sum, score) => sum + score, 0) / count;
  const stddev =
    mean === null ? null : Math.sqrt(baseline.reduce((sum, score) => sum + (score - mean) ** 2, 0) / count);
  const active = count >= DRIFT_MIN_BASELINE_RUNS && latest !== undefined && mean !== null && stddev !== null;
  const bar = active ? Math.max(staticThreshold, mean - 2 * Math.max(stddev, DRIFT_MIN_STDDEV)) : null;
  return {
    assertion_id: assertionId,
    mean,
    stddev,
    count,
    latest_score: latest?.score ?? null,
    deviation: latest === undefined || mean === null ? null : latest.score - mean,
    status: bar !== null && latest !== undefined && latest.score < bar ? 'drift_detected' : 'ok',
    baseline_active: active,
    bar,
  };
}

/** A drift report as the wire carries it (query_drift's report, a dynamic row's drift). */
export interface WireDriftReport extends Omit<DriftReport, 'mean' | 'stddev' | 'latest_score' | 'deviation'> {
  readonly mean: number;
  readonly stddev: number;
  readonly latest_score: number;
  readonly deviation: number;
}

/**
 * The report with the Attest engine's figures for what there is none of: 0, as its DriftReport's
 * float64 fields are (an unknown assertion is mean, stddev, count, latest_score and deviation 0:
 * handler.go:571-609, cache/history.go:150-160, COALESCE(AVG(score), 0.0)). `bar` stays null while
 * the baseline is not active (that engine has no bar).
 */
export function wireDriftReport(report: DriftReport): WireDriftReport {
  const mean = report.mean ?? 0;
  const latest = report.latest_score ?? 0;
  return {
    ...report,
    mean,
    stddev: report.stddev ?? 0,
    latest_score: latest,
    deviation: report.deviation ?? latest - mean,
  };
}

/** query_drift: the report for one assertion; a static_threshold of null or undefined means 0.8. */
export async function queryDrift(
  history: DriftHistory,
  assertionId: string,
  staticThreshold?: number | null,
): Promise<DriftReport> {
  return driftReport(
    assertionId,
    await history.runs(assertionId),
    staticThreshold ?? DEFAULT_STATIC_THRESHOLD,
  );
}
