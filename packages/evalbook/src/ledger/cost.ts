// The one place Evals normalises cost: every figure becomes integer nanodollars (USD × 1e9) with its
// provenance. A missing provider figure is null, never 0; an estimate names its pricingVersion.
//
// Bound: figures are JavaScript safe integers, so at most Number.MAX_SAFE_INTEGER nanodollars
// (2^53 − 1 ≈ $9,007,199.25). Anything larger is refused (an EvalbookError,
// paperclip_evalbook_cost_out_of_range) rather than rounded. A coverage total is a sum of such
// figures, never refused: past the bound it is the nearest double (CoverageTally.summary).
// Arithmetic inside is BigInt; only the result is turned back into a number.

import { EvalbookError } from '../errors.js';

/** How an attempt is priced. A legacy ledger amount alone does not price an attempt. */
export type CostCoverage = 'provider_reported' | 'estimated' | 'legacy_ledger_and_estimate' | 'unpriced';

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

/** Everything a bundle's `usage` may say about cost: the receipt in micros and the eval-session figures. */
export interface CostInputs extends TokenUsage {
  readonly cost: ReportedCost | null;
  readonly providerReportedCostNanodollars?: number | null;
  readonly providerReportedCostProvenance?: string;
  readonly estimatedCostNanodollars?: number | null;
  readonly pricingVersion?: string;
  readonly costCoverage?: CostCoverage;
  readonly legacyLedgerCostNanodollars?: number | null;
}

export interface AttemptCost {
  /** The provider's receipt in nanodollars; null when there is none. */
  readonly providerReportedNanodollars: number | null;
  /** Where the receipt came from: `usage.cost` (micros × 1000) or the runner's own provenance label. */
  readonly providerReportedProvenance: string | null;
  /** A token-price estimate; null when nobody could price the model. */
  readonly estimatedNanodollars: number | null;
  /** `runner`: the runner's pinned estimate (never repriced) · `pricing_table`: the environment's. */
  readonly estimateSource: 'runner' | 'pricing_table' | null;
  /** The price list behind the estimate (null without an estimate). */
  readonly pricingVersion: string | null;
  /** An unverified ledger amount: kept apart, never added to the estimate, a zero proves nothing. */
  readonly legacyLedgerNanodollars: number | null;
  readonly coverage: CostCoverage;
  /** The figure reports add up: provider-reported when present, else the estimate, else null. */
  readonly effectiveNanodollars: number | null;
  /** Why a figure is missing (e.g. `provider_cost_null`, `currency_unsupported:EUR`, `model_unpriced:m`). */
  readonly notes: readonly string[];
}

export const MAX_NANODOLLARS = Number.MAX_SAFE_INTEGER;
const MAX_BIG = BigInt(MAX_NANODOLLARS);
/** Prices carry at most this many decimal places (micro-USD per million tokens). */
export const PRICE_DECIMALS = 6;

/** A figure or price that is negative, not an integer, or past the safe bound. */
function costOutOfRange(message: string): EvalbookError {
  return new EvalbookError('paperclip_evalbook_cost_out_of_range', message);
}

function bounded(value: bigint, what: string): number {
  if (value < 0n) throw costOutOfRange(`${what} is negative (${value} nanodollars)`);
  if (value > MAX_BIG)
    throw costOutOfRange(`${what} is ${value} nanodollars, above the bound ${MAX_NANODOLLARS} (≈ $9.0M)`);
  return Number(value);
}

/** Provider micros → nanodollars (× 1000, exact). Refuses non-integers, negatives and > the bound. */
export function microsToNanodollars(amountMicros: number): number {
  if (!Number.isSafeInteger(amountMicros))
    throw costOutOfRange(`amountMicros ${amountMicros} is not a safe integer`);
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
    throw costOutOfRange(`a price has more than ${PRICE_DECIMALS} decimals or is not a non-negative number`);
  for (const tokens of [usage.inputTokens, usage.outputTokens])
    if (!Number.isSafeInteger(tokens) || tokens < 0)
      throw costOutOfRange(`token count ${tokens} is not a non-negative safe integer`);
  const picodollars = BigInt(usage.inputTokens) * input + BigInt(usage.outputTokens) * output;
  return bounded((picodollars + 500n) / 1000n, 'estimated cost');
}

