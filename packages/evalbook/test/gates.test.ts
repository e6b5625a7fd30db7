// The --fail-on gates: several gates are each judged and every one must hold (never only the last
// one named), case-regression sees a case that fell even when the pooled Δ is 0, a gate that needs a
// comparison without one is refused before any store is read, and every report format shows every
// gate's verdict.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { assertGatesJudgeable, decideGate, decideGates } from '../src/analysis/gates.ts';
import { evalbookError } from './support/evalbook-error.ts';
import type { FailOn } from '../src/analysis/gates.ts';
import { writeReport } from '../src/report/report.ts';
import type { ReportFormat } from '../src/report/model.ts';
import { SummaryBuilder } from '../src/analysis/summary.ts';
import type { CompareSpec, EvalbookSummary } from '../src/analysis/summary.ts';
import type { LedgerStore, StoredAttempt } from '../src/ledger/store.ts';
import { storedAttempt } from './support/stored-attempts.ts';

const SOLVED = storedAttempt('run1', 'case', 'config', 'template-solved', 'solved');
const UNSOLVED = storedAttempt('run1', 'case', 'config', 'template-unsolved', 'unsolved');

/** `solved` solved and `counted − solved` unsolved attempts of one case on one config. */
function side(caseId: string, configId: string, solved: number, counted: number): StoredAttempt[] {
  return Array.from({ length: counted }, (_, index) => {
    const template = index < solved ? SOLVED : UNSOLVED;
    return {
      ...template,
      key: { ...template.key, caseId, configId, attemptId: `${configId}-${caseId}-${index}` },
    };
  });
}

const COMPARE: CompareSpec = { by: 'config', a: 'base', b: 'cand' };

/** What a gate over one run judged, in words. */
const ONLY = 'newest run run1 (the only run)';

function summaryOf(
  attempts: readonly StoredAttempt[],
  compare: CompareSpec | null = COMPARE,
): EvalbookSummary {
  const builder = new SummaryBuilder({ resamples: 200, ...(compare === null ? {} : { compare }) });
  for (const stored of attempts) builder.add(stored);
  return builder.build();
}

// Two cases moving in opposite directions: case_down 6/6 → 2/6, case_up 2/6 → 6/6. Pooled Δ is 0.
const OPPOSITE = [
  ...side('case_down', 'base', 6, 6),
  ...side('case_down', 'cand', 2, 6),
  ...side('case_up', 'base', 2, 6),
  ...side('case_up', 'cand', 6, 6),
];

describe('when several gates are named', () => {
  it('judges every one, in order, and passes only when all hold', () => {
    const summary = summaryOf(OPPOSITE, null);
    const verdicts = decideGates(
      [
        { kind: 'below', rate: 0.9 },
        { kind: 'below', rate: 0.1 },
      ],
      summary,
      'newest_run',
    );
    expect(verdicts).toEqual({
      passed: false,
      view: { kind: 'newest_run', run: 'run1', runs: ['run1'], text: ONLY },
      gates: [
        {
          failOn: 'below:0.9',
          passed: false,
          reasons: ['base: solve rate 0.667 < 0.9', 'cand: solve rate 0.667 < 0.9'],
          judged: ONLY,
        },
        { failOn: 'below:0.1', passed: true, reasons: [], judged: ONLY },
      ],
    });
    // The failing gate named last fails the set just the same (the last gate is not the only one).
    expect(
      decideGates(
        [
          { kind: 'below', rate: 0.1 },
          { kind: 'below', rate: 0.9 },
        ],
        summary,
        'newest_run',
      )?.passed,
    ).toBe(false);
    expect(decideGates([], summary, 'newest_run')).toBeNull();
  });

  it('is the conjunction of the gates judged one by one, for any list of gates (repeats included)', () => {
    const summary = summaryOf(OPPOSITE);
    const gate: fc.Arbitrary<FailOn> = fc.oneof(
      fc.constant<FailOn>({ kind: 'regression' }),
      fc.constant<FailOn>({ kind: 'drift' }),
      fc.integer({ min: 0, max: 100 }).map<FailOn>((percent) => ({ kind: 'below', rate: percent / 100 })),
      fc.integer({ min: 1, max: 100 }).map<FailOn>((points) => ({ kind: 'case-regression', points })),
    );
    fc.assert(
      fc.property(fc.array(gate, { minLength: 1, maxLength: 6 }), (gates) => {
        const verdicts = decideGates(gates, summary, 'newest_run');
        const oneByOne = gates.map((entry) => decideGate(entry, summary, 'newest_run'));
        expect(verdicts?.gates).toEqual(oneByOne);
        expect(verdicts?.passed).toBe(oneByOne.every((entry) => entry.passed));
      }),
    );
  });
});

