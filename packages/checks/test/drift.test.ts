// The drift algorithm of seed 003 on hand-computed histories: baseline of up to 50 earlier passing
// or soft-failing runs (at least 10), bar = max(static_threshold, mean − 2·max(stddev, 0.02)).
import { describe, expect, it } from 'vitest';

import { InMemoryDriftHistory, driftReport, queryDrift } from '../src/drift.ts';

import type { DriftRun } from '../src/drift.ts';

const pass = (score: number): DriftRun => ({ score, status: 'pass' });
const runs = (...scores: number[]): DriftRun[] => scores.map(pass);

describe('driftReport', () => {
  it('computes mean, population stddev, deviation and the bar of a textbook baseline', () => {
    // Baseline 0.5×5 and 0.9×5: mean 0.7, population stddev 0.2, bar = max(0, 0.7 − 0.4) = 0.3.
    const history = [...runs(0.5, 0.9, 0.5, 0.9, 0.5, 0.9, 0.5, 0.9, 0.5, 0.9), pass(0.29)];
    const report = driftReport('a', history, 0);
    expect(report.count).toBe(10);
    expect(report.mean).toBeCloseTo(0.7, 12);
    expect(report.stddev).toBeCloseTo(0.2, 12);
    expect(report.bar).toBeCloseTo(0.3, 12);
    expect(report.latest_score).toBe(0.29);
    expect(report.deviation).toBeCloseTo(-0.41, 12);
    expect(report.status).toBe('drift_detected');
    expect(driftReport('a', [...history.slice(0, -1), pass(0.31)], 0).status).toBe('ok');
  });

  it('floors the stddev at 0.02, so a steady history tolerates a 0.04 dip', () => {
    const steady = runs(...Array<number>(10).fill(0.75));
    expect(driftReport('a', [...steady, pass(0.711)], 0).status).toBe('ok'); // bar 0.71
    expect(driftReport('a', [...steady, pass(0.709)], 0).status).toBe('drift_detected');
  });

  it('takes the static threshold when it is the higher bar, 0.8 by default, and honours an explicit 0', () => {
    const steady = runs(...Array<number>(10).fill(0.75));
    expect(driftReport('a', [...steady, pass(0.75)]).bar).toBe(0.8);
    expect(driftReport('a', [...steady, pass(0.75)]).status).toBe('drift_detected');
    expect(driftReport('a', [...steady, pass(0.75)], 0).status).toBe('ok');
  });

  it('needs 10 eligible earlier runs before it can detect drift', () => {
    const report = driftReport('a', [...runs(...Array<number>(9).fill(0.9)), pass(0)], 0);
    expect(report).toMatchObject({ count: 9, baseline_active: false, bar: null, status: 'ok' });
  });

  it('keeps hard failures out of the baseline but judges a hard-failing newest run', () => {
    const history = [
      ...runs(...Array<number>(10).fill(0.75)),
      { score: 0, status: 'hard_fail' } as const,
      pass(0.75),
    ];
    expect(driftReport('a', history, 0)).toMatchObject({ count: 10, mean: 0.75, status: 'ok' });
    const newestHardFail = [
      ...runs(...Array<number>(10).fill(0.9)),
      { score: 0.1, status: 'hard_fail' } as const,
    ];
    expect(driftReport('a', newestHardFail, 0)).toMatchObject({ count: 10, status: 'drift_detected' });
  });

  it('counts soft failures in the baseline', () => {
    const history = [
      ...Array.from({ length: 10 }, () => ({ score: 0.5, status: 'soft_fail' }) as const),
      pass(0.5),
    ];
    expect(driftReport('a', history, 0)).toMatchObject({ count: 10, mean: 0.5 });
  });

  it('uses only the 50 runs before the newest', () => {
    // 20 old low runs, then 50 at 0.75: the low ones fall out of the window.
    const history = [
      ...runs(...Array<number>(20).fill(0.125)),
      ...runs(...Array<number>(50).fill(0.75)),
      pass(0.75),
    ];
    expect(driftReport('a', history, 0)).toMatchObject({ count: 50, mean: 0.75, stddev: 0, status: 'ok' });
  });

  it('reports an empty history as unknown (nulls), not as zeros', () => {
    expect(driftReport('a', [])).toEqual({
      assertion_id: 'a',
      mean: null,
      stddev: null,
      count: 0,
      latest_score: null,
      deviation: null,
      status: 'ok',
      baseline_active: false,
      bar: null,
    });
  });
});

describe('InMemoryDriftHistory', () => {
  it('keeps the newest run and 50 eligible runs before it, even after many hard failures', async () => {
    const history = new InMemoryDriftHistory();
    for (let run = 0; run < 60; run++) await history.append('a', pass(0.9));
    for (let run = 0; run < 30; run++) await history.append('a', { score: 0, status: 'hard_fail' });
    await history.append('a', pass(0.2));
    const kept = await history.runs('a');
    expect(kept).toHaveLength(51);
    expect((await queryDrift(history, 'a', 0)).status).toBe('drift_detected');
    expect(await history.runs('other')).toEqual([]);
  });
});
