// Cost model: the normalisation table (provider micros, null, estimates, unpriced) and fast-check
// properties of the integer arithmetic (exactness, rounding half up, bounds).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  MAX_NANODOLLARS,
  attemptCost,
  checkBudget,
  costCoverage,
  displayUsd,
  estimateNanodollars,
  formatUsd,
  microsToNanodollars,
  priceToMicros,
} from '../src/ledger/cost.ts';
import { evalbookError, thrownBy } from './support/evalbook-error.ts';
import type { CostInputs } from '../src/ledger/cost.ts';

const pricing = { version: 'p-2026-11', models: { m1: { inputPerMillionUsd: 3, outputPerMillionUsd: 15 } } };
const usage = { inputTokens: 300, outputTokens: 120 };
const withoutReceipt = { ...usage, cost: null };

describe('attemptCost', () => {
  it.each([
    [
      'provider-reported micros × 1000',
      { currency: 'USD', amountMicros: 3750 },
      'm1',
      'provider_reported',
      3_750_000,
      2_700_000,
    ],
    ['null provider cost with a priced model → estimated', null, 'm1', 'estimated', null, 2_700_000],
    ['null provider cost, model not priced → unpriced (null, never 0)', null, 'm2', 'unpriced', null, null],
    ['null provider cost, no config → unpriced', null, undefined, 'unpriced', null, null],
    [
      'zero reported by the provider is a real zero',
      { currency: 'USD', amountMicros: 0 },
      'm2',
      'provider_reported',
      0,
      null,
    ],
    ['non-USD is not a USD figure', { currency: 'EUR', amountMicros: 10 }, 'm2', 'unpriced', null, null],
  ] as const)('%s', (_name, reported, model, coverage, provider, estimated) => {
    const cost = attemptCost({ ...usage, cost: reported }, model, pricing);
    expect(cost.coverage).toBe(coverage);
    expect(cost.providerReportedNanodollars).toBe(provider);
    expect(cost.estimatedNanodollars).toBe(estimated);
    expect(cost.effectiveNanodollars).toBe(provider ?? estimated);
    expect(cost.pricingVersion).toBe(estimated === null ? null : 'p-2026-11');
  });

  it('records why a figure is missing', () => {
    expect(attemptCost(withoutReceipt, 'm2', pricing).notes).toEqual([
      'provider_cost_null',
      'model_unpriced:m2',
    ]);
    expect(attemptCost(withoutReceipt, 'm1', undefined).notes).toEqual([
      'provider_cost_null',
      'pricing_absent',
    ]);
  });

  it('does not find prototype members as models', () => {
    expect(attemptCost(withoutReceipt, 'constructor', pricing).coverage).toBe('unpriced');
  });
});

