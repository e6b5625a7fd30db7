// The one place Evals normalises cost: every figure becomes integer nanodollars (USD × 1e9) with its
// provenance. A missing provider figure is null, never 0; an estimate names its pricingVersion.
//
// Bound: figures are JavaScript safe integers, so at most Number.MAX_SAFE_INTEGER nanodollars
// (2^53 − 1 ≈ $9,007,199.25). Anything larger is refused with a CostRangeError rather than rounded.
// Arithmetic inside is BigInt; only the bounded result is turned back into a number.

/** Where a figure came from. */
export type CostProvenance = 'provider_reported' | 'estimated';

/** How an attempt is priced: by the provider, by our estimate only, or not at all. */
export type CostCoverage = 'provider_reported' | 'estimated' | 'unpriced';

/** USD per million tokens, per token kind, for one model. */
export interface ModelPrice {
  readonly inputPerMillionUsd: number;
  readonly outputPerMillionUsd: number;
}

export interface PricingTable {
  readonly version: string;
  readonly models: Readonly<Record<string, ModelPrice>>;
}

export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** The bundle's `usage.cost` (null: the provider reported no cost). */
export interface ReportedCost {
  readonly currency: string;
  readonly amountMicros: number;
}

export interface AttemptCost {
  /** Provider-reported figure (bundle amountMicros × 1000); null when there is none. */
  readonly providerReportedNanodollars: number | null;
  /** Our estimate from the pricing table; null when the model is not priced. */
  readonly estimatedNanodollars: number | null;
  /** The pricing table version behind the estimate (null without an estimate). */
  readonly pricingVersion: string | null;
  readonly coverage: CostCoverage;
  /** The figure reports use: provider-reported when present, else the estimate, else null. */
  readonly effectiveNanodollars: number | null;
  /** Why a figure is missing (e.g. `provider_cost_null`, `currency_unsupported:EUR`, `model_unpriced:m`). */
  readonly notes: readonly string[];
}

export const MAX_NANODOLLARS = Number.MAX_SAFE_INTEGER;
const MAX_BIG = BigInt(MAX_NANODOLLARS);
/** Prices carry at most this many decimal places (micro-USD per million tokens). */
export const PRICE_DECIMALS = 6;

export class CostRangeError extends RangeError {
  override readonly name = 'CostRangeError';
}

function bounded(value: bigint, what: string): number {
  if (value < 0n) throw new CostRangeError(`${what} is negative (${value} nanodollars)`);
  if (value > MAX_BIG)
    throw new CostRangeError(`${what} is ${value} nanodollars, above the bound ${MAX_NANODOLLARS} (≈ $9.0M)`);
  return Number(value);
}

/** Provider micros → nanodollars (× 1000, exact). Refuses non-integers, negatives and > the bound. */
export function microsToNanodollars(amountMicros: number): number {
  if (!Number.isSafeInteger(amountMicros))
    throw new CostRangeError(`amountMicros ${amountMicros} is not a safe integer`);
  return bounded(BigInt(amountMicros) * 1000n, 'provider-reported cost');
}

/**
 * A decimal USD price → integer micro-USD (per million tokens), exactly. A price with more than
 * PRICE_DECIMALS decimal places, negative, or not finite, is refused (returns null).
 */
export function priceToMicros(usd: number): bigint | null {
  if (!Number.isFinite(usd) || usd < 0) return null;
  const text = String(usd);
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (match === null) return null; // exponent notation: more precision than we accept
  const fraction = match[2] ?? '';
  if (fraction.length > PRICE_DECIMALS) return null;
  return BigInt(match[1] ?? '0') * 1_000_000n + BigInt(fraction.padEnd(PRICE_DECIMALS, '0'));
}

/**
 * Estimated cost in nanodollars: Σ tokens × price(µUSD per Mtok) / 1000, summed exactly over both
 * token kinds and rounded ONCE, half up (…500 picodollars and above round up). Null when the model
 * is not in the table.
 */