describe('case-regression:PTS', () => {
  it('fails on a case that fell 6/6 → 2/6 although the pooled Δ is 0 (and regression holds)', () => {
    const summary = summaryOf(OPPOSITE);
    expect(summary.comparison?.deltaSolveRate).toBeCloseTo(0, 12);
    expect(decideGate({ kind: 'regression' }, summary, 'newest_run').passed).toBe(true);
    expect(decideGate({ kind: 'case-regression', points: 50 }, summary, 'newest_run')).toEqual({
      failOn: 'case-regression:50',
      passed: false,
      reasons: ['case_down: 6/6 → 2/6 (−66.7 pts)'],
      judged: ONLY,
    });
    // A fall of 66.7 points is at least 66.6 but not 66.7 rounded up: the bar is the rate itself.
    expect(decideGate({ kind: 'case-regression', points: 66.6 }, summary, 'newest_run').passed).toBe(false);
    expect(decideGate({ kind: 'case-regression', points: 67 }, summary, 'newest_run').passed).toBe(true);
  });

  it('fails exactly when some shared case fell by PTS points or more (exact rational arithmetic)', () => {
    const caseCounts = fc
      .tuple(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 8 }))
      .chain(([aCounted, bCounted]) =>
        fc.record({
          aCounted: fc.constant(aCounted),
          bCounted: fc.constant(bCounted),
          aSolved: fc.integer({ min: 0, max: aCounted }),
          bSolved: fc.integer({ min: 0, max: bCounted }),
        }),
      );
    fc.assert(
      fc.property(
        fc.array(caseCounts, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 100 }),
        (cases, points) => {
          const attempts = cases.flatMap((counts, index) => [
            ...side(`case_${index}`, 'base', counts.aSolved, counts.aCounted),
            ...side(`case_${index}`, 'cand', counts.bSolved, counts.bCounted),
          ]);
          const verdict = decideGate({ kind: 'case-regression', points }, summaryOf(attempts), 'newest_run');
          // (aS/aC − bS/bC)·100 ≥ PTS, in integers.
          const fell = cases.filter(
            (c) =>
              100 * (c.aSolved * c.bCounted - c.bSolved * c.aCounted) >= points * c.aCounted * c.bCounted,
          );
          expect(verdict.passed).toBe(fell.length === 0);
          expect(verdict.reasons).toHaveLength(fell.length);
          for (const c of fell)
            expect(verdict.reasons.join('\n')).toContain(
              `: ${c.aSolved}/${c.aCounted} → ${c.bSolved}/${c.bCounted} (−`,
            );
        },
      ),
      { numRuns: 60 },
    );
  });

  it('fails when there is nothing to judge: no comparison, or no shared case', () => {
    expect(
      decideGate({ kind: 'case-regression', points: 10 }, summaryOf(OPPOSITE, null), 'newest_run'),
    ).toMatchObject({
      passed: false,
      reasons: [expect.stringContaining('no comparison to judge')],
    });
    const apart = [...side('case_x', 'base', 1, 1), ...side('case_y', 'cand', 1, 1)];
    expect(
      decideGate({ kind: 'case-regression', points: 10 }, summaryOf(apart), 'newest_run').reasons,
    ).toEqual(['base and cand share no case to compare']);
  });
});

