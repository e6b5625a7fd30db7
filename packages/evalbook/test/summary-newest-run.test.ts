// The summary's newest-run view (issue 19): the newest run's grid beside the pooled one, each cell's
// change since its previous run, flakiness as variation within one run, the checks × configs table
// and what each case and config is (from the environment); and the rule that the runner's per-call
// observations (one score row per tool call) are neither a check row nor a drift series.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { isPerCallObservation } from '../src/analysis/check-drift.ts';
import { SummaryBuilder } from '../src/analysis/summary.ts';
import { shownGrid } from '../src/analysis/grid-view.ts';
import type { SummaryOptions } from '../src/analysis/summary.ts';
import type { ScoreRow } from '../src/ledger/convert.ts';
import type { StoredAttempt } from '../src/ledger/store.ts';
import { storedAttempt } from './support/stored-attempts.ts';
import type { Outcome } from './support/stored-attempts.ts';

/** An attempt of `runId` that started at `minute` (runs are ordered by their first start). */
function at(minute: number, runId: string, caseId: string, configId: string, id: string, outcome: Outcome) {
  const stored = storedAttempt(runId, caseId, configId, id, outcome);
  return {
    ...stored,
    record: { ...stored.record, startedAt: new Date(Date.UTC(2026, 10, 1, 0, minute)).toISOString() },
  };
}

function summarise(attempts: readonly StoredAttempt[], options: SummaryOptions = {}) {
  const builder = new SummaryBuilder(options);
  for (const stored of attempts) builder.add(stored);
  return builder.build();
}