/**
 * A cost figure the bundle states inconsistently (the attempt is refused, never guessed): one issue,
 * `cost_figures_inconsistent`, at the figure's JSON pointer in the bundle, with expected and received.
 */
function costInconsistent(
  message: string,
  path: string,
  expected: unknown,
  received: unknown,
): EvalbookError {
  return new EvalbookError('paperclip_evalbook_cost_inconsistent', message, [
    { code: 'cost_figures_inconsistent', message, path, expected, received },
  ]);
}

/**
 * Normalises one attempt's cost from its bundle `usage` and the config's model (undefined: not known).
 * Throws EvalbookError paperclip_evalbook_cost_inconsistent when the receipt and the eval-session
 * figures disagree, and paperclip_evalbook_cost_out_of_range when a figure passes the safe bound.
 */
export function attemptCost(
  given: CostInputs,
  model: string | undefined,
  pricing: PricingTable | undefined,
): AttemptCost {
  const usage = legacyFigureRead(given);
  const notes: string[] = [];
  let provider: number | null = null;
  let providerProvenance: string | null = null;
  const sessionProvider = usage.providerReportedCostNanodollars;
  if (providerCostUnavailable(usage)) {
    // The runner says the provider reported no cost: a usage.cost of 0 beside it is a placeholder,
    // never a provider-reported $0; a figure beside it contradicts it.
    if (sessionProvider !== undefined && sessionProvider !== null)
      throw costInconsistent(
        'the provider figure is labelled unavailable, yet it states an amount',
        '/usage/providerReportedCostNanodollars',
        null,
        sessionProvider,
      );
    const receipt = usage.cost;
    if (receipt?.currency === 'USD' && receipt.amountMicros !== 0)
      throw costInconsistent(
        'the runner states no provider-reported cost (providerReportedCostNanodollars: null), yet usage.cost holds a USD amount',
        '/usage/cost/amountMicros',
        0,
        receipt.amountMicros,
      );
    notes.push(
      receipt === null
        ? 'provider_cost_null'
        : receipt.currency === 'USD'
          ? 'usage_cost_zero_not_a_receipt'
          : `currency_unsupported:${receipt.currency}`,
    );
    if (sessionProvider === null)
      notes.push(`provider_cost_${usage.providerReportedCostProvenance ?? 'null'}`);
  } else if (usage.cost === null) notes.push('provider_cost_null');
  else if (usage.cost.currency !== 'USD') notes.push(`currency_unsupported:${usage.cost.currency}`);
  else {
    provider = microsToNanodollars(usage.cost.amountMicros);
    providerProvenance = 'usage.cost';
  }
  if (sessionProvider !== undefined && sessionProvider !== null) {
    if (provider !== null && provider !== sessionProvider)
      throw costInconsistent(
        'the eval-session provider figure disagrees with usage.cost',
        '/usage/providerReportedCostNanodollars',
        provider,
        sessionProvider,
      );
    provider = bounded(BigInt(sessionProvider), 'provider-reported cost');
    providerProvenance = usage.providerReportedCostProvenance ?? 'eval_session';
  }

  let estimated: number | null = null;
  let estimateSource: AttemptCost['estimateSource'] = null;
  let pricingVersion: string | null = null;
  const runnerEstimate = usage.estimatedCostNanodollars;
  if (runnerEstimate !== undefined && runnerEstimate !== null) {
    if (usage.pricingVersion === undefined)
      throw costInconsistent(
        'an estimate without the price list behind it cannot be trusted',
        '/usage/pricingVersion',
        'the pricingVersion of estimatedCostNanodollars',
        undefined,
      );
    estimated = bounded(BigInt(runnerEstimate), 'estimated cost');
    estimateSource = 'runner';
    pricingVersion = usage.pricingVersion;
  } else if (model === undefined) notes.push('model_unknown');
  else if (pricing === undefined) notes.push('pricing_absent');
  else {
    const price = Object.hasOwn(pricing.models, model) ? pricing.models[model] : undefined;
    if (price === undefined) notes.push(`model_unpriced:${model}`);
    else {
      estimated = estimateNanodollars(usage, price);
      estimateSource = 'pricing_table';
      pricingVersion = pricing.version;
    }
  }
  const legacy = usage.legacyLedgerCostNanodollars ?? null;
  const coverage: CostCoverage =
    provider !== null
      ? 'provider_reported'
      : estimated === null
        ? 'unpriced'
        : legacy === null
          ? 'estimated'
          : 'legacy_ledger_and_estimate';
  const declared = usage.costCoverage;
  const implied = runnerCoverage(usage);
  // Seed 001: a legacy ledger amount never prices an attempt, so a runner may call an estimate beside
  // one `estimated` (a direct eval-session) as well as `legacy_ledger_and_estimate` (older runners).
  const allowed: readonly CostCoverage[] =
    implied === 'legacy_ledger_and_estimate' ? ['legacy_ledger_and_estimate', 'estimated'] : [implied];
  if (declared !== undefined && !allowed.includes(declared))
    throw costInconsistent(
      "costCoverage disagrees with the runner's own cost figures",
      '/usage/costCoverage',
      implied,
      declared,
    );
  // The runner's word on an estimate beside a legacy amount stands: it is still no provider receipt.
  const stated: CostCoverage =
    declared === 'estimated' && coverage === 'legacy_ledger_and_estimate' && estimateSource === 'runner'
      ? 'estimated'
      : coverage;
  return {
    providerReportedNanodollars: provider,
    providerReportedProvenance: providerProvenance,
    estimatedNanodollars: estimated,
    estimateSource,
    pricingVersion,
    legacyLedgerNanodollars: legacy === null ? null : bounded(BigInt(legacy), 'legacy ledger cost'),
    coverage: stated,
    effectiveNanodollars: provider ?? estimated,
    notes,
  };
}