/** A store that only streams the given attempts (and fails the test if anything else is asked). */
function storeOf(attempts: readonly StoredAttempt[], read: () => void = () => undefined): LedgerStore {
  return {
    attempts: async function* () {
      read();
      for (const stored of attempts) yield await Promise.resolve(stored);
    },
    policyVerdicts: async function* () {
      // none stored
    },
    // the HTML report's replays read each embedded attempt's bundle: none stored here
    getBundle: () => Promise.resolve(null),
    retractions: () => Promise.resolve([]),
    retriedTries: () => Promise.resolve([]),
  } as unknown as LedgerStore;
}

async function report(
  format: ReportFormat,
  failOn: readonly FailOn[],
  compare?: CompareSpec,
): Promise<string> {
  let text = '';
  await writeReport({
    store: storeOf(OPPOSITE),
    storeUrl: 'memory',
    format,
    failOn,
    ...(compare === undefined ? {} : { compare }),
    write: (chunk) => {
      text += chunk;
      return Promise.resolve();
    },
  });
  return text;
}

describe('writeReport', () => {
  const gates: FailOn[] = [
    { kind: 'below', rate: 0.9 },
    { kind: 'below', rate: 0.1 },
    { kind: 'case-regression', points: 50 },
  ];

  it('refuses a gate that needs a comparison without one, before reading the store', async () => {
    for (const gate of [{ kind: 'regression' }, { kind: 'case-regression', points: 5 }] as FailOn[]) {
      let read = false;
      const result = writeReport({
        store: storeOf(OPPOSITE, () => (read = true)),
        storeUrl: 'memory',
        failOn: [{ kind: 'drift' }, gate],
        write: () => Promise.resolve(),
      });
      await expect(result).rejects.toThrow(evalbookError('paperclip_evalbook_scope_unknown'));
      await expect(result).rejects.toThrow(/judges a comparison, and none is named: add --a and --b/);
      expect(read).toBe(false);
    }
    expect(() => {
      assertGatesJudgeable([{ kind: 'drift' }, { kind: 'below', rate: 1 }], undefined);
    }).not.toThrow();
    expect(() => {
      assertGatesJudgeable([{ kind: 'regression' }], COMPARE);
    }).not.toThrow();
  });

  it('JSON: gate has every verdict and the overall passed', async () => {
    const json = JSON.parse(await report('json', gates, COMPARE)) as { gate: unknown };
    expect(json.gate).toEqual({
      passed: false,
      view: { kind: 'newest_run', run: 'run1', runs: ['run1'], text: ONLY },
      gates: [
        {
          failOn: 'below:0.9',
          passed: false,
          reasons: ['base: solve rate 0.667 < 0.9', 'cand: solve rate 0.667 < 0.9'],
          judged: ONLY,
        },
        { failOn: 'below:0.1', passed: true, reasons: [], judged: ONLY },
        {
          failOn: 'case-regression:50',
          passed: false,
          reasons: ['case_down: 6/6 → 2/6 (−66.7 pts)'],
          judged: ONLY,
        },
      ],
    });
    expect((JSON.parse(await report('json', [])) as { gate: unknown }).gate).toBeNull();
  });

  it('Markdown, HTML and JUnit show every gate with its verdict', async () => {
    const md = await report('md', gates, COMPARE);
    expect(md).toContain('**Gates FAILED** (2 of 3 failed).');
    expect(md).toContain(
      '- `below:0.9`: **FAILED** on newest run run1 (the only run) — base: solve rate 0.667 \\< 0.9; cand: solve rate 0.667 \\< 0.9',
    );
    expect(md).toContain('- `below:0.1`: passed on newest run run1 (the only run)');
    expect(md).toContain(
      '- `case-regression:50`: **FAILED** on newest run run1 (the only run) — case_down: 6/6 → 2/6 (−66.7 pts)',
    );

    const html = await report('html', gates, COMPARE);
    expect(html).toContain('data-gates="failed"');
    expect(html.match(/data-gate="failed"/g)).toHaveLength(2);
    expect(html.match(/data-gate="passed"/g)).toHaveLength(1);
    expect(html).toContain('data-fail-on="case-regression:50"');
    expect(html).toContain('<li>case_down: 6/6 → 2/6 (−66.7 pts)</li>');

    const junit = await report('junit', gates, COMPARE);
    expect(junit).toContain(
      '<testsuite name="gates" tests="3" failures="2" errors="0" skipped="0" time="0.000">',
    );
    expect(junit).toMatch(
      /<testcase name="below:0\.1" classname="gates" time="0\.000">\s*<system-out>gate below:0\.1 held on newest run run1 \(the only run\)<\/system-out>\s*<\/testcase>/,
    );
    expect(junit).toMatch(
      /<testcase name="case-regression:50" classname="gates" time="0\.000">\s*<failure message="case_down: 6\/6 → 2\/6 \(−66\.7 pts\)" type="gate_failed">/,
    );
    expect(await report('junit', [])).not.toContain('name="gates"');
  });
});

