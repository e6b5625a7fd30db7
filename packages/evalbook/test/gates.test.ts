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
    );
    expect(verdicts).toEqual({
      passed: false,
      gates: [
        {
          failOn: 'below:0.9',
          passed: false,
          reasons: ['base: solve rate 0.667 < 0.9', 'cand: solve rate 0.667 < 0.9'],
        },
        { failOn: 'below:0.1', passed: true, reasons: [] },
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
      )?.passed,
    ).toBe(false);
    expect(decideGates([], summary)).toBeNull();
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
        const verdicts = decideGates(gates, summary);
        const oneByOne = gates.map((entry) => decideGate(entry, summary));
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
    expect(decideGate({ kind: 'regression' }, summary).passed).toBe(true);
    expect(decideGate({ kind: 'case-regression', points: 50 }, summary)).toEqual({
      failOn: 'case-regression:50',
      passed: false,
      reasons: ['case_down: 6/6 → 2/6 (−66.7 pts)'],
    });
    // A fall of 66.7 points is at least 66.6 but not 66.7 rounded up: the bar is the rate itself.
    expect(decideGate({ kind: 'case-regression', points: 66.6 }, summary).passed).toBe(false);
    expect(decideGate({ kind: 'case-regression', points: 67 }, summary).passed).toBe(true);
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
          const verdict = decideGate({ kind: 'case-regression', points }, summaryOf(attempts));
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
    expect(decideGate({ kind: 'case-regression', points: 10 }, summaryOf(OPPOSITE, null))).toMatchObject({
      passed: false,
      reasons: [expect.stringContaining('no comparison to judge')],
    });
    const apart = [...side('case_x', 'base', 1, 1), ...side('case_y', 'cand', 1, 1)];
    expect(decideGate({ kind: 'case-regression', points: 10 }, summaryOf(apart)).reasons).toEqual([
      'base and cand share no case to compare',
    ]);
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
      gates: [
        {
          failOn: 'below:0.9',
          passed: false,
          reasons: ['base: solve rate 0.667 < 0.9', 'cand: solve rate 0.667 < 0.9'],
        },
        { failOn: 'below:0.1', passed: true, reasons: [] },
        { failOn: 'case-regression:50', passed: false, reasons: ['case_down: 6/6 → 2/6 (−66.7 pts)'] },
      ],
    });
    expect((JSON.parse(await report('json', [])) as { gate: unknown }).gate).toBeNull();
  });

  it('Markdown, HTML and JUnit show every gate with its verdict', async () => {
    const md = await report('md', gates, COMPARE);
    expect(md).toContain('**Gates FAILED** (2 of 3 failed).');
    expect(md).toContain(
      '- `below:0.9`: **FAILED** — base: solve rate 0.667 \\< 0.9; cand: solve rate 0.667 \\< 0.9',
    );
    expect(md).toContain('- `below:0.1`: passed');
    expect(md).toContain('- `case-regression:50`: **FAILED** — case_down: 6/6 → 2/6 (−66.7 pts)');

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
      /<testcase name="below:0\.1" classname="gates" time="0\.000">\s*<system-out>gate below:0\.1 held<\/system-out>\s*<\/testcase>/,
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
          expect(decideGate(gate, exactly).passed, `${solved}/${counted} at below:${gate.rate}`).toBe(true);
          expect(decideGate(gate, short).passed, `${solved - 1}/${counted} at below:${gate.rate}`).toBe(
            false,
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('holds every config to the rate: below:1 passes only a config that solves every attempt', () => {
    expect(decideGate({ kind: 'below', rate: 1 }, summaryOf(side('case', 'config', 5, 5), null)).passed).toBe(
      true,
    );
    expect(decideGate({ kind: 'below', rate: 1 }, summaryOf(side('case', 'config', 4, 5), null)).passed).toBe(
      false,
    );
    expect(decideGate({ kind: 'below', rate: 0 }, summaryOf(side('case', 'config', 0, 5), null)).passed).toBe(
      true,
    );
  });
});
