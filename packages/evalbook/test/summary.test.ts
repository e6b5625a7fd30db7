// Statuses and the summary: the verdict rules in order (a missing verdict is never a pass, a harness
// failure never a model failure), denominators that say what they counted and excluded, the grid,
// per-config rates, flaky cells, cost per solve, the trend across runs and paired comparisons —
// over real converted records (synthetic bundles through the contract parser and the converter).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import type { ScoreRow } from '../src/ledger/convert.ts';
import { attemptVerdict, withExpectedChecks } from '../src/analysis/scoring.ts';
import { parseEnvironment } from '../src/ledger/environment.ts';
import { SummaryBuilder, summariseStore } from '../src/analysis/summary.ts';
import { isEvalbookError } from '../src/errors.ts';
import type { EvalbookSummary, SummaryOptions } from '../src/analysis/summary.ts';
import type { PolicyVerdict } from '../src/ledger/policy-verdicts.ts';
import type { Retraction } from '../src/ledger/retraction.ts';
import type { StoredAttempt } from '../src/ledger/store.ts';
import { storedAttempt as attempt } from './support/stored-attempts.ts';
import type { Outcome } from './support/stored-attempts.ts';

describe('attemptVerdict', () => {
  const base = {
    failure: null,
    terminal: { turn: 'completed', run: 'succeeded', workDisposition: 'done' },
    transcript: { complete: true, eventCount: 3, omissionReason: null },
  };
  const check = (status: ScoreRow['status'], reason: string | null = null) => ({
    checkId: 'k',
    status,
    reason,
  });
  it.each([
    ['every check passes', base, [check('pass')], 'solved'],
    // Was 'solved' ("the terminal state decides"): a run nobody checked is not a pass.
    ['no checks at all: nobody judged the work, incomplete', base, [], 'incomplete'],
    ['only a soft check, fallen short: a verdict, still solved', base, [check('soft_fail')], 'solved'],
    ['a check fails', base, [check('pass'), check('fail')], 'unsolved'],
    ['a soft check falls short: shown, still solved', base, [check('pass'), check('soft_fail')], 'solved'],
    [
      'a check has no verdict: incomplete, not a pass and not a failure',
      base,
      [check('not_evaluated', 'no verdict')],
      'incomplete',
    ],
    ['a check errored: the harness, not the agent', base, [check('error', 'timeout')], 'errored'],
    [
      'budget failure',
      { ...base, failure: { classification: 'budget', code: 'b', message: '' } },
      [check('pass')],
      'over_budget',
    ],
    [
      'infrastructure failure',
      { ...base, failure: { classification: 'infrastructure', code: 'i', message: '' } },
      [check('pass')],
      'errored',
    ],
    [
      'runner failure',
      { ...base, failure: { classification: 'runner', code: 'r', message: '' } },
      [check('pass')],
      'errored',
    ],
    [
      'an agent failure is unsolved',
      { ...base, failure: { classification: 'agent', code: 'gave_up', message: '' } },
      [check('pass')],
      'unsolved',
    ],
    [
      'a cancelled run errored',
      { ...base, terminal: { ...base.terminal, run: 'cancelled' } },
      [check('pass')],
      'errored',
    ],
    [
      'a failed run without a failure record is unsolved',
      { ...base, terminal: { ...base.terminal, run: 'failed' } },
      [check('pass')],
      'unsolved',
    ],
    [
      'an incomplete transcript beats a passing check',
      { ...base, transcript: { complete: false, eventCount: 2, omissionReason: 'cut' } },
      [check('pass')],
      'incomplete',
    ],
  ] as const)('%s', (_name, record, scores, status) => {
    const verdict = attemptVerdict(record, scores);
    expect(verdict.status).toBe(status);
    expect(verdict.reason === null).toBe(status === 'solved');
  });

  it('solves only a whole, succeeded, failure-free attempt with at least one verdict and none short of a pass', () => {
    const statuses = ['pass', 'fail', 'error', 'not_evaluated', 'soft_fail'] as const;
    const classifications = [
      'budget',
      'infrastructure',
      'runner',
      'cancelled',
      'provider',
      'provider_turn',
      'agent',
    ];
    fc.assert(
      fc.property(
        fc.option(fc.constantFrom(...classifications), { nil: null }),
        fc.constantFrom('succeeded', 'failed', 'cancelled'),
        fc.boolean(),
        fc.array(fc.constantFrom(...statuses), { maxLength: 4 }),
        (classification, run, complete, scoreStatuses) => {
          const record = {
            failure: classification === null ? null : { classification, code: 'c', message: '' },
            terminal: { ...base.terminal, run },
            transcript: { ...base.transcript, complete },
          };
          const verdict = attemptVerdict(
            record,
            scoreStatuses.map((status) => check(status)),
          );
          const deserves =
            classification === null &&
            run === 'succeeded' &&
            complete &&
            scoreStatuses.length > 0 &&
            scoreStatuses.every((status) => status === 'pass' || status === 'soft_fail');
          expect(verdict.status === 'solved').toBe(deserves);
          if (scoreStatuses.length === 0 && classification === null && run === 'succeeded' && complete) {
            expect(verdict.status).toBe('incomplete');
            expect(verdict.reason).toMatch(/^no verdict/);
          }
        },
      ),
      // About 1 run in 240 is a whole, succeeded attempt with no check: enough runs to meet it.
      { numRuns: 3000 },
    );
  });
});