describe('eval-session cost figures', () => {
  const session = (fields: Partial<CostInputs>): CostInputs => ({ ...withoutReceipt, ...fields });

  it.each([
    [
      'no receipt, pinned estimate → estimated, never repriced by our table',
      session({
        providerReportedCostNanodollars: null,
        providerReportedCostProvenance: 'unavailable',
        estimatedCostNanodollars: 1234,
        pricingVersion: 'runner-2026-10',
        costCoverage: 'estimated',
      }),
      { coverage: 'estimated', estimated: 1234, source: 'runner', version: 'runner-2026-10', legacy: null },
    ],
    [
      'legacy ledger amount kept beside the estimate, not added to it',
      session({
        providerReportedCostNanodollars: null,
        estimatedCostNanodollars: 1234,
        pricingVersion: 'runner-2026-10',
        costCoverage: 'legacy_ledger_and_estimate',
        legacyLedgerCostNanodollars: 9000,
      }),
      {
        coverage: 'legacy_ledger_and_estimate',
        estimated: 1234,
        source: 'runner',
        version: 'runner-2026-10',
        legacy: 9000,
      },
    ],
    [
      'a zero ledger placeholder without an estimate prices nothing (model absent from our table too)',
      session({
        providerReportedCostNanodollars: null,
        estimatedCostNanodollars: null,
        costCoverage: 'unpriced',
        legacyLedgerCostNanodollars: 0,
      }),
      { coverage: 'unpriced', estimated: null, source: null, version: null, legacy: 0, model: 'm2' },
    ],
    [
      'no runner estimate: our pricing table prices it',
      session({ providerReportedCostNanodollars: null, providerReportedCostProvenance: 'unavailable' }),
      {
        coverage: 'estimated',
        estimated: 2_700_000,
        source: 'pricing_table',
        version: 'p-2026-11',
        legacy: null,
      },
    ],
  ] as const)('%s', (_name, inputs, expected) => {
    const cost = attemptCost(inputs, 'model' in expected ? expected.model : 'm1', pricing);
    expect(cost.coverage).toBe(expected.coverage);
    expect(cost.providerReportedNanodollars).toBeNull();
    expect(cost.estimatedNanodollars).toBe(expected.estimated);
    expect(cost.estimateSource).toBe(expected.source);
    expect(cost.pricingVersion).toBe(expected.version);
    expect(cost.legacyLedgerNanodollars).toBe(expected.legacy);
    expect(cost.effectiveNanodollars).toBe(expected.estimated);
  });

  it('takes an eval-session receipt with its provenance; agreeing with usage.cost is fine', () => {
    const cost = attemptCost(
      session({
        cost: { currency: 'USD', amountMicros: 5 },
        providerReportedCostNanodollars: 5000,
        providerReportedCostProvenance: 'provider_receipt',
      }),
      'm1',
      pricing,
    );
    expect(cost).toMatchObject({
      coverage: 'provider_reported',
      providerReportedNanodollars: 5000,
      providerReportedProvenance: 'provider_receipt',
    });
  });

  it.each([
    [
      'receipt disagrees with usage.cost',
      session({ cost: { currency: 'USD', amountMicros: 5 }, providerReportedCostNanodollars: 4999 }),
      '/usage/providerReportedCostNanodollars',
    ],
    [
      'estimate without its pricingVersion',
      session({ estimatedCostNanodollars: 10 }),
      '/usage/pricingVersion',
    ],
    [
      'declared estimated with no estimate',
      session({ estimatedCostNanodollars: null, costCoverage: 'estimated' }),
      '/usage/costCoverage',
    ],
    [
      'declared unpriced with a receipt',
      session({ providerReportedCostNanodollars: 7, costCoverage: 'unpriced' }),
      '/usage/costCoverage',
    ],
    [
      'declared legacy_ledger_and_estimate without a legacy amount',
      session({
        estimatedCostNanodollars: 10,
        pricingVersion: 'v',
        legacyLedgerCostNanodollars: null,
        costCoverage: 'legacy_ledger_and_estimate',
      }),
      '/usage/costCoverage',
    ],
  ] as const)('refuses inconsistent figures: %s', (_name, inputs, path) => {
    expect(() => attemptCost(inputs, 'm1', pricing)).toThrow(
      evalbookError('paperclip_evalbook_cost_inconsistent'),
    );
    const [issue, ...more] = thrownBy(() => attemptCost(inputs, 'm1', pricing)).issues;
    expect(issue?.code).toBe('cost_figures_inconsistent');
    expect(issue?.path).toBe(path);
    expect(more).toEqual([]);
  });
});

describe('seed 001: a direct eval-session with a legacy ledger amount', () => {
  const session = (fields: Partial<CostInputs>): CostInputs => ({ ...withoutReceipt, ...fields });
  it('is estimated as the runner declares: the legacy amount kept apart, never added, never pricing it', () => {
    const cost = attemptCost(
      session({
        estimatedCostNanodollars: 10,
        pricingVersion: 'v',
        legacyLedgerCostNanodollars: 3,
        costCoverage: 'estimated',
      }),
      'm1',
      pricing,
    );
    expect(cost).toMatchObject({
      providerReportedNanodollars: null,
      estimatedNanodollars: 10,
      estimateSource: 'runner',
      legacyLedgerNanodollars: 3,
      coverage: 'estimated',
      effectiveNanodollars: 10,
    });
  });

  it('is legacy_ledger_and_estimate when the runner says so (older runners), still priced by the estimate alone', () => {
    const cost = attemptCost(
      session({
        estimatedCostNanodollars: 10,
        pricingVersion: 'v',
        legacyLedgerCostNanodollars: 0,
        costCoverage: 'legacy_ledger_and_estimate',
      }),
      'm1',
      pricing,
    );
    expect(cost).toMatchObject({
      coverage: 'legacy_ledger_and_estimate',
      effectiveNanodollars: 10,
      legacyLedgerNanodollars: 0,
    });
  });
});