/** Upstream's provenance of a provider figure that is its runner's usage-ledger sum, not a receipt. */
export const LEGACY_LEDGER_PROVENANCE = 'legacy_runner_usage_ledger';

/**
 * The figures read by their provenance. Upstream's eval-session (before seed 001) puts its runner's
 * usage-ledger sum in `providerReportedCostNanodollars` with provenance `legacy_runner_usage_ledger`
 * and coverage `legacy_ledger_and_estimate` (its artifact's coverage has no `provider_reported`).
 * That ledger "fills absent cost with zero" and "is not provider billing" (upstream; seed 001): the
 * figure is the legacy ledger amount — kept, apart, never pricing the attempt, a zero never proof
 * of zero spend — and the attempt has no provider receipt (unknown, not $0). A stated
 * `legacyLedgerCostNanodollars` beside it must be the same amount.
 */
function legacyFigureRead(usage: CostInputs): CostInputs {
  const figure = usage.providerReportedCostNanodollars;
  if (
    usage.providerReportedCostProvenance !== LEGACY_LEDGER_PROVENANCE ||
    figure === undefined ||
    figure === null
  )
    return usage;
  const stated = usage.legacyLedgerCostNanodollars;
  if (stated !== undefined && stated !== null && stated !== figure)
    throw costInconsistent(
      `the usage-ledger amount is stated twice, as ${figure} (providerReportedCostNanodollars, provenance ${LEGACY_LEDGER_PROVENANCE}) and as ${stated} (legacyLedgerCostNanodollars) nanodollars`,
      '/usage/legacyLedgerCostNanodollars',
      figure,
      stated,
    );
  return { ...usage, providerReportedCostNanodollars: null, legacyLedgerCostNanodollars: figure };
}