describe('the newest run', () => {
  // case_a × base: nine runs all solved, then the newest run collapses to 0 of 3.
  const history = Array.from({ length: 9 }, (_, run) =>
    [0, 1, 2].map((n) => at(run * 10 + n, `run_${run}`, 'case_a', 'base', `r${run}-${n}`, 'solved')),
  ).flat();
  const collapse = [0, 1, 2].map((n) => at(200 + n, 'run_9', 'case_a', 'base', `r9-${n}`, 'unsolved'));
  const summary = summarise([...history, ...collapse]);

  it('is the last run, and its grid shows the collapse the pooled grid hides', () => {
    expect(summary.latestRun).toBe('run_9');
    const pooled = summary.grid.find((cell) => cell.caseId === 'case_a')!;
    expect(pooled.solveRate).toBeCloseTo(0.9);
    expect(summary.latestGrid).toHaveLength(1);
    expect(summary.latestGrid[0]).toMatchObject({
      caseId: 'case_a',
      configId: 'base',
      runId: 'run_9',
      solved: 0,
      solveRate: 0,
      previous: { runId: 'run_8', solved: 3, counted: 3, solveRate: 1 },
      delta: -1,
    });
  });

  it('is not flaky: each run is uniform, so the change is a trend, not flakiness', () => {
    expect(summary.grid[0]!.flaky).toBe(false);
    expect(summary.latestGrid[0]!.flaky).toBe(false);
    expect(summary.flakyCells).toEqual([]);
  });

  it('marks as flaky a cell whose newest run has both solved and unsolved attempts', () => {
    const flaky = summarise([
      ...history,
      at(300, 'run_9', 'case_a', 'base', 'x1', 'solved'),
      at(301, 'run_9', 'case_a', 'base', 'x2', 'unsolved'),
      at(302, 'run_9', 'case_a', 'base', 'x3', 'errored'),
    ]);
    expect(flaky.latestGrid[0]!.flaky).toBe(true);
    expect(flaky.flakyCells).toEqual([{ caseId: 'case_a', configId: 'base' }]);
    // errors are not the agent's flakiness
    const errored = summarise([
      ...history,
      at(300, 'run_9', 'case_a', 'base', 'x1', 'solved'),
      at(302, 'run_9', 'case_a', 'base', 'x3', 'errored'),
    ]);
    expect(errored.flakyCells).toEqual([]);
  });

  it('with --run R is R, judged against the run before it', () => {
    const scoped = summarise([...history, ...collapse], { runId: 'run_4' });
    expect(scoped.latestRun).toBe('run_4');
    expect(scoped.latestGrid[0]).toMatchObject({ runId: 'run_4', previous: { runId: 'run_3' }, delta: 0 });
  });

  it('leaves out a cell the newest run did not attempt, and a new cell has no previous run', () => {
    const grown = summarise([
      ...history,
      at(200, 'run_9', 'case_b', 'base', 'y1', 'solved'),
      at(201, 'run_9', 'case_b', 'base', 'y2', 'unsolved'),
    ]);
    expect(grown.grid.map((cell) => cell.caseId)).toEqual(['case_a', 'case_b']);
    expect(grown.latestGrid.map((cell) => cell.caseId)).toEqual(['case_b']);
    expect(grown.latestGrid[0]).toMatchObject({ previous: null, delta: null, solveRate: 0.5, flaky: true });
  });

  it('its grid is the grid of a summary scoped to it, for any attempts (property)', () => {
    const outcome = fc.constantFrom<Outcome>('solved', 'unsolved', 'errored', 'incomplete', 'over_budget');
    const row = fc.record({
      run: fc.integer({ min: 0, max: 3 }),
      caseId: fc.constantFrom('c1', 'c2', 'c3'),
      configId: fc.constantFrom('k1', 'k2'),
      outcome,
    });
    const templates = new Map<Outcome, StoredAttempt>();
    const make = (
      run: number,
      caseId: string,
      configId: string,
      id: string,
      kind: Outcome,
    ): StoredAttempt => {
      let template = templates.get(kind);
      if (template === undefined) templates.set(kind, (template = storedAttempt('r', 'c', 'k', 'a', kind)));
      return {
        ...template,
        key: { runId: `run_${run}`, caseId, configId, attemptId: id },
        record: {
          ...template.record,
          startedAt: new Date(Date.UTC(2026, 10, 1, run)).toISOString(),
        },
      };
    };
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 40 }), (rows) => {
        const attempts = rows.map((entry, index) =>
          make(entry.run, entry.caseId, entry.configId, `a${index}`, entry.outcome),
        );
        const whole = summarise(attempts);
        const newest = summarise(attempts, { runId: whole.latestRun! });
        const strip = ({
          runId: _r,
          previous: _p,
          delta: _d,
          trend: _t,
          ...cell
        }: (typeof whole.latestGrid)[number]) => cell;
        expect(whole.latestGrid.map(strip)).toEqual(newest.grid);
        expect(whole.flakyCells).toEqual(
          newest.grid.filter((cell) => cell.flaky).map(({ caseId, configId }) => ({ caseId, configId })),
        );
        for (const cell of whole.latestGrid) {
          if (cell.previous !== null && cell.solveRate !== null)
            expect(cell.delta).toBeCloseTo(cell.solveRate - (cell.previous.solveRate ?? 0));
          // The trend is the delta in a word: never "same" for a fall, never missing for a new cell.
          const expected =
            cell.solveRate === null
              ? 'no_rate'
              : cell.previous === null
                ? 'new'
                : (cell.delta ?? 0) > 0
                  ? 'up'
                  : (cell.delta ?? 0) < 0
                    ? 'down'
                    : 'same';
          expect(cell.trend).toBe(expected);
        }
        // Which runs each grid covers, and what each surface is handed for each view.
        expect(whole.gridRuns).toEqual(whole.runs);
        expect(newest.gridRuns).toEqual([whole.latestRun]);
        expect(shownGrid(whole, 'newest_run')).toEqual({
          view: 'newest_run',
          runs: [whole.latestRun],
          cells: whole.latestGrid,
          configStats: whole.latestConfigStats,
        });
        expect(shownGrid(whole, 'all_runs')).toEqual({
          view: 'all_runs',
          runs: whole.runs,
          cells: whole.grid,
          configStats: whole.configStats,
        });
        // The newest run's per-config rates are those of a summary scoped to it.
        expect(whole.latestConfigStats).toEqual(newest.configStats);
      }),
      { numRuns: 150 },
    );
  });
});

