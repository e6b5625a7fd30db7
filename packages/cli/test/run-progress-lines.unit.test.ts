// `evals run`'s two progress renderings — the line redrawn on a terminal and the line per finished
// attempt when piped (a CI log) — say the same about spend: the observed figure, the ceiling, and how
// many tries have an unknown cost (never shown as if $0.00 were all that was spent).
import { describe, expect, it } from 'vitest';

import { attemptLine, progressLine } from '../src/commands/campaign.ts';

import type { AttemptOutcome, CampaignProgress } from '@paperclip-evals/campaign';

const progress = (over: Partial<CampaignProgress>): CampaignProgress => ({
  planned: 3,
  done: 1,
  running: 0,
  resumed: 0,
  byDisposition: {},
  failuresByClass: {},
  observedNanodollars: 0,
  unknownCostTries: 0,
  unsettledTries: 0,
  ceilingNanodollars: null,
  etaMs: null,
  stopped: null,
  ...over,
});
const outcome = {
  laneId: 'lane',
  caseId: 'case',
  index: 1,
  disposition: 'infrastructure_failure',
  infrastructureFailure: {
    class: 'provider_budget_coverage_unknown',
    category: 'provider_budget',
    retryable: false,
  },
  tries: [],
  resumed: false,
} as unknown as AttemptOutcome;

const ROWS: [string, Partial<CampaignProgress>, string][] = [
  ['no ceiling, all priced', { observedNanodollars: 4_130_000 }, 'spend $0.00413'],
  [
    'a ceiling, all priced',
    { observedNanodollars: 4_130_000, ceilingNanodollars: 10_000_000_000 },
    'spend $0.00413 of $10.00',
  ],
  [
    'a ceiling and a try of unknown cost',
    { unknownCostTries: 1, ceilingNanodollars: 10_000_000_000 },
    'spend $0.00 of $10.00 (+1 unpriced)',
  ],
  [
    'no ceiling, two of unknown cost',
    { observedNanodollars: 4_130_000, unknownCostTries: 2 },
    'spend $0.00413 (+2 unpriced)',
  ],
  [
    'a ceiling and a try a killed run started and never settled',
    { unknownCostTries: 2, unsettledTries: 1, ceilingNanodollars: 10_000_000_000 },
    'spend $0.00 of $10.00 (+2 unpriced, 1 of them never settled)',
  ],
];

describe('the spend in both progress lines', () => {
  it.each(ROWS)('%s', (_name, over, spend) => {
    const line = progress(over);
    expect(progressLine('c', line, performance.now()).parts).toContain(spend);
    expect(attemptLine('c', outcome, line, performance.now())).toContain(`· ${spend} ·`);
  });
});