/**
 * Whether the runner states that the provider reported no cost: `providerReportedCostNanodollars:
 * null`, or the provenance `unavailable`.
 */
function providerCostUnavailable(usage: CostInputs): boolean {
  return (
    usage.providerReportedCostNanodollars === null || usage.providerReportedCostProvenance === 'unavailable'
  );
}

/** The coverage the runner's own figures imply (before Evals adds an estimate from its pricing table). */
function runnerCoverage(usage: CostInputs): CostCoverage {
  const hasProvider =
    !providerCostUnavailable(usage) &&
    ((usage.providerReportedCostNanodollars ?? null) !== null ||
      (usage.cost !== null && usage.cost.currency === 'USD'));
  if (hasProvider) return 'provider_reported';
  if ((usage.estimatedCostNanodollars ?? null) === null) return 'unpriced';
  return (usage.legacyLedgerCostNanodollars ?? null) === null ? 'estimated' : 'legacy_ledger_and_estimate';
}

export interface CoverageSummary {
  readonly attempts: number;
  readonly providerReported: number;
  /** Priced by an estimate (including those that also carry a legacy ledger amount). */
  readonly estimated: number;
  readonly unpriced: number;
  readonly priced: number;
  /** Sum of the effective figures of priced attempts (unpriced ones are not zero: they are left out). */
  readonly pricedTotalNanodollars: number;
  /** Attempts carrying a legacy ledger amount, and that amount's own total (never added to the above). */
  readonly legacyLedger: number;
  readonly legacyLedgerTotalNanodollars: number;
  /** "12 of 40 attempts priced (10 provider-reported, 2 estimated)". */
  readonly text: string;
}

type CoverageInput = Pick<AttemptCost, 'coverage' | 'effectiveNanodollars' | 'legacyLedgerNanodollars'>;

/** Coverage counted one attempt at a time, so a report can tally a store without holding it. */
export class CoverageTally {
  private attempts = 0;
  private providerReported = 0;
  private estimated = 0;
  private legacyLedger = 0;
  private total = 0n;
  private legacyTotal = 0n;

  add(cost: CoverageInput): void {
    this.attempts++;
    if (cost.coverage === 'provider_reported') this.providerReported++;
    else if (cost.coverage !== 'unpriced') this.estimated++;
    if (cost.effectiveNanodollars !== null) this.total += BigInt(cost.effectiveNanodollars);
    if (cost.legacyLedgerNanodollars !== null) {
      this.legacyLedger++;
      this.legacyTotal += BigInt(cost.legacyLedgerNanodollars);
    }
  }

  /** Adds another tally's attempts to this one. */
  merge(other: CoverageTally): void {
    this.attempts += other.attempts;
    this.providerReported += other.providerReported;
    this.estimated += other.estimated;
    this.legacyLedger += other.legacyLedger;
    this.total += other.total;
    this.legacyTotal += other.legacyTotal;
  }

  /**
   * The totals so far. Each figure in them is bounded, but a sum of valid figures is not refused
   * (that failed an ingest after its write, and every report of the store): exact up to the bound,
   * past it the nearest double (spacing 2 ns at 2^54, far below the cent a total is shown to), and
   * the text says so.
   */
  summary(): CoverageSummary {
    const { attempts, providerReported, estimated } = this;
    const priced = providerReported + estimated;
    const past = this.total > MAX_BIG || this.legacyTotal > MAX_BIG;
    return {
      attempts,
      providerReported,
      estimated,
      unpriced: attempts - priced,
      priced,
      pricedTotalNanodollars: Number(this.total),
      legacyLedger: this.legacyLedger,
      legacyLedgerTotalNanodollars: Number(this.legacyTotal),
      text: `${priced} of ${attempts} attempt${attempts === 1 ? '' : 's'} priced (${providerReported} provider-reported, ${estimated} estimated)${past ? `; a total is past 2^53 − 1 nanodollars (≈ $9.0M): exact to the cent, not to the nanodollar` : ''}`,
    };
  }
}