describe('per-call runner observations', () => {
  const row = (checkId: string, evidence: unknown = null, layer: ScoreRow['layer'] = null): ScoreRow => ({
    checkId,
    layer,
    status: 'pass',
    score: 1,
    reason: null,
    evidence,
  });
  const calls = new Set(['call_a1_0', 'call_a1_1']);
  it.each([
    ['the reference runner’s tool:<operation>:<callId>', row('tool:files.read:call_a1_0'), true],
    ['a duplicate kept as <id>#<index>', row('tool:files.read:call_a1_1#3'), true],
    ['an observation carrying the callId', row('write-ok', { id: 'write-ok', callId: 'call_a1_1' }), true],
    ['a case check', row('result-proposed'), false],
    ['a check whose id has a colon but names no call of the attempt', row('tool:files.read:call_zz'), false],
    ['an engine check named like a call', row('tool:files.read:call_a1_0', null, 2), false],
    ['a callId of another attempt in the evidence', row('x', { callId: 'call_b_0' }), false],
  ] as const)('%s: %s', (_name, score, perCall) => {
    expect(isPerCallObservation(score, calls)).toBe(perCall);
  });

  it('are in no check row and no drift series, and are counted', () => {
    const make = (run: number, id: string, outcome: Outcome): StoredAttempt => {
      const stored = at(run * 10, `run_${run}`, 'case_a', 'base', id, outcome);
      const callIds = [`call_${id}_0`, `call_${id}_1`];
      return {
        ...stored,
        record: {
          ...stored.record,
          toolCalls: callIds.map((callId) => ({
            callId,
            operationId: 'files.read',
            outcome: null,
            denial: null,
          })),
        },
        scores: [
          ...stored.scores,
          ...callIds.map((callId) => row(`tool:files.read:${callId}`, { receiptId: 'r' })),
        ],
      };
    };
    const summary = summarise([make(0, 'a1', 'solved'), make(1, 'a2', 'unsolved'), make(1, 'a3', 'solved')]);
    expect(summary.perCallObservations).toBe(6);
    expect(summary.checkDrift.map((drift) => drift.checkId)).toEqual(['c1']);
    expect(summary.checkRates).toEqual([
      {
        checkId: 'c1',
        configId: 'base',
        layer: null,
        description: null,
        latest: { pass: 1, fail: 1, softFail: 0, error: 0, notEvaluated: 0, passRate: 0.5 },
        all: { pass: 2, fail: 1, softFail: 0, error: 0, notEvaluated: 0, passRate: 2 / 3 },
      },
    ]);
  });
});

describe('identity from the environment', () => {
  it('says what each case and config is; without an environment, nothing', () => {
    const attempts = [
      at(0, 'run_0', 'case_a', 'base', 'a', 'solved'),
      at(1, 'run_0', 'case_b', 'cand', 'b', 'solved'),
    ];
    const suite = {
      cases: [
        {
          id: 'case_a',
          sha256: 'sha256:a',
          description: 'fix the bug',
          prompt: 'Fix it.',
          checks: [{ id: 'c1', description: 'the tests pass' }],
        },
        { id: 'case_b', sha256: 'sha256:b' },
        { id: 'case_unused', sha256: 'sha256:u', description: 'not in the summary' },
      ],
      configs: [
        { id: 'base', sha256: 'sha256:c', model: 'model-1', driver: 'driver-1', description: 'the baseline' },
        { id: 'cand', sha256: 'sha256:d', model: 'model-2', driver: 'driver-2' },
      ],
    };
    const summary = summarise(attempts, { suite });
    expect(summary.identity).toEqual({
      cases: [
        { caseId: 'case_a', description: 'fix the bug', prompt: 'Fix it.' },
        { caseId: 'case_b', description: null, prompt: null },
      ],
      configs: [
        { configId: 'base', model: 'model-1', driver: 'driver-1', description: 'the baseline' },
        { configId: 'cand', model: 'model-2', driver: 'driver-2', description: null },
      ],
    });
    expect(summary.checkRates.map((rate) => rate.description)).toEqual(['the tests pass', 'the tests pass']);
    expect(summarise(attempts).identity).toEqual({ cases: [], configs: [] });
  });
});