describe('SummaryBuilder', () => {
  const outcomes: [string, string, Outcome[]][] = [
    // case, config, attempts
    ['case_a', 'base', ['solved', 'solved', 'solved']],
    ['case_a', 'cand', ['solved', 'solved', 'solved']],
    ['case_b', 'base', ['solved', 'solved', 'unsolved']],
    ['case_b', 'cand', ['unsolved', 'unsolved', 'unsolved']],
    ['case_c', 'base', ['unsolved', 'errored', 'incomplete']],
    ['case_c', 'cand', ['solved', 'over_budget', 'mismatch']],
    ['case_d', 'cand', ['solved', 'unpriced', 'solved']],
  ];
  const all = outcomes.flatMap(([caseId, configId, list]) =>
    list.map((outcome, index) =>
      attempt('run1', caseId, configId, `${configId}-${caseId}-${index}`, outcome),
    ),
  );
  const build = (options: ConstructorParameters<typeof SummaryBuilder>[0] = {}) => {
    const builder = new SummaryBuilder(options);
    for (const stored of all) builder.add(stored);
    return builder.build();
  };

  it('counts every attempt once, leaving a foreign one out (and saying so) unless asked to include it', () => {
    const summary = build();
    expect(summary.attempts).toBe(all.length - 1);
    expect(summary.leftOut).toEqual({ foreign: 1, retracted: 0, retried: 0 });
    expect(summary).toMatchObject({ includeForeign: false, foreignIncluded: 0, retractions: [] });
    expect(summary.statusCounts).toEqual({
      solved: 12,
      unsolved: 5,
      errored: 1,
      incomplete: 1,
      over_budget: 1,
    });
    expect(summary.cases).toEqual(['case_a', 'case_b', 'case_c', 'case_d']);
    expect(summary.configs).toEqual(['base', 'cand']);
    const included = build({ includeForeign: true });
    expect(included.attempts).toBe(all.length);
    expect(included).toMatchObject({
      leftOut: { foreign: 0, retracted: 0, retried: 0 },
      includeForeign: true,
      foreignIncluded: 1,
    });
    expect(included.statusCounts.solved).toBe(13);
  });

  it('states each denominator: all_attempts counts errors against the rate, evaluated_only lists them as excluded', () => {
    const cell = (policy: 'all_attempts' | 'evaluated_only') =>
      build({ policy }).grid.find((entry) => entry.caseId === 'case_c' && entry.configId === 'base')!;
    expect(cell('all_attempts')).toMatchObject({
      solved: 0,
      solveRate: 0,
      denominator: { counted: 3, excluded: {} },
    });
    expect(cell('evaluated_only')).toMatchObject({
      solved: 0,
      solveRate: 0,
      denominator: { counted: 1, excluded: { errored: 1, incomplete: 1 } },
    });
    // The foreign attempt is in no cell at all (left out, counted as left out at the top).
    const mismatched = build().grid.find((entry) => entry.caseId === 'case_c' && entry.configId === 'cand')!;
    expect(mismatched.denominator).toEqual({ policy: 'all_attempts', counted: 2, excluded: {} });
  });

  it('gives every cell a Wilson interval, pass@k when there are several attempts, and marks flaky cells', () => {
    const summary = build();
    const flaky = summary.grid.find((entry) => entry.caseId === 'case_b' && entry.configId === 'base')!;
    expect(flaky.flaky).toBe(true);
    expect(flaky.solveRate).toBeCloseTo(2 / 3);
    expect(flaky.ci95![0]).toBeLessThan(2 / 3);
    expect(flaky.ci95![1]).toBeGreaterThan(2 / 3);
    expect(flaky.passAtK.map((row) => row.k)).toEqual([1, 2, 3]);
    expect(flaky.passAtK[0]!.passAtK).toBeCloseTo(2 / 3);
    expect(flaky.passAtK[2]!).toMatchObject({ passAtK: 1, passHatK: 0 });
    expect(summary.flakyCells).toEqual([{ caseId: 'case_b', configId: 'base' }]);
    // case_d has no base attempts: no cell at all, not a 0/0 cell
    expect(summary.grid.some((entry) => entry.caseId === 'case_d' && entry.configId === 'base')).toBe(false);
  });

  it('never prices a solve with an unpriced attempt in it', () => {
    const summary = build();
    const unpriced = summary.grid.find((entry) => entry.caseId === 'case_d')!;
    expect(unpriced.cost).toMatchObject({ unpriced: 1, priced: 2 });
    expect(unpriced.costPerSolvedNanodollars).toBeNull();
    const priced = summary.grid.find((entry) => entry.caseId === 'case_a' && entry.configId === 'base')!;
    expect(priced.costPerSolvedNanodollars).toBe(1_000_000);
  });

  it('rates each config over its cases with a case-clustered interval', () => {
    const base = build().configStats.find((config) => config.configId === 'base')!;
    expect(base).toMatchObject({ cases: 3, solved: 5, denominator: { counted: 9 } });
    expect(base.solveRate).toBeCloseTo(5 / 9);
    expect(base.interval).toBe('bootstrap_clustered_by_case');
    expect(base.ci95![0]).toBeLessThanOrEqual(5 / 9);
    expect(base.ci95![1]).toBeGreaterThanOrEqual(5 / 9);
  });

  it('compares two configs over shared cases only, regressions first', () => {
    const comparison = build({ compare: { by: 'config', a: 'base', b: 'cand' } }).comparison!;
    expect(comparison).toMatchObject({ sharedCases: 3, unsharedCases: 1, aWins: 1, bWins: 1, ties: 1 });
    expect(comparison.regressions.map((delta) => delta.caseId)).toEqual(['case_b']);
    expect(comparison.improvements.map((delta) => delta.caseId)).toEqual(['case_c']);
    // majority outcomes: case_b base solves, cand does not; case_c neither side crosses 0.5
    expect(comparison.discordant).toEqual({ aOnly: 1, bOnly: 0 });
    expect(comparison.mcnemarP).toBe(1);
    const expectedDelta = (0 + (0 - 2 / 3) + (1 / 2 - 0)) / 3;
    expect(comparison.deltaSolveRate).toBeCloseTo(expectedDelta);
    expect(comparison.deltaSolveRateCi95![0]).toBeLessThanOrEqual(expectedDelta);
    expect(comparison.deltaSolveRateCi95![1]).toBeGreaterThanOrEqual(expectedDelta);
  });

  it('is deterministic: the same evalbook gives the same intervals', async () => {
    const store = {
      attempts: async function* () {
        for (const stored of all) yield await Promise.resolve(stored);
      },
    };
    const first = await summariseStore(store, { compare: { by: 'config', a: 'base', b: 'cand' } });
    const second = await summariseStore(store, { compare: { by: 'config', a: 'base', b: 'cand' } });
    expect(second).toEqual(first);
  });

  it('orders runs by when their first attempt started, whatever order they were ingested in', () => {
    const startedAt = (stored: StoredAttempt, at: string): StoredAttempt => ({
      ...stored,
      record: { ...stored.record, startedAt: at },
    });
    const builder = new SummaryBuilder();
    builder.add(startedAt(attempt('late', 'case_a', 'base', 'x1', 'solved'), '2026-11-02T10:00:00.000Z'));
    builder.add(startedAt(attempt('early', 'case_a', 'base', 'x2', 'unsolved'), '2026-11-01T10:00:00.000Z'));
    builder.add(startedAt(attempt('late', 'case_a', 'base', 'x3', 'solved'), '2026-10-31T23:00:00.000Z'));
    builder.add(startedAt(attempt('middle', 'case_a', 'base', 'x4', 'solved'), '2026-11-01T12:00:00.000Z'));
    // A run's start is its earliest attempt: "late" has one on 31 October.
    expect(builder.build().runs).toEqual(['late', 'early', 'middle']);
  });

  it('follows each config across runs, in the order the runs were ingested (not by name)', () => {
    const builder = new SummaryBuilder();
    builder.add(attempt('nightly-9', 'case_a', 'base', 'x1', 'solved'));
    builder.add(attempt('nightly-10', 'case_a', 'base', 'x2', 'unsolved'));
    builder.add(attempt('nightly-10', 'case_a', 'cand', 'x3', 'solved'));
    builder.add(attempt('nightly-9', 'case_a', 'cand', 'x4', 'unsolved'));
    const summary = builder.build();
    expect(summary.runs).toEqual(['nightly-9', 'nightly-10']);
    expect(summary.trend.map((point) => [point.runId, point.configId, point.solveRate])).toEqual([
      ['nightly-9', 'base', 1],
      ['nightly-9', 'cand', 0],
      ['nightly-10', 'base', 0],
      ['nightly-10', 'cand', 1],
    ]);
  });
});