describe('below:RATE at its boundary', () => {
  // The rate is the one the user writes (`below:0.7` for 7 of 10): a config solving exactly that
  // share holds the gate, one attempt fewer fails it, whatever the counts (property, real summaries).
  it('holds at the rate exactly and fails one solved attempt short of it', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 40 })
          .chain((counted) => fc.tuple(fc.constant(counted), fc.integer({ min: 1, max: counted }))),
        ([counted, solved]) => {
          const rate = Number((solved / counted).toPrecision(15)); // as a user would write it, rounded
          const exactly = summaryOf(side('case', 'config', solved, counted), null);
          const short = summaryOf(side('case', 'config', solved - 1, counted), null);
          expect(exactly.configStats[0]?.solveRate).toBe(solved / counted);
          const gate: FailOn = { kind: 'below', rate: Math.min(rate, solved / counted) };
          expect(
            decideGate(gate, exactly, 'newest_run').passed,
            `${solved}/${counted} at below:${gate.rate}`,
          ).toBe(true);
          expect(
            decideGate(gate, short, 'newest_run').passed,
            `${solved - 1}/${counted} at below:${gate.rate}`,
          ).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('holds every config to the rate: below:1 passes only a config that solves every attempt', () => {
    expect(
      decideGate({ kind: 'below', rate: 1 }, summaryOf(side('case', 'config', 5, 5), null), 'newest_run')
        .passed,
    ).toBe(true);
    expect(
      decideGate({ kind: 'below', rate: 1 }, summaryOf(side('case', 'config', 4, 5), null), 'newest_run')
        .passed,
    ).toBe(false);
    expect(
      decideGate({ kind: 'below', rate: 0 }, summaryOf(side('case', 'config', 0, 5), null), 'newest_run')
        .passed,
    ).toBe(true);
  });
});

/** `side`, in a run: the same attempts with their run id. */
function inRun(runId: string, attempts: readonly StoredAttempt[]): StoredAttempt[] {
  return attempts.map((stored) => ({
    ...stored,
    key: { ...stored.key, runId, attemptId: `${runId}-${stored.key.attemptId}` },
  }));
}

function summaryIn(
  attempts: readonly StoredAttempt[],
  options: { runId?: string; compare?: CompareSpec; view?: 'newest_run' | 'all_runs' } = {},
): EvalbookSummary {
  const builder = new SummaryBuilder({ resamples: 200, ...options });
  for (const stored of attempts) builder.add(stored);
  return builder.build();
}