/** Aggregate coverage of many attempts. */
export function costCoverage(costs: Iterable<CoverageInput>): CoverageSummary {
  const tally = new CoverageTally();
  for (const cost of costs) tally.add(cost);
  return tally.summary();
}

/** A spending limit in USD (as the environment states it) and what was spent against it. */
export interface BudgetCheck {
  readonly limitNanodollars: number;
  /** Σ effective figures (provider-reported, else estimate) of priced attempts. */
  readonly spentNanodollars: number;
  /** Σ legacy ledger amounts: a separate meter, never added to the one above. */
  readonly legacyLedgerNanodollars: number;
  /** Attempts whose spend is unknown: the budget cannot be shown to hold for them. */
  readonly unpriced: number;
  /** `exceeded` when either meter passes the limit; `unproven` when neither does but some spend is unknown. */
  readonly status: 'within' | 'exceeded' | 'unproven';
}

/**
 * The budget stop: the estimate (or receipt) and the legacy ledger amount each count against the
 * limit, as two meters — either one passing it stops, and neither is added to the other.
 */
export function checkBudget(limitUsd: number, coverage: CoverageSummary): BudgetCheck {
  const limitMicros = priceToMicros(limitUsd);
  if (limitMicros === null)
    throw costOutOfRange(`budget ${limitUsd} is not a non-negative USD amount with at most 6 decimals`);
  const limitNanodollars = bounded(limitMicros * 1000n, 'budget');
  const exceeded =
    coverage.pricedTotalNanodollars > limitNanodollars ||
    coverage.legacyLedgerTotalNanodollars > limitNanodollars;
  return {
    limitNanodollars,
    spentNanodollars: coverage.pricedTotalNanodollars,
    legacyLedgerNanodollars: coverage.legacyLedgerTotalNanodollars,
    unpriced: coverage.unpriced,
    status: exceeded ? 'exceeded' : coverage.unpriced > 0 ? 'unproven' : 'within',
  };
}

/** Nanodollars as a USD string with 9 decimals, exact (no float): 1234 → "0.000001234". */
export function formatUsd(nanodollars: number | null): string {
  if (nanodollars === null) return 'unpriced';
  const text = BigInt(nanodollars).toString().padStart(10, '0');
  return `$${text.slice(0, -9)}.${text.slice(-9)}`;
}

/**
 * Nanodollars as a person reads money in a text report (Markdown): from $1 up, cents with thousands
 * separators ("$1,234.57"); below $1, three significant digits ("$0.00375", "$0.123"); "$0.00" for
 * nothing; "unpriced" for an unknown figure (never $0). Rounded half up, exactly (no float on the
 * figure). JSON keeps the integer nanodollars and CSV formatUsd's nine decimals.
 */
export function displayUsd(nanodollars: number | null): string {
  if (nanodollars === null) return 'unpriced';
  const value = BigInt(Math.round(nanodollars));
  if (value < 0n) return `−${displayUsd(Number(-value))}`;
  if (value === 0n) return '$0.00';
  const roundTo = (step: bigint): bigint => ((value + step / 2n) / step) * step;
  if (value < 1_000_000_000n) {
    const digits = value.toString().length;
    const rounded = digits <= 3 ? value : roundTo(10n ** BigInt(digits - 3));
    if (rounded < 1_000_000_000n) {
      const fraction = rounded.toString().padStart(9, '0').replace(/0+$/, '');
      return `$0.${fraction.padEnd(2, '0')}`;
    }
  }
  const cents = roundTo(10_000_000n) / 10_000_000n;
  const dollars = (cents / 100n).toString().replace(/\B(?=(\d{3})+$)/g, ',');
  return `$${dollars}.${(cents % 100n).toString().padStart(2, '0')}`;
}
