// The eval-session cost figures: what an attempt cost, in integer nanodollars (USD × 1e9), each with
// where it came from. Added to the bundle's `usage` next to the provider receipt `usage.cost`
// (micros), which stays as the driver reported it. A missing receipt is null, never 0.
import type { NativeUsage } from '../runner-contracts.js';

/**
 * A USD price list the runner estimates cost with: the attempt's figure when the provider sends no
 * receipt, kept beside the receipt when it does.
 */
export interface EstimatePricing {
  /** Names the price list; recorded with the estimate so nobody reprices it later. */
  readonly version: string;
  readonly inputMicrosPerMillionTokens: number;
  readonly outputMicrosPerMillionTokens: number;
}

/**
 * `provider_reported`: a USD receipt · `estimated`: no receipt, the runner's estimate ·
 * `unpriced`: neither. (`legacy_ledger_and_estimate` is for runners that keep a legacy ledger;
 * this one keeps none.)
 */
export type EvalSessionCostCoverage = 'provider_reported' | 'estimated' | 'unpriced';

/**
 * `provider_receipt`: the USD receipt in usage.cost · `unavailable`: the provider sent none ·
 * `receipt_not_usd`: a receipt in another currency (no exchange rate here, so no nanodollar figure).
 */
export type ProviderCostProvenance = 'provider_receipt' | 'unavailable' | 'receipt_not_usd';

export interface EvalSessionCost {
  /** The USD receipt × 1000; null when there is no receipt in USD. */
  readonly providerReportedCostNanodollars: number | null;
  readonly providerReportedCostProvenance: ProviderCostProvenance;
  /** From the request's estimatePricing, rounded half up; null without one. */
  readonly estimatedCostNanodollars: number | null;
  /** The estimate's price list; present exactly when there is an estimate. */
  readonly pricingVersion?: string;
  readonly costCoverage: EvalSessionCostCoverage;
  /** This runner keeps no legacy ledger: always null (unknown, not zero). */
  readonly legacyLedgerCostNanodollars: null;
}

/** The cost figures of a session's usage, given the price list (if any) to estimate with. */
export function evalSessionCost(usage: NativeUsage, estimate: EstimatePricing | undefined): EvalSessionCost {
  const receipt = usage.cost;
  const provider =
    receipt !== null && receipt.currency === 'USD'
      ? boundedNanodollars(BigInt(receipt.amountMicros) * 1000n, 'provider-reported cost')
      : null;
  const provenance: ProviderCostProvenance =
    receipt === null ? 'unavailable' : provider === null ? 'receipt_not_usd' : 'provider_receipt';
  const estimated =
    estimate === undefined ? null : estimateNanodollars(usage.inputTokens, usage.outputTokens, estimate);
  return {
    providerReportedCostNanodollars: provider,
    providerReportedCostProvenance: provenance,
    estimatedCostNanodollars: estimated,
    ...(estimate === undefined ? {} : { pricingVersion: estimate.version }),
    costCoverage: provider !== null ? 'provider_reported' : estimated !== null ? 'estimated' : 'unpriced',
    legacyLedgerCostNanodollars: null,
  };
}

/**
 * tokens × µUSD per million tokens = picodollars; ÷ 1000, rounded once, half up. Exact (BigInt):
 * 1 input token at 1 µUSD/Mtok is 1 picodollar, which rounds to 0 nanodollars; 500 round to 1.
 */
export function estimateNanodollars(
  inputTokens: number,
  outputTokens: number,
  pricing: Pick<EstimatePricing, 'inputMicrosPerMillionTokens' | 'outputMicrosPerMillionTokens'>,
): number {
  const picodollars =
    BigInt(inputTokens) * BigInt(pricing.inputMicrosPerMillionTokens) +
    BigInt(outputTokens) * BigInt(pricing.outputMicrosPerMillionTokens);
  return boundedNanodollars((picodollars + 500n) / 1000n, 'estimated cost');
}

function boundedNanodollars(nanodollars: bigint, what: string): number {
  if (nanodollars > BigInt(Number.MAX_SAFE_INTEGER))
    throw new RangeError(`${what} ${nanodollars} nanodollars is above the safe-integer bound`);
  return Number(nanodollars);
}