describe("upstream's usage-ledger sum as the provider figure (provenance legacy_runner_usage_ledger)", () => {
  // Upstream's eval-session before seed 001: providerReportedCostNanodollars is its runner's ledger
  // sum (zero where the ledger had nothing), labelled legacy_runner_usage_ledger, coverage
  // legacy_ledger_and_estimate — its artifact's coverage has no provider_reported.
  const legacy = (fields: Partial<CostInputs>): CostInputs => ({
    ...withoutReceipt,
    providerReportedCostNanodollars: 7000,
    providerReportedCostProvenance: 'legacy_runner_usage_ledger',
    estimatedCostNanodollars: 10,
    pricingVersion: 'v',
    costCoverage: 'legacy_ledger_and_estimate',
    ...fields,
  });

  it.each([
    ['as upstream labels it', legacy({}), 'legacy_ledger_and_estimate', 10, 7000],
    ['called estimated (seed 001 vocabulary)', legacy({ costCoverage: 'estimated' }), 'estimated', 10, 7000],
    [
      'with the same amount in legacyLedgerCostNanodollars too',
      legacy({ legacyLedgerCostNanodollars: 7000 }),
      'legacy_ledger_and_estimate',
      10,
      7000,
    ],
    [
      'a zero placeholder and no estimate: unpriced, never $0',
      legacy({
        providerReportedCostNanodollars: 0,
        estimatedCostNanodollars: null,
        costCoverage: 'unpriced',
      }),
      'unpriced',
      null,
      0,
    ],
  ] as const)(
    'is the legacy ledger amount, not a receipt: %s',
    (_name, inputs, coverage, effective, legacyAmount) => {
      const { pricingVersion: _version, ...unversioned } = inputs;
      const cost = attemptCost(
        inputs.estimatedCostNanodollars === null ? unversioned : inputs,
        'm2',
        pricing,
      );
      expect(cost).toMatchObject({
        providerReportedNanodollars: null,
        providerReportedProvenance: null,
        legacyLedgerNanodollars: legacyAmount,
        coverage,
        effectiveNanodollars: effective,
      });
      expect(cost.notes).toContain('provider_cost_legacy_runner_usage_ledger');
    },
  );

  it('never prices an attempt with it, whatever the amount (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: MAX_NANODOLLARS }),
        fc.option(fc.integer({ min: 0, max: 1_000_000 }), { nil: null }),
        (amount, estimate) => {
          const cost = attemptCost(
            legacy({
              providerReportedCostNanodollars: amount,
              estimatedCostNanodollars: estimate,
              ...(estimate === null ? { costCoverage: 'unpriced' as const } : {}),
            }),
            'm2',
            pricing,
          );
          expect(cost.providerReportedNanodollars).toBeNull();
          expect(cost.legacyLedgerNanodollars).toBe(amount);
          expect(cost.effectiveNanodollars).toBe(estimate);
        },
      ),
    );
  });

  it.each([
    [
      'labelled provider_reported',
      legacy({ costCoverage: 'provider_reported' }),
      '/usage/costCoverage',
      'legacy_ledger_and_estimate',
      'provider_reported',
    ],
    [
      'another amount in legacyLedgerCostNanodollars',
      legacy({ legacyLedgerCostNanodollars: 6999 }),
      '/usage/legacyLedgerCostNanodollars',
      7000,
      6999,
    ],
    [
      'beside a USD receipt in usage.cost',
      legacy({ cost: { currency: 'USD', amountMicros: 7 } }),
      '/usage/cost/amountMicros',
      0,
      7,
    ],
  ] as const)('refuses it %s, naming both figures', (_name, inputs, path, expected, received) => {
    const [issue, ...more] = thrownBy(() => attemptCost(inputs, 'm1', pricing)).issues;
    expect(issue).toMatchObject({ code: 'cost_figures_inconsistent', path, expected, received });
    expect(more).toEqual([]);
  });
});