describe('attempts left out (foreign, retracted)', () => {
  const base = {
    solved: attempt('r', 'c', 'x', 'base-solved', 'solved'),
    unsolved: attempt('r', 'c', 'x', 'base-unsolved', 'unsolved'),
    errored: attempt('r', 'c', 'x', 'base-errored', 'errored'),
  };
  type Spec = {
    runId: string;
    caseId: string;
    configId: string;
    outcome: keyof typeof base;
    foreign: boolean;
    retracted: boolean;
    /** A campaign's try that a later try replaced (LedgerStore.retriedTries names it). */
    retried?: boolean;
  };
  const storedOf = (spec: Spec, index: number): StoredAttempt => {
    const from = base[spec.outcome];
    const key = { runId: spec.runId, caseId: spec.caseId, configId: spec.configId, attemptId: `a${index}` };
    return {
      ...from,
      key,
      record: {
        ...from.record,
        key,
        environmentMismatch: spec.foreign ? [{ field: 'case', expected: null, received: spec.caseId }] : [],
      },
    };
  };
  const spec = fc.record({
    runId: fc.constantFrom('r1', 'r2'),
    caseId: fc.constantFrom('case_a', 'case_b', 'case_c'),
    configId: fc.constantFrom('base', 'cand'),
    outcome: fc.constantFrom<keyof typeof base>('solved', 'unsolved', 'errored'),
    foreign: fc.boolean(),
    retracted: fc.boolean(),
    retried: fc.boolean(),
  });
  /** What a summary says about left-out attempts: everything else must be as if they were never stored. */
  const counted = ({
    leftOut: _l,
    retractions: _r,
    includeForeign: _i,
    foreignIncluded: _f,
    ...rest
  }: EvalbookSummary) => rest;

  it('a summary with foreign, retracted and retried attempts is the summary without them, and counts them as left out', () => {
    fc.assert(
      fc.property(fc.array(spec, { maxLength: 24 }), fc.boolean(), (specs, includeForeign) => {
        const all = specs.map(storedOf);
        const retractions: Retraction[] = specs.flatMap((item, index) =>
          item.retracted
            ? [
                {
                  runId: item.runId,
                  attemptId: `a${index}`,
                  reason: 'why',
                  by: 'who',
                  at: '2026-12-01T09:30:00.000Z',
                },
              ]
            : [],
        );
        const build = (attempts: readonly StoredAttempt[], options: SummaryOptions) => {
          const builder = new SummaryBuilder({ compare: { by: 'config', a: 'base', b: 'cand' }, ...options });
          for (const stored of attempts) builder.add(stored);
          try {
            return builder.build();
          } catch (error) {
            return isEvalbookError(error, 'paperclip_evalbook_scope_unknown') ? 'scope error' : error;
          }
        };
        const retried = all.filter((_, index) => specs[index]!.retried).map((stored) => stored.key);
        const kept = all.filter(
          (_, index) =>
            !specs[index]!.retracted && !specs[index]!.retried && (includeForeign || !specs[index]!.foreign),
        );
        const withThem = build(all, { retractions, retried, includeForeign });
        const without = build(kept, { includeForeign: true });
        if (typeof withThem === 'string' || typeof without === 'string') {
          expect(withThem).toBe(without);
          return;
        }
        expect(counted(withThem as EvalbookSummary)).toEqual(counted(without as EvalbookSummary));
        const summary = withThem as EvalbookSummary;
        expect(summary.leftOut.retracted).toBe(specs.filter((item) => item.retracted).length);
        // Retracted first, then retried, then foreign: each left-out attempt is counted once.
        expect(summary.leftOut.retried).toBe(specs.filter((item) => item.retried && !item.retracted).length);
        expect(summary.leftOut.foreign).toBe(
          includeForeign
            ? 0
            : specs.filter((item) => item.foreign && !item.retracted && !item.retried).length,
        );
        expect(
          summary.attempts + summary.leftOut.foreign + summary.leftOut.retracted + summary.leftOut.retried,
        ).toBe(all.length);
        expect(summary.retractions).toEqual(retractions);
      }),
      { numRuns: 150 },
    );
  });

  it('leaves the policy verdicts of left-out attempts out with them', () => {
    const verdictOf = (stored: StoredAttempt): PolicyVerdict => ({
      key: stored.key,
      callId: 'call_0',
      policyDigest: `sha256:${'b'.repeat(64)}`,
      toolName: 'read_document',
      decision: 'deny',
      verdict: 'deny',
      decisionJson: '{"verdict":"deny","reason":"no"}',
      ruleId: null,
      reason: 'no',
      errorCode: null,
      recordedOutcome: 'succeeded',
      agreement: 'policy_denies_runner_allowed',
    });
    const kept = storedOf(
      {
        runId: 'r1',
        caseId: 'case_a',
        configId: 'base',
        outcome: 'solved',
        foreign: false,
        retracted: false,
      },
      1,
    );
    const foreign = storedOf(
      { runId: 'r1', caseId: 'case_a', configId: 'base', outcome: 'solved', foreign: true, retracted: false },
      2,
    );
    const retracted = storedOf(
      {
        runId: 'r1',
        caseId: 'case_a',
        configId: 'base',
        outcome: 'solved',
        foreign: false,
        retracted: false,
      },
      3,
    );
    const builder = new SummaryBuilder({
      retractions: [
        { runId: 'r1', attemptId: 'a3', reason: 'why', by: 'who', at: '2026-12-01T09:30:00.000Z' },
      ],
    });
    for (const stored of [kept, foreign, retracted]) builder.add(stored);
    for (const stored of [kept, foreign, retracted]) builder.addPolicyVerdict(verdictOf(stored));
    expect(builder.build().policy).toEqual([expect.objectContaining({ configId: 'base', toolCalls: 1 })]);
  });

  it('a retracted run counts nowhere, and a --run naming it is told why', () => {
    const runRetraction: Retraction = {
      runId: 'r1',
      attemptId: null,
      reason: 'broken harness',
      by: 'ci',
      at: '2026-12-01T09:30:00.000Z',
    };
    const builder = new SummaryBuilder({ retractions: [runRetraction] });
    builder.add(
      storedOf(
        {
          runId: 'r1',
          caseId: 'case_a',
          configId: 'base',
          outcome: 'solved',
          foreign: false,
          retracted: false,
        },
        1,
      ),
    );
    builder.add(
      storedOf(
        {
          runId: 'r2',
          caseId: 'case_a',
          configId: 'base',
          outcome: 'unsolved',
          foreign: false,
          retracted: false,
        },
        2,
      ),
    );
    const summary = builder.build();
    expect(summary).toMatchObject({
      attempts: 1,
      runs: ['r2'],
      leftOut: { foreign: 0, retracted: 1, retried: 0 },
      retractions: [runRetraction],
    });
    const scoped = new SummaryBuilder({ retractions: [runRetraction], runId: 'r1' });
    scoped.add(
      storedOf(
        {
          runId: 'r1',
          caseId: 'case_a',
          configId: 'base',
          outcome: 'solved',
          foreign: false,
          retracted: false,
        },
        1,
      ),
    );
    expect(() => scoped.build()).toThrow(/run "r1" has no attempt to count: its attempts are retracted/);
  });
});

