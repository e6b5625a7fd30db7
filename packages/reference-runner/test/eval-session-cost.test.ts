// The eval-session cost figures in the bundle's usage: nanodollars with provenance, consistent with
// the receipt (usage.cost, left as the driver reported it), and refused by the package's own parser
// when they disagree. A missing receipt is null and "unavailable", never 0.
import './support/protocol.js';

import { describe, expect, it } from 'vitest';

import { parseNativeExecution as evalsParseNativeExecution } from '../../contract/src/index.ts';
import { parsePaperclipNativeExecution } from '../src/evals/index.js';
import { estimateNanodollars, evalSessionCost } from '../src/session/eval-session-cost.js';
import { runEvalSession } from '../src/session/eval-session.js';
import { evalSessionRequest as request } from './support/requests.js';

import type { PaperclipNativeExecutionV1 } from '../src/evals/index.js';
import type { NativeAttemptInput } from '../src/session/eval-session.js';

const BINARY = `sha256:${'c'.repeat(64)}`;
const ESTIMATE = {
  version: 'demo-2026-11',
  inputMicrosPerMillionTokens: 2_500_000,
  outputMicrosPerMillionTokens: 10_000_000,
};

const usageOf = async (
  overrides: Partial<NativeAttemptInput>,
): Promise<PaperclipNativeExecutionV1['usage']> => {
  const { bundle, bundleText } = await runEvalSession(
    { ...request('succeed'), ...overrides },
    { binarySha256: BINARY },
  );
  expect(() => evalsParseNativeExecution(bundleText)).not.toThrow();
  return bundle.usage;
};

describe('when the provider reports a receipt', () => {
  it('states it in nanodollars (amountMicros × 1000) with provenance provider_receipt', async () => {
    const usage = await usageOf({});
    expect(usage.cost).toEqual({ currency: 'USD', amountMicros: expect.any(Number) as unknown });
    expect(usage).toMatchObject({
      providerReportedCostNanodollars: usage.cost!.amountMicros * 1000,
      providerReportedCostProvenance: 'provider_receipt',
      estimatedCostNanodollars: null,
      costCoverage: 'provider_reported',
      legacyLedgerCostNanodollars: null,
    });
    expect(usage).not.toHaveProperty('pricingVersion');
  });

  it('keeps an estimate the request asks for beside the receipt, still provider_reported', async () => {
    const usage = await usageOf({ estimatePricing: ESTIMATE });
    expect(usage).toMatchObject({
      providerReportedCostProvenance: 'provider_receipt',
      estimatedCostNanodollars: estimateNanodollars(usage.inputTokens, usage.outputTokens, ESTIMATE),
      pricingVersion: ESTIMATE.version,
      costCoverage: 'provider_reported',
    });
  });
});

describe('when the provider reports no cost (pricing: null)', () => {
  it('is unpriced: null figures (never 0), provenance unavailable, no pricingVersion', async () => {
    const usage = await usageOf({ pricing: null });
    expect(usage).toMatchObject({
      cost: null,
      providerReportedCostNanodollars: null,
      providerReportedCostProvenance: 'unavailable',
      estimatedCostNanodollars: null,
      costCoverage: 'unpriced',
      legacyLedgerCostNanodollars: null,
    });
    expect(usage).not.toHaveProperty('pricingVersion');
  });

  it('is estimated from estimatePricing, rounded half up, naming the price list', async () => {
    const usage = await usageOf({ pricing: null, estimatePricing: ESTIMATE });
    const picodollars = usage.inputTokens * 2_500_000 + usage.outputTokens * 10_000_000;
    expect(usage).toMatchObject({
      cost: null,
      providerReportedCostNanodollars: null,
      providerReportedCostProvenance: 'unavailable',
      estimatedCostNanodollars: Math.floor((picodollars + 500) / 1000),
      pricingVersion: ESTIMATE.version,
      costCoverage: 'estimated',
    });
    expect(Number.isSafeInteger(usage.estimatedCostNanodollars)).toBe(true);
  });

  it('is the same for the unpriced behaviour, whose provider sends no receipt', async () => {
    const usage = await usageOf({ behaviour: 'unpriced' });
    expect(usage).toMatchObject({
      providerReportedCostNanodollars: null,
      providerReportedCostProvenance: 'unavailable',
      costCoverage: 'unpriced',
    });
  });
});

describe('estimateNanodollars', () => {
  const price = { inputMicrosPerMillionTokens: 1, outputMicrosPerMillionTokens: 0 };

  it('rounds once, half up: 499 picodollars are 0 nanodollars, 500 are 1', () => {
    expect(estimateNanodollars(499, 0, price)).toBe(0);
    expect(estimateNanodollars(500, 0, price)).toBe(1);
    expect(estimateNanodollars(1499, 0, price)).toBe(1);
    expect(estimateNanodollars(1500, 0, price)).toBe(2);
  });

  it('sums both token kinds before rounding', () => {
    expect(
      estimateNanodollars(250, 250, { inputMicrosPerMillionTokens: 1, outputMicrosPerMillionTokens: 1 }),
    ).toBe(1);
  });

  it('throws a RangeError (not a rounded number) above the safe-integer bound', () => {
    expect(() =>
      estimateNanodollars(Number.MAX_SAFE_INTEGER, 0, {
        inputMicrosPerMillionTokens: 1_000_000,
        outputMicrosPerMillionTokens: 0,
      }),
    ).toThrow(RangeError);
  });
});

describe('evalSessionCost', () => {
  const usage = {
    inputTokens: 1000,
    outputTokens: 100,
    totalTokens: 1100,
    requestCount: 1,
    durationMs: 10,
  };

  it('gives no nanodollar figure for a receipt in another currency (no exchange rate here)', () => {
    expect(evalSessionCost({ ...usage, cost: { currency: 'EUR', amountMicros: 4500 } }, undefined)).toEqual({
      providerReportedCostNanodollars: null,
      providerReportedCostProvenance: 'receipt_not_usd',
      estimatedCostNanodollars: null,
      costCoverage: 'unpriced',
      legacyLedgerCostNanodollars: null,
    });
  });

  it('turns a USD receipt into nanodollars exactly', () => {
    expect(
      evalSessionCost({ ...usage, cost: { currency: 'USD', amountMicros: 4500 } }, undefined),
    ).toMatchObject({ providerReportedCostNanodollars: 4_500_000, costCoverage: 'provider_reported' });
  });
});

describe("the package's parser", () => {
  it('refuses cost figures that disagree with the receipt or with each other, listing each', async () => {
    const { bundle } = await runEvalSession(request('succeed'), { binarySha256: BINARY });
    const broken = {
      ...bundle,
      usage: {
        ...bundle.usage,
        providerReportedCostNanodollars: bundle.usage.cost!.amountMicros * 1000 + 1,
        estimatedCostNanodollars: 5,
        costCoverage: 'estimated',
      },
    };
    expect(() => parsePaperclipNativeExecution(broken)).toThrow(
      expect.objectContaining({
        code: 'paperclip_native_execution_invalid',
        issues: [
          expect.objectContaining({ code: 'usage_cost_receipt_mismatch' }),
          expect.objectContaining({ code: 'usage_cost_pricing_version_missing' }),
          expect.objectContaining({ code: 'usage_cost_coverage_mismatch', path: '/usage/costCoverage' }),
        ] as unknown,
      }),
    );
  });
});