describe('every gate judges the view the grid shows (issue 19)', () => {
  // nightly-1: cand solves 12 of 12; nightly-2 (the newest, as CI just made it): 0 of 3. Pooled 80%.
  const COLLAPSE = [
    ...inRun('nightly-1', side('case', 'cand', 12, 12)),
    ...inRun('nightly-2', side('case', 'cand', 0, 3)),
  ];
  const summary = summaryIn(COLLAPSE);
  const below = { kind: 'below', rate: 0.8 } as const;

  it('below:0.8 fails on the newest run that collapsed, though every run pooled is exactly 0.8', () => {
    expect(summary.configStats[0]?.solveRate).toBe(0.8);
    expect(summary.latestConfigStats[0]).toMatchObject({ configId: 'cand', solved: 0, solveRate: 0 });
    expect(decideGate(below, summary, 'newest_run')).toEqual({
      failOn: 'below:0.8',
      passed: false,
      reasons: ['cand: solve rate 0.000 < 0.8'],
      judged: 'newest run nightly-2 (of 2 runs)',
    });
    // all runs pooled: 12/15 is exactly the rate, which holds
    expect(decideGate(below, summary, 'all_runs')).toEqual({
      failOn: 'below:0.8',
      passed: true,
      reasons: [],
      judged: 'all runs: 2 runs pooled',
    });
  });

  it('the verdicts say their view: kind, run and runs', () => {
    expect(decideGates([below], summary, 'newest_run')?.view).toEqual({
      kind: 'newest_run',
      run: 'nightly-2',
      runs: ['nightly-2'],
      text: 'newest run nightly-2 (of 2 runs)',
    });
    expect(decideGates([below], summary, 'all_runs')?.view).toEqual({
      kind: 'all_runs',
      run: null,
      runs: ['nightly-1', 'nightly-2'],
      text: 'all runs: 2 runs pooled',
    });
    const first = summaryIn(COLLAPSE, { runId: 'nightly-1' });
    expect(decideGates([below], first, 'newest_run')).toMatchObject({
      passed: true,
      view: { kind: 'run', run: 'nightly-1', runs: ['nightly-1'], text: 'run nightly-1' },
    });
  });

  it.each([
    ['newest_run', 0.75],
    ['all_runs', 0.5],
  ] as const)(
    'below:RATE at exactly the rate holds in the %s view (%s), a hair above fails',
    (view, rate) => {
      // nightly-1: 1 of 4; nightly-2: 3 of 4 — newest 0.75, pooled 0.5
      const attempts = [
        ...inRun('nightly-1', side('case', 'k', 1, 4)),
        ...inRun('nightly-2', side('case', 'k', 3, 4)),
      ];
      const book = summaryIn(attempts);
      expect(decideGate({ kind: 'below', rate }, book, view).passed).toBe(true);
      expect(decideGate({ kind: 'below', rate: rate + 0.01 }, book, view)).toMatchObject({
        passed: false,
        reasons: [`k: solve rate ${rate.toFixed(3)} < ${rate + 0.01}`],
      });
    },
  );

  it('in the newest-run view, below judges what a summary scoped to the newest run judges (property)', () => {
    const row = fc.record({
      run: fc.integer({ min: 0, max: 2 }),
      caseId: fc.constantFrom('c1', 'c2'),
      configId: fc.constantFrom('k1', 'k2'),
      solved: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.array(row, { minLength: 1, maxLength: 24 }),
        fc.integer({ min: 0, max: 10 }),
        (rows, tenths) => {
          const attempts = rows.map((entry, index) => {
            const template = entry.solved ? SOLVED : UNSOLVED;
            return {
              ...template,
              key: {
                runId: `run_${entry.run}`,
                caseId: entry.caseId,
                configId: entry.configId,
                attemptId: `a${index}`,
              },
            };
          });
          const book = summaryIn(attempts);
          const scoped = summaryIn(attempts, { runId: book.latestRun ?? '' });
          const gate: FailOn = { kind: 'below', rate: tenths / 10 };
          expect(book.latestConfigStats).toEqual(scoped.configStats);
          const { judged: _newest, ...newest } = decideGate(gate, book, 'newest_run');
          const { judged: _scoped, ...inScope } = decideGate(gate, scoped, 'all_runs');
          expect(newest).toEqual(inScope);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('a comparison of configs pairs the newest run by default, every run with all_runs', () => {
    const attempts = [
      ...inRun('nightly-1', [...side('c1', 'base', 4, 4), ...side('c1', 'cand', 4, 4)]),
      ...inRun('nightly-2', [...side('c1', 'base', 4, 4), ...side('c1', 'cand', 0, 4)]),
    ];
    const compare: CompareSpec = { by: 'config', a: 'base', b: 'cand' };
    const newest = summaryIn(attempts, { compare });
    expect(newest.comparison).toMatchObject({
      runs: ['nightly-2'],
      regressions: [{ bSolved: 0, bCounted: 4 }],
    });
    expect(decideGate({ kind: 'case-regression', points: 100 }, newest, 'newest_run').passed).toBe(false);
    const pooled = summaryIn(attempts, { compare, view: 'all_runs' });
    expect(pooled.comparison).toMatchObject({
      runs: ['nightly-1', 'nightly-2'],
      regressions: [{ bSolved: 4, bCounted: 8 }],
    });
    expect(decideGate({ kind: 'case-regression', points: 100 }, pooled, 'all_runs').passed).toBe(true);
    // runs compared are named: no view applies
    const byRun = summaryIn(attempts, { compare: { by: 'run', a: 'nightly-1', b: 'nightly-2' } });
    expect(byRun.comparison?.runs).toEqual(['nightly-1', 'nightly-2']);
    expect(decideGate({ kind: 'regression' }, byRun, 'newest_run').judged).toBe(
      'runs nightly-1 and nightly-2',
    );
  });
});

describe('runs compared pair each case on each config (configs never pooled)', () => {
  // The reviewer's campaign: between two runs the configs swapped models, so on case_brief one config
  // went 3/3 → 0/3 and the other 0/3 → 3/3. Pooled per case that is 3/6 → 3/6, "tied", and every gate
  // held while the grid showed a 100-point fall.
  const SWAPPED = [
    ...inRun('t-2', [...side('case_brief', 'baseline', 3, 3), ...side('case_brief', 'candidate', 0, 3)]),
    ...inRun('t-3', [...side('case_brief', 'baseline', 0, 3), ...side('case_brief', 'candidate', 3, 3)]),
  ];
  const summary = summaryIn(SWAPPED, { compare: { by: 'run', a: 't-2', b: 't-3' } });

  it('finds the regression and the improvement, each named by its config', () => {
    expect(summary.comparison).toMatchObject({
      by: 'run',
      sharedCases: 2,
      aWins: 1,
      bWins: 1,
      ties: 0,
      regressions: [{ caseId: 'case_brief', configId: 'baseline', aSolved: 3, bSolved: 0 }],
      improvements: [{ caseId: 'case_brief', configId: 'candidate', aSolved: 0, bSolved: 3 }],
    });
    const verdict = decideGate({ kind: 'case-regression', points: 50 }, summary, 'newest_run');
    expect(verdict.passed).toBe(false);
    expect(verdict.reasons).toEqual(['case_brief on baseline: 3/3 → 0/3 (−100.0 pts)']);
  });

  it('names no config in a config comparison', () => {
    const byConfig = summaryIn(inRun('t-2', OPPOSITE), { compare: COMPARE });
    expect(byConfig.comparison?.regressions.map((delta) => delta.configId)).toEqual([null]);
  });

  it('property: the run comparison of any cells equals the per-cell deltas, whatever the other configs do', () => {
    const cell = fc.record({ a: fc.integer({ min: 0, max: 4 }), b: fc.integer({ min: 0, max: 4 }) });
    fc.assert(
      fc.property(fc.array(cell, { minLength: 1, maxLength: 4 }), (cells) => {
        const attempts = cells.flatMap((counts, index) => [
          ...inRun('r1', side('case', `config_${index}`, counts.a, 4)),
          ...inRun('r2', side('case', `config_${index}`, counts.b, 4)),
        ]);
        const comparison = summaryIn(attempts, { compare: { by: 'run', a: 'r1', b: 'r2' } }).comparison;
        expect(comparison?.sharedCases).toBe(cells.length);
        const moved = [...(comparison?.regressions ?? []), ...(comparison?.improvements ?? [])];
        for (const [index, counts] of cells.entries()) {
          const delta = moved.find((entry) => entry.configId === `config_${index}`);
          if (counts.a === counts.b) expect(delta).toBeUndefined();
          else expect(delta).toMatchObject({ caseId: 'case', aSolved: counts.a, bSolved: counts.b });
        }
      }),
      { numRuns: 100 },
    );
  });
});
