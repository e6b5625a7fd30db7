// Check drift across runs: each (case, check, config)'s mean score per run in insertion order, the
// checks engine's bar on that series (10 earlier runs needed, static threshold honoured, 0 too),
// unscored verdicts left out of the mean rather than counted as 0, and a run scope judging that run.
import { describe, expect, it } from 'vitest';

import { CheckDriftTally } from '../src/analysis/check-drift.ts';
import type { AttemptKey, ScoreRow } from '../src/ledger/convert.ts';

const key = (runId: string, attemptId = 'a1', configId = 'cfg'): AttemptKey => ({
  runId,
  caseId: 'case',
  configId,
  attemptId,
});
const row = (status: ScoreRow['status'], score: number | null, checkId = 'check'): ScoreRow => ({
  checkId,
  layer: 3,
  status,
  score,
  reason: null,
  evidence: null,
});

/** Runs placed in the order given (what the summary passes: by start time). */
const orderOf = (runIds: readonly string[]): Map<string, number> =>
  new Map(runIds.map((runId, index) => [runId, index]));
const runName = (index: number): string => `run_${String(index).padStart(2, '0')}`;
/** run_00 … run_29, in that order. */
const RUNS = orderOf(Array.from({ length: 30 }, (_, index) => runName(index)));

/** Runs run_00 … run_(n-1), each with one attempt of the given score (1 = pass, else soft_fail). */
function tallyOf(scores: readonly number[]): CheckDriftTally {
  const tally = new CheckDriftTally();
  scores.forEach((score, index) => {
    tally.add(key(runName(index)), [row(score === 1 ? 'pass' : score === 0 ? 'fail' : 'soft_fail', score)]);
  });
  return tally;
}

describe('check drift', () => {
  it('flags a newest run below the bar once 10 earlier runs exist', () => {
    const [drift] = tallyOf([...Array<number>(11).fill(1), 0.5]).build(RUNS);
    expect(drift).toMatchObject({
      caseId: 'case',
      checkId: 'check',
      configId: 'cfg',
      layer: 3,
      status: 'drift_detected',
      latestRunId: 'run_11',
      latestScore: 0.5,
      baselineRuns: 11,
      mean: 1,
      stddev: 0,
      bar: 0.96, // max(0.8, 1 − 2·max(0, 0.02))
      deviation: -0.5,
      staticThreshold: 0.8,
    });
    expect(drift?.runs).toHaveLength(12);
  });

  it('has no bar with fewer than 10 earlier scored runs, however low the newest score', () => {
    const [drift] = tallyOf([1, 1, 1, 1, 1, 1, 1, 1, 1, 0]).build(RUNS);
    expect(drift).toMatchObject({ status: 'insufficient_history', baselineRuns: 9, bar: null });
  });

  it('tells a check that is as low as usual (below threshold) from one that fell (drift); an explicit 0 is honoured', () => {
    const history = [0.5, 0.6, 0.5, 0.6, 0.5, 0.6, 0.5, 0.6, 0.5, 0.6];
    const [atDefault] = tallyOf([...history, 0.55]).build(RUNS);
    expect(atDefault).toMatchObject({ status: 'below_threshold', bar: 0.8 });
    expect(atDefault?.historyBar).toBeCloseTo(0.45, 10);
    const [fell] = tallyOf([...history, 0.3]).build(RUNS);
    expect(fell).toMatchObject({ status: 'drift_detected', bar: 0.8 });
    const [atZero] = tallyOf([...history, 0.55]).build(RUNS, () => 0);
    expect(atZero?.status).toBe('ok');
    expect(atZero?.bar).toBeCloseTo(0.45, 10); // 0.55 − 2·0.05
    const [dropped] = tallyOf([...history, 0.3]).build(RUNS, () => 0);
    expect(dropped?.status).toBe('drift_detected');
  });

  it('leaves errors and missing verdicts out of a run mean (never 0) and skips a run without a verdict', () => {
    const tally = tallyOf(Array<number>(11).fill(1));
    tally.add(key('run_11', 'a1'), [row('pass', 1)]);
    tally.add(key('run_11', 'a2'), [row('not_evaluated', null)]);
    tally.add(key('run_11', 'a3'), [row('error', null)]);
    tally.add(key('run_12', 'a1'), [row('not_evaluated', null)]);
    const [drift] = tally.build(RUNS);
    expect(drift?.runs.slice(-2)).toEqual([
      { runId: 'run_11', score: 1, verdicts: 1, unscored: 2 },
      { runId: 'run_12', score: null, verdicts: 0, unscored: 1 },
    ]);
    expect(drift).toMatchObject({ status: 'ok', latestRunId: 'run_11', latestScore: 1, baselineRuns: 11 });
  });

  it('follows the run order it is given, not names, and judges a scoped run against the runs before it', () => {
    const tally = new CheckDriftTally();
    const names = ['zz', 'yy', 'xx', 'ww', 'vv', 'uu', 'tt', 'ss', 'rr', 'qq', 'pp', 'oo', 'nn'];
    names.forEach((runId, index) => {
      tally.add(key(runId), [row(index === 11 ? 'fail' : 'pass', index === 11 ? 0 : 1)]);
    });
    const order = orderOf(names);
    const [whole] = tally.build(order);
    expect(whole?.runs.map((run) => run.runId)).toEqual(names);
    expect(whole).toMatchObject({ latestRunId: 'nn', status: 'ok', baselineRuns: 12 });
    const [scoped] = tally.build(order, undefined, 'oo');
    expect(scoped).toMatchObject({
      latestRunId: 'oo',
      latestScore: 0,
      status: 'drift_detected',
      baselineRuns: 11,
    });
    expect(tally.build(order, undefined, 'no-such-run')).toEqual([]);
    const [reversed] = tally.build(orderOf([...names].reverse()));
    expect(reversed).toMatchObject({ latestRunId: 'zz', latestScore: 1 });
  });

  it('keeps each case, check and config apart, drifting rows first', () => {
    const tally = new CheckDriftTally();
    for (let run = 0; run < 12; run++)
      for (const configId of ['cfg_a', 'cfg_b'])
        tally.add(key(runName(run), 'a1', configId), [
          row('pass', 1, 'steady'),
          row(
            run === 11 && configId === 'cfg_b' ? 'fail' : 'pass',
            run === 11 && configId === 'cfg_b' ? 0 : 1,
            'tools',
          ),
        ]);
    expect(tally.build(RUNS).map((drift) => [drift.checkId, drift.configId, drift.status])).toEqual([
      ['tools', 'cfg_b', 'drift_detected'],
      ['steady', 'cfg_a', 'ok'],
      ['steady', 'cfg_b', 'ok'],
      ['tools', 'cfg_a', 'ok'],
    ]);
  });
});