describe('withExpectedChecks', () => {
  const suite = attempt('r', 'case_a', 'base', 'x0', 'solved').record;
  const environment = parseEnvironment({
    schema: 'paperclip-evals/environment/v1',
    name: 't',
    cases: [{ id: 'case_a', sha256: suite.caseSha256, checks: [{ id: 'c1' }, { id: 'c2' }] }],
    configs: [{ id: 'base', sha256: suite.configSha256, model: 'm', driver: 'paperclip-deterministic' }],
  });
  const read = async (
    attempts: StoredAttempt[],
    env: typeof environment | undefined,
  ): Promise<StoredAttempt[]> => {
    const stream = async function* (): AsyncGenerator<StoredAttempt> {
      for (const stored of attempts) yield await Promise.resolve(stored);
    };
    const out: StoredAttempt[] = [];
    for await (const stored of withExpectedChecks(stream(), env)) out.push(stored);
    return out;
  };

  it('adds a not_evaluated row for a listed check with no stored row, and leaves the rest alone', async () => {
    const [solved, other, apart] = await read(
      [
        attempt('r', 'case_a', 'base', 'x1', 'solved'),
        attempt('r', 'case_b', 'base', 'x2', 'solved'),
        attempt('r', 'case_a', 'base', 'x3', 'mismatch'),
      ],
      environment,
    );
    expect(solved?.scores.map((score) => [score.checkId, score.status])).toEqual([
      ['c1', 'pass'],
      ['c2', 'not_evaluated'],
    ]);
    expect(solved === undefined ? null : attemptVerdict(solved.record, solved.scores).status).toBe(
      'incomplete',
    );
    expect(other?.scores).toHaveLength(1); // its case is not in the environment: foreign
    expect(other?.record.environmentMismatch).toEqual([
      { field: 'case', expected: null, received: 'case_b' },
    ]);
    expect(apart?.scores).toHaveLength(1); // kept apart for a digest mismatch: the environment does not apply
    expect(apart?.record.environmentMismatch).toEqual([
      { field: 'caseSha256', expected: 'x', received: 'y' },
    ]);
    expect((await read([attempt('r', 'case_a', 'base', 'x1', 'solved')], undefined))[0]?.scores).toHaveLength(
      1,
    );
  });

  it("marks foreign, by ingest's rule, every attempt whose case or config the environment lacks or lists under another digest", async () => {
    const other = 'sha256:' + 'f'.repeat(64);
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          caseListed: fc.boolean(),
          caseDigest: fc.boolean(),
          configListed: fc.boolean(),
          configDigest: fc.boolean(),
        }),
        async ({ caseListed, caseDigest, configListed, configDigest }) => {
          const env = parseEnvironment({
            schema: 'paperclip-evals/environment/v1',
            name: 't',
            cases: caseListed ? [{ id: 'case_a', sha256: caseDigest ? suite.caseSha256 : other }] : [],
            configs: configListed
              ? [
                  {
                    id: 'base',
                    sha256: configDigest ? suite.configSha256 : other,
                    model: 'm',
                    driver: 'paperclip-deterministic',
                  },
                ]
              : [],
          });
          const [read1] = await read([attempt('r', 'case_a', 'base', 'x1', 'solved')], env);
          const fields = (read1?.record.environmentMismatch ?? []).map((item) => item.field);
          const expected = [
            ...(caseListed ? (caseDigest ? [] : ['caseSha256']) : ['case']),
            ...(configListed ? (configDigest ? [] : ['configSha256']) : ['config']),
          ];
          expect(fields).toEqual(expected);
          // The summary leaves exactly those out as foreign, unless asked to count them.
          const builder = new SummaryBuilder({});
          builder.add(read1!);
          expect(builder.build().leftOut.foreign).toBe(expected.length > 0 ? 1 : 0);
          const including = new SummaryBuilder({ includeForeign: true });
          including.add(read1!);
          expect(including.build().attempts).toBe(1);
        },
      ),
    );
  });
});