export function estimateNanodollars(usage: TokenUsage, price: ModelPrice): number {
  const input = priceToMicros(price.inputPerMillionUsd);
  const output = priceToMicros(price.outputPerMillionUsd);
  if (input === null || output === null)
    throw new CostRangeError(
      `a price has more than ${PRICE_DECIMALS} decimals or is not a non-negative number`,
    );
  for (const tokens of [usage.inputTokens, usage.outputTokens])
    if (!Number.isSafeInteger(tokens) || tokens < 0)
      throw new CostRangeError(`token count ${tokens} is not a non-negative safe integer`);
  const picodollars = BigInt(usage.inputTokens) * input + BigInt(usage.outputTokens) * output;
  return bounded((picodollars + 500n) / 1000n, 'estimated cost');
}

/** Normalises one attempt's cost. `model` is the config's model (undefined: not known). */
export function attemptCost(
  reported: ReportedCost | null,
  usage: TokenUsage,
  model: string | undefined,
  pricing: PricingTable | undefined,
): AttemptCost {
  const notes: string[] = [];
  let provider: number | null = null;
  if (reported === null) notes.push('provider_cost_null');
  else if (reported.currency !== 'USD') notes.push(`currency_unsupported:${reported.currency}`);
  else provider = microsToNanodollars(reported.amountMicros);

  let estimated: number | null = null;
  let pricingVersion: string | null = null;
  if (model === undefined) notes.push('model_unknown');
  else if (pricing === undefined) notes.push('pricing_absent');
  else {
    const price = Object.hasOwn(pricing.models, model) ? pricing.models[model] : undefined;
    if (price === undefined) notes.push(`model_unpriced:${model}`);
    else {
      estimated = estimateNanodollars(usage, price);
      pricingVersion = pricing.version;
    }
  }
  const coverage: CostCoverage =
    provider !== null ? 'provider_reported' : estimated !== null ? 'estimated' : 'unpriced';
  return {
    providerReportedNanodollars: provider,
    estimatedNanodollars: estimated,
    pricingVersion,
    coverage,
    effectiveNanodollars: provider ?? estimated,
    notes,
  };
}

export interface CoverageSummary {
  readonly attempts: number;
  readonly providerReported: number;
  readonly estimated: number;
  readonly unpriced: number;
  readonly priced: number;
  /** Sum of the effective figures of priced attempts (unpriced ones are not zero: they are left out). */
  readonly pricedTotalNanodollars: number;
  /** "12 of 40 attempts priced (10 provider-reported, 2 estimated)". */
  readonly text: string;
}

/** Aggregate coverage of many attempts. The total refuses to pass the safe-integer bound. */
export function costCoverage(
  costs: Iterable<Pick<AttemptCost, 'coverage' | 'effectiveNanodollars'>>,
): CoverageSummary {
  let attempts = 0;
  let providerReported = 0;
  let estimated = 0;
  let total = 0n;
  for (const cost of costs) {
    attempts++;
    if (cost.coverage === 'provider_reported') providerReported++;
    else if (cost.coverage === 'estimated') estimated++;
    if (cost.effectiveNanodollars !== null) total += BigInt(cost.effectiveNanodollars);
  }
  const priced = providerReported + estimated;
  return {
    attempts,
    providerReported,
    estimated,
    unpriced: attempts - priced,
    priced,
    pricedTotalNanodollars: bounded(total, 'total cost'),
    text: `${priced} of ${attempts} attempt${attempts === 1 ? '' : 's'} priced (${providerReported} provider-reported, ${estimated} estimated)`,
  };
}

/** Nanodollars as a USD string with 9 decimals, exact (no float): 1234 → "0.000001234". */
export function formatUsd(nanodollars: number | null): string {
  if (nanodollars === null) return 'unpriced';
  const text = BigInt(nanodollars).toString().padStart(10, '0');
  return `$${text.slice(0, -9)}.${text.slice(-9)}`;
}
