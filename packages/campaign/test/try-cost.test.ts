// A try's cost as the campaign's budget counts it (try-outcome.ts spendOf) is the ledger's reading
// of the artifact's usage (evalbook's artifactCost): upstream's usage-ledger sum labelled
// legacy_runner_usage_ledger is the legacy amount, never what the budget counts; the estimate is.
import { describe, expect, it } from 'vitest';

import { parseEvalSessionArtifact } from '@paperclip-evals/contract';

import { upstreamMissingCell, upstreamSuccess } from '@paperclip-evals/test-kit/upstream-artifacts';
import { UNKNOWN_COST, spendOf } from '../src/try-outcome.ts';

const artifactWith = (usage: Record<string, unknown>) => {
  const artifact = upstreamSuccess('att_cost');
  artifact.usage = { ...(artifact.usage as Record<string, unknown>), ...usage };
  return parseEvalSessionArtifact(JSON.stringify(artifact));
};

describe("a try's spend", () => {
  it("counts the estimate, never upstream's usage-ledger sum (a zero placeholder included)", () => {
    for (const amount of [0, 3_000_000, 9_000_000])
      expect(
        spendOf(
          artifactWith({
            providerReportedCostNanodollars: amount,
            providerReportedCostProvenance: 'legacy_runner_usage_ledger',
            costCoverage: 'legacy_ledger_and_estimate',
            legacyLedgerCostNanodollars: null,
          }),
        ),
      ).toEqual({
        providerReportedNanodollars: null,
        estimatedNanodollars: 4_500_000,
        legacyLedgerNanodollars: amount,
        observedNanodollars: 4_500_000,
        observedFrom: 'estimated',
      });
  });

  it('is unknown (never zero) when the ledger would refuse the figures', () => {
    expect(
      spendOf(
        artifactWith({
          providerReportedCostNanodollars: 3_000_000,
          providerReportedCostProvenance: 'legacy_runner_usage_ledger',
          costCoverage: 'legacy_ledger_and_estimate',
          legacyLedgerCostNanodollars: 1,
        }),
      ).observedNanodollars,
    ).toBeNull();
  });
});

describe("upstream's missing-cell artifact", () => {
  it('has an unknown spend (its usage is {}), never zero', () => {
    expect(spendOf(parseEvalSessionArtifact(JSON.stringify(upstreamMissingCell())))).toEqual(UNKNOWN_COST);
  });
});