describe('checkBudget', () => {
  const summary = (priced: number, legacy: number, unpriced = 0) =>
    costCoverage([
      { coverage: 'estimated', effectiveNanodollars: priced, legacyLedgerNanodollars: legacy },
      ...Array.from({ length: unpriced }, () => ({
        coverage: 'unpriced' as const,
        effectiveNanodollars: null,
        legacyLedgerNanodollars: null,
      })),
    ]);
  it.each([
    ['both meters under the limit', 1, summary(999_999_999, 999_999_999), 'within'],
    ['the estimate passes the limit', 1, summary(1_000_000_001, 0), 'exceeded'],
    [
      'the ledger amount alone passes the limit (not added to the estimate)',
      1,
      summary(600_000_000, 1_000_000_001),
      'exceeded',
    ],
    [
      'each meter under the limit, their sum over it: still within',
      1,
      summary(600_000_000, 600_000_000),
      'within',
    ],
    ['unpriced attempts make a held budget unproven', 1, summary(10, 0, 2), 'unproven'],
  ] as const)('%s', (_name, limitUsd, coverage, status) => {
    expect(checkBudget(limitUsd, coverage).status).toBe(status);
  });
});

describe('arithmetic', () => {
  it('rounds an estimate once, half up', () => {
    // 1 token at $0.0005/Mtok = 500 picodollars = 0.5 nanodollars → 1
    expect(
      estimateNanodollars(
        { inputTokens: 1, outputTokens: 0 },
        { inputPerMillionUsd: 0.0005, outputPerMillionUsd: 0 },
      ),
    ).toBe(1);
    expect(
      estimateNanodollars(
        { inputTokens: 1, outputTokens: 0 },
        { inputPerMillionUsd: 0.000499, outputPerMillionUsd: 0 },
      ),
    ).toBe(0);
    // both kinds summed before rounding: 0.4 + 0.4 = 0.8 → 1 (not 0 + 0)
    expect(
      estimateNanodollars(
        { inputTokens: 1, outputTokens: 1 },
        { inputPerMillionUsd: 0.0004, outputPerMillionUsd: 0.0004 },
      ),
    ).toBe(1);
  });

  it('refuses figures above the safe bound (≈ $9M) and prices with more than 6 decimals', () => {
    expect(() => microsToNanodollars(Math.floor(MAX_NANODOLLARS / 1000) + 1)).toThrow(
      evalbookError('paperclip_evalbook_cost_out_of_range'),
    );
    expect(microsToNanodollars(Math.floor(MAX_NANODOLLARS / 1000))).toBe(
      Math.floor(MAX_NANODOLLARS / 1000) * 1000,
    );
    expect(() =>
      estimateNanodollars(
        { inputTokens: 2 ** 50, outputTokens: 0 },
        { inputPerMillionUsd: 1000, outputPerMillionUsd: 0 },
      ),
    ).toThrow(evalbookError('paperclip_evalbook_cost_out_of_range'));
    expect(priceToMicros(0.0000001)).toBeNull();
    expect(priceToMicros(1.1234567)).toBeNull();
    expect(priceToMicros(2.5)).toBe(2_500_000n);
    // A total of bounded figures is never refused (it used to throw here: ingest then failed with
    // exit 70 after writing, and a report of the store never ran again): exact up to the bound, the
    // nearest double past it, and the text says so.
    const past = costCoverage([
      {
        coverage: 'provider_reported',
        effectiveNanodollars: MAX_NANODOLLARS,
        legacyLedgerNanodollars: MAX_NANODOLLARS,
      },
      { coverage: 'estimated', effectiveNanodollars: 1, legacyLedgerNanodollars: 1 },
    ]);
    expect(past.pricedTotalNanodollars).toBe(2 ** 53);
    expect(past.legacyLedgerTotalNanodollars).toBe(2 ** 53);
    expect(past.text).toMatch(/past 2\^53 − 1 nanodollars/);
    const at = costCoverage([
      {
        coverage: 'provider_reported',
        effectiveNanodollars: MAX_NANODOLLARS - 1,
        legacyLedgerNanodollars: null,
      },
      { coverage: 'estimated', effectiveNanodollars: 1, legacyLedgerNanodollars: null },
    ]);
    expect(at.pricedTotalNanodollars).toBe(MAX_NANODOLLARS);
    expect(at.text).not.toMatch(/past/);
  });

  it('property: micros × 1000 is exact for every safe amount', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Math.floor(MAX_NANODOLLARS / 1000) }), (micros) => {
        expect(BigInt(microsToNanodollars(micros))).toBe(BigInt(micros) * 1000n);
      }),
    );
  });

  it('property: the estimate equals the exact rational rounded half up, and is monotone in tokens', () => {
    const price = fc.integer({ min: 0, max: 100_000_000 }).map((micros) => micros / 1_000_000);
    const tokens = fc.integer({ min: 0, max: 10_000_000 });
    fc.assert(
      fc.property(tokens, tokens, price, price, (inputTokens, outputTokens, inputPrice, outputPrice) => {
        const p = { inputPerMillionUsd: inputPrice, outputPerMillionUsd: outputPrice };
        const pico =
          BigInt(inputTokens) * BigInt(Math.round(inputPrice * 1e6)) +
          BigInt(outputTokens) * BigInt(Math.round(outputPrice * 1e6));
        const got = BigInt(estimateNanodollars({ inputTokens, outputTokens }, p));
        // |got × 1000 − pico| ≤ 500, ties rounded up
        expect(got * 1000n - pico <= 500n && pico - got * 1000n < 500n).toBe(true);
        expect(estimateNanodollars({ inputTokens: inputTokens + 1, outputTokens }, p)).toBeGreaterThanOrEqual(
          Number(got),
        );
      }),
    );
  });

  it('property: coverage counts add up and the total is the sum of priced figures', () => {
    const cost = fc.oneof(
      fc.record({
        coverage: fc.constant('provider_reported' as const),
        effectiveNanodollars: fc.integer({ min: 0, max: 1e12 }),
        legacyLedgerNanodollars: fc.constant(null),
      }),
      fc.record({
        coverage: fc.constantFrom('estimated' as const, 'legacy_ledger_and_estimate' as const),
        effectiveNanodollars: fc.integer({ min: 0, max: 1e12 }),
        legacyLedgerNanodollars: fc.option(fc.integer({ min: 0, max: 1e12 })),
      }),
      fc.record({
        coverage: fc.constant('unpriced' as const),
        effectiveNanodollars: fc.constant(null),
        legacyLedgerNanodollars: fc.option(fc.integer({ min: 0, max: 1e12 })),
      }),
    );
    fc.assert(
      fc.property(fc.array(cost, { maxLength: 50 }), (costs) => {
        const summary = costCoverage(costs);
        expect(summary.priced + summary.unpriced).toBe(costs.length);
        expect(summary.pricedTotalNanodollars).toBe(
          costs.reduce((sum, c) => sum + (c.effectiveNanodollars ?? 0), 0),
        );
        expect(summary.text.startsWith(`${summary.priced} of ${costs.length} attempt`)).toBe(true);
        // the legacy ledger amount is its own meter: never in the priced total
        expect(summary.legacyLedgerTotalNanodollars).toBe(
          costs.reduce((sum, c) => sum + (c.legacyLedgerNanodollars ?? 0), 0),
        );
      }),
    );
  });

  it('formats nanodollars exactly', () => {
    expect(formatUsd(1234)).toBe('$0.000001234');
    expect(formatUsd(3_750_000)).toBe('$0.003750000');
    expect(formatUsd(null)).toBe('unpriced');
  });

  it.each([
    [null, 'unpriced'],
    [0, '$0.00'],
    [1, '$0.000000001'],
    [1234, '$0.00000123'],
    [3_750_000, '$0.00375'],
    [123_456_789, '$0.123'],
    [999_499_999, '$0.999'],
    [999_500_000, '$1.00'],
    [1_005_000_000, '$1.01'],
    [1_234_567_890_123, '$1,234.57'],
    [-3_750_000, '−$0.00375'],
  ])('shows %s nanodollars to a reader as %s', (nanodollars, shown) => {
    expect(displayUsd(nanodollars)).toBe(shown);
  });

  it('shows money within half a cent from $1 up, within 0.5% below, and never a priced figure as $0', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_NANODOLLARS }), (nanodollars) => {
        const shown = displayUsd(nanodollars);
        expect(shown).toMatch(/^\$(\d{1,3}(,\d{3})*\.\d{2}|0\.\d*[1-9]\d*)$/);
        const value = Number(shown.slice(1).replaceAll(',', '')) * 1e9;
        if (shown.startsWith('$0.') && value < 1e9)
          expect(Math.abs(value - nanodollars)).toBeLessThanOrEqual(nanodollars * 0.005 + 1e-6);
        else expect(Math.abs(value - nanodollars)).toBeLessThanOrEqual(5e6 + nanodollars * 1e-15);
        expect(shown).not.toBe('$0.00');
      }),
    );
  });
});

