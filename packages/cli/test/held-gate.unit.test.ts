// A held `regression` gate says why it held when cases regressed beside it (a new user's review:
// `evals compare … --fail-on regression` printed "regressed case_brief_rewrite 100% → 0%" and then
// "gate regression held", exit 0, without a word on why): the gate judges the configs' paired
// difference, and per-case regressions gate with case-regression:PTS. Rows: which gates say it.
import { describe, expect, it } from 'vitest';

import { heldBecause } from '../src/commands/report.ts';

import type { Comparison } from '@paperclip-evals/evalbook';

const regressed = { caseId: 'case_brief_rewrite', aSolveRate: 1, bSolveRate: 0 };
const comparison = (ci: readonly [number, number] | null, regressions: readonly object[]): Comparison =>
  ({ deltaSolveRateCi95: ci, regressions }) as unknown as Comparison;

describe('why a held gate held', () => {
  it('the demo: a case regressed, the paired interval includes 0', () => {
    expect(heldBecause('regression', comparison([-0.75, 0.75], [regressed]))).toBe(
      "held: the paired difference's 95% interval [-0.750, 0.750] (B − A, bootstrap over shared cases) includes 0 or lies above it; the gate judges the configs, not a case — the 1 regressed case(s) above gate with --fail-on case-regression:PTS",
    );
  });

  it.each([
    ['no case regressed', 'regression', comparison([-0.75, 0.75], [])],
    ['another gate', 'case-regression:50', comparison([-0.75, 0.75], [regressed])],
    ['another gate', 'below:0.5', comparison([-0.75, 0.75], [regressed])],
    ['no comparison', 'regression', null],
  ] as const)('says nothing more when %s (%s)', (_label, failOn, compared) => {
    expect(heldBecause(failOn, compared)).toBeNull();
  });

  it('says so when there is no interval', () => {
    expect(heldBecause('regression', comparison(null, [regressed]))).toMatch(
      /^held: there is no interval of the paired difference to fall below 0; .*case-regression:PTS$/,
    );
  });
});
