// Ingest of eval-session cost figures: a pinned runner estimate and a legacy ledger amount are stored
// with their provenance (the ledger amount apart from the estimate, a zero placeholder kept as such);
// figures that disagree refuse the attempt with `cost_figures_inconsistent` and write nothing.
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { ingest, ingestExitCode } from '../src/ledger/ingest.ts';
import { openStore } from '../src/ledger/open-store.ts';
import { tempDir } from '@paperclip-evals/test-kit/bundle-files';
import { syntheticAttempt } from '@paperclip-evals/test-kit/synthetic';
import { upstreamSuccess } from '@paperclip-evals/test-kit/upstream-artifacts';

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

// Every figure is bounded (at most 2^53 − 1 nanodollars, ≈ $9.0M; past it the bundle is invalid), but
// a sum of valid figures is not a figure to refuse: two $5M attempts ingested into one store were
// written, then the ingest summary threw cost_out_of_range (exit 70, no summary) and every later
// report on that store did too. The total past the bound is the nearest double (its spacing there is
// 2 ns, far below the cent it is shown to), and says so.
describe('ingest: a priced total past 2^53 nanodollars', () => {
  it('is the summary of a written ingest, not an internal error after the write', async () => {
    const paths: string[] = [];
    for (const name of ['rich0', 'rich1']) {
      const path = join(dir, `${name}.json`);
      await writeFile(
        path,
        JSON.stringify(syntheticAttempt({ attemptId: name, costMicros: 5_000_000_000_000 })),
      );
      paths.push(path);
    }
    const summary = await ingest({ inputs: paths, storeUrl });
    expect(ingestExitCode(summary)).toBe(0);
    expect(summary.inserted).toBe(2);
    expect(summary.coverage.pricedTotalNanodollars).toBe(10_000_000_000_000_000);
    expect(summary.coverage.text).toMatch(/past 2\^53 − 1 nanodollars/);
    const again = await ingest({ inputs: paths, storeUrl });
    expect(again.duplicates).toBe(2);
  });
});

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

describe("ingest: an eval-session artifact with its bundle, the provider figure upstream's usage-ledger sum", () => {
  /** The usage both documents state: upstream's ledger sum labelled legacy_runner_usage_ledger. */
  const LEDGER_SUM = {
    providerReportedCostNanodollars: 3_000_000,
    providerReportedCostProvenance: 'legacy_runner_usage_ledger',
    estimatedCostNanodollars: 4_500_000,
    pricingVersion: 'provider-list-prices-2026-09-07-openrouter',
    costCoverage: 'legacy_ledger_and_estimate',
    legacyLedgerCostNanodollars: null,
  };

  /** artifact.json and native-execution.json beside it, telling one story but for `bundleUsage`. */
  async function pair(name: string, bundleUsage: Record<string, unknown> = {}): Promise<string> {
    const folder = join(dir, name);
    await mkdir(folder);
    const synthetic = syntheticAttempt({ attemptId: name, costMicros: null });
    const usage = synthetic.usage as Record<string, unknown>;
    const bundle = { ...synthetic, usage: { ...usage, ...LEDGER_SUM, ...bundleUsage } };
    const text = `${JSON.stringify(bundle)}\n`;
    await writeFile(join(folder, 'native-execution.json'), text);
    const runner = synthetic.runner as { binary: { sha256: string }; package: { version: string } };
    const base = upstreamSuccess(name);
    const build = base.build as { package: Record<string, unknown> };
    const artifact = {
      ...base,
      runnerd: { path: '[withheld]', sha256: runner.binary.sha256 },
      build: { ...build, package: { ...build.package, version: runner.package.version } },
      usage: {
        ...(base.usage as Record<string, unknown>),
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        ratesUsdPerMillionTokens: { input: 1.25, cachedInput: 0.125, output: 10 },
        ...LEDGER_SUM,
      },
      nativeExecution: {
        path: 'native-execution.json',
        sha256: `sha256:${createHash('sha256').update(text).digest('hex')}`,
        byteSize: Buffer.byteLength(text),
      },
    };
    const path = join(folder, 'artifact.json');
    await writeFile(path, JSON.stringify(artifact));
    return path;
  }

  it('is ingested: the figure is the legacy ledger amount with its provenance, the estimate prices it, no receipt', async () => {
    const summary = await ingest({ inputs: [await pair('p1')], storeUrl });
    expect(summary.invalid).toEqual([]);
    expect(summary.inserted).toBe(1);
    const store = await openStore(storeUrl);
    try {
      const stored = await store.getAttempt({
        runId: 'run_synthetic',
        caseId: 'case_synthetic',
        configId: 'config_synthetic',
        attemptId: 'p1',
      });
      expect(stored?.record.cost).toMatchObject({
        providerReportedNanodollars: null,
        legacyLedgerNanodollars: 3_000_000,
        estimatedNanodollars: 4_500_000,
        coverage: 'legacy_ledger_and_estimate',
        effectiveNanodollars: 4_500_000,
      });
      expect(stored?.record.cost.notes).toContain('provider_cost_legacy_runner_usage_ledger');
    } finally {
      await store.close();
    }
  });

  it.each([
    [
      'another amount',
      { providerReportedCostNanodollars: 2_999_999 },
      '/usage/providerReportedCostNanodollars',
      3_000_000,
      2_999_999,
    ],
    [
      'the same amount called a provider receipt',
      { providerReportedCostProvenance: 'provider_receipt', costCoverage: 'provider_reported' },
      '/usage/providerReportedCostProvenance',
      'legacy_runner_usage_ledger',
      'provider_receipt',
    ],
  ] as const)(
    'is refused when the bundle states %s, naming both figures, and nothing is written',
    async (_name, bundleUsage, path, expected, received) => {
      const summary = await ingest({
        inputs: [await pair(`p_${path.length}_${String(received).length}`, bundleUsage)],
        storeUrl,
      });
      expect(ingestExitCode(summary)).toBe(1);
      const issues = summary.invalid[0]?.issues ?? [];
      expect(issues).toContainEqual(
        expect.objectContaining({
          code: 'eval_session_cost_mismatch',
          path,
          expected,
          received,
          message: expect.stringContaining(JSON.stringify(received)) as unknown,
        }),
      );
      const store = await openStore(storeUrl);
      try {
        expect(await store.countAttempts()).toBe(0);
      } finally {
        await store.close();
      }
    },
  );
});