describe('a provider cost the runner states unavailable', () => {
  const receipt = fc.option(
    fc.record({ currency: fc.constantFrom('USD', 'EUR'), amountMicros: fc.constantFrom(0, 0, 1, 3750) }),
    { nil: null },
  );
  const stated = fc.record(
    {
      providerReportedCostNanodollars: fc.constantFrom<number | null>(null, 0, 3_750_000),
      providerReportedCostProvenance: fc.constantFrom('unavailable', 'provider_receipt'),
      estimatedCostNanodollars: fc.option(fc.constantFrom(0, 1234), { nil: null }),
      pricingVersion: fc.constant('runner-2026-11'),
      legacyLedgerCostNanodollars: fc.option(fc.constantFrom(0, 99), { nil: null }),
    },
    { requiredKeys: [] },
  );

  it('is never a provider-reported figure (let alone $0), whatever usage.cost and the other figures say', () => {
    fc.assert(
      fc.property(receipt, stated, fc.constantFrom('m1', 'm2', undefined), (cost, fields, model) => {
        const inputs: CostInputs = { ...usage, cost, ...fields };
        const unavailable =
          fields.providerReportedCostNanodollars === null ||
          fields.providerReportedCostProvenance === 'unavailable';
        let result: ReturnType<typeof attemptCost>;
        try {
          result = attemptCost(inputs, model, pricing);
        } catch (error) {
          // Refused, never guessed: only figures that contradict one another.
          expect(error).toEqual(evalbookError('paperclip_evalbook_cost_inconsistent'));
          return;
        }
        if (unavailable) {
          expect(result.providerReportedNanodollars).toBeNull();
          expect(result.coverage).not.toBe('provider_reported');
          expect(result.effectiveNanodollars).toBe(result.estimatedNanodollars);
        }
        if (result.coverage === 'provider_reported')
          expect(result.providerReportedNanodollars).not.toBeNull();
      }),
      { numRuns: 500 },
    );
  });

  it.each([
    ['a usage.cost of 0 beside it is not a receipt', { currency: 'USD', amountMicros: 0 }],
    ['a usage.cost of null beside it', null],
  ] as const)('%s: unpriced without an estimate, estimated with one', (_name, cost) => {
    const unavailable = {
      providerReportedCostNanodollars: null,
      providerReportedCostProvenance: 'unavailable',
    };
    const alone = attemptCost({ ...usage, cost, ...unavailable }, 'm2', pricing);
    expect(alone).toMatchObject({
      coverage: 'unpriced',
      providerReportedNanodollars: null,
      effectiveNanodollars: null,
    });
    const priced = attemptCost({ ...usage, cost, ...unavailable }, 'm1', pricing);
    expect(priced).toMatchObject({
      coverage: 'estimated',
      providerReportedNanodollars: null,
      effectiveNanodollars: 2_700_000,
    });
  });

  it('keeps a non-USD receipt beside it as it always was: not a USD figure, noted', () => {
    const cost = attemptCost(
      {
        ...usage,
        cost: { currency: 'EUR', amountMicros: 990 },
        providerReportedCostNanodollars: null,
        providerReportedCostProvenance: 'receipt_not_usd',
      },
      'm2',
      pricing,
    );
    expect(cost).toMatchObject({ coverage: 'unpriced', providerReportedNanodollars: null });
    expect(cost.notes).toEqual([
      'currency_unsupported:EUR',
      'provider_cost_receipt_not_usd',
      'model_unpriced:m2',
    ]);
  });

  it('refuses a usage.cost amount, or a provider figure, that contradicts it', () => {
    expect(() =>
      attemptCost(
        { ...usage, cost: { currency: 'USD', amountMicros: 5 }, providerReportedCostNanodollars: null },
        'm1',
        pricing,
      ),
    ).toThrow(evalbookError('paperclip_evalbook_cost_inconsistent'));
    expect(() =>
      attemptCost(
        {
          ...withoutReceipt,
          providerReportedCostNanodollars: 0,
          providerReportedCostProvenance: 'unavailable',
        },
        'm1',
        pricing,
      ),
    ).toThrow(evalbookError('paperclip_evalbook_cost_inconsistent'));
  });
});
