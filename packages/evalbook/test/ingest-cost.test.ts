// Ingest of eval-session cost figures: a pinned runner estimate and a legacy ledger amount are stored
// with their provenance (the ledger amount apart from the estimate, a zero placeholder kept as such);
// figures that disagree refuse the attempt with `cost_figures_inconsistent` and write nothing.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { ingest, ingestExitCode } from '../src/ledger/ingest.ts';
import { openStore } from '../src/ledger/open-store.ts';
import { tempDir } from '@paperclip-evals/test-kit/bundle-files';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';

let dir: string;
let cleanup: () => Promise<void>;
let storeUrl: string;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  storeUrl = `sqlite:${join(dir, 'evalbook.sqlite')}`;
});
afterEach(() => cleanup());

async function bundleWithUsage(name: string, usage: Record<string, unknown>): Promise<string> {
  const bundle = syntheticAttempt({ attemptId: name, costMicros: null });
  const path = join(dir, `${name}.json`);
  await writeFile(
    path,
    JSON.stringify({ ...bundle, usage: { ...(bundle.usage as Record<string, unknown>), ...usage } }),
  );
  return path;
}

describe('ingest: eval-session cost figures', () => {
  it('stores a pinned estimate and a legacy ledger amount apart, with their provenance', async () => {
    const path = await bundleWithUsage('a1', {
      providerReportedCostNanodollars: null,
      providerReportedCostProvenance: 'unavailable',
      estimatedCostNanodollars: 4321,
      pricingVersion: 'codex-2026-10',
      costCoverage: 'legacy_ledger_and_estimate',
      legacyLedgerCostNanodollars: 0,
    });
    const summary = await ingest({ inputs: [path], storeUrl });
    expect(ingestExitCode(summary)).toBe(0);
    expect(summary.coverage).toMatchObject({
      priced: 1,
      estimated: 1,
      pricedTotalNanodollars: 4321,
      legacyLedger: 1,
      legacyLedgerTotalNanodollars: 0,
    });
    const store = await openStore(storeUrl);
    try {
      const stored = await store.getAttempt({
        runId: 'run_synthetic',
        caseId: 'case_synthetic',
        configId: 'config_synthetic',
        attemptId: 'a1',
      });
      expect(stored?.record.cost).toEqual({
        providerReportedNanodollars: null,
        providerReportedProvenance: null,
        estimatedNanodollars: 4321,
        estimateSource: 'runner',
        pricingVersion: 'codex-2026-10',
        legacyLedgerNanodollars: 0,
        coverage: 'legacy_ledger_and_estimate',
        effectiveNanodollars: 4321,
        notes: ['provider_cost_null', 'provider_cost_unavailable'],
      });
    } finally {
      await store.close();
    }
  });

  it('refuses figures that disagree and writes nothing', async () => {
    const path = await bundleWithUsage('a2', {
      providerReportedCostNanodollars: null,
      estimatedCostNanodollars: null,
      costCoverage: 'estimated',
    });
    const summary = await ingest({ inputs: [path], storeUrl });
    expect(ingestExitCode(summary)).toBe(1);
    expect(summary.invalid[0]?.issues).toEqual([
      expect.objectContaining({
        code: 'cost_figures_inconsistent',
        path: '/usage/costCoverage',
        expected: 'unpriced',
        received: 'estimated',
      }),
    ]);
    const store = await openStore(storeUrl);
    try {
      expect(await store.countAttempts()).toBe(0);
    } finally {
      await store.close();
    }
  });
});
