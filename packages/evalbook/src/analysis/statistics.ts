// The Evalbook's statistics: pass-rate intervals, pass@k and pass^k, a case-clustered bootstrap for a
// config's solve rate, and the paired comparison of two configs (McNemar exact, paired bootstrap).
//
// Pure functions: no I/O, no clock. Randomness comes only from a mulberry32 stream seeded by the
// caller's `seed` (DEFAULT_BOOTSTRAP_SEED when omitted), so the same inputs always give the same
// interval. Bad inputs throw EvalbookError paperclip_evalbook_statistics_out_of_range naming the
// argument; no result is NaN.
// "No data" is never a guess: the rate or difference is null and the interval spans every possible value.

import { EvalbookError } from '../errors.js';
import { mulberry32 } from './random.js';

import type { Random } from './random.js';

/** Φ⁻¹(0.975): the two-sided 95% normal quantile. */
export const Z_95 = 1.959963984540054;
export const DEFAULT_BOOTSTRAP_RESAMPLES = 2000;
/** Any fixed value would do; this one is arbitrary. Changing it changes every default interval. */
export const DEFAULT_BOOTSTRAP_SEED = 20_211_007;
export const DEFAULT_CONFIDENCE = 0.95;

/** Arguments outside a statistic's domain: a caller's bug, named by the argument. */
export function statisticsOutOfRange(message: string): EvalbookError {
  return new EvalbookError('paperclip_evalbook_statistics_out_of_range', message);
}

/** A proportion with its interval. `rate` is null when there were no trials; then [lo, hi] = [0, 1]. */
export interface RateInterval {
  readonly rate: number | null;
  readonly lo: number;
  readonly hi: number;
}

/** One case's attempts for one config. */
export interface Cluster {
  readonly successes: number;
  readonly trials: number;
}

/** One shared case: its solve rate (in [0, 1]) under config A and under config B. */
export interface RatePair {
  readonly a: number;
  readonly b: number;
}

export interface BootstrapOptions {
  /** Bootstrap resamples (default 2000). */
  readonly resamples?: number;
  /** Seed of the mulberry32 stream (default DEFAULT_BOOTSTRAP_SEED); only its low 32 bits matter. */
  readonly seed?: number;
  /** Two-sided coverage of the percentile interval, in (0, 1) (default 0.95). */
  readonly confidence?: number;
}

/** Mean of b − a over the shared cases. `difference` is null when there are none; then [lo, hi] = [−1, 1]. */
export interface DifferenceInterval {
  readonly difference: number | null;
  readonly lo: number;
  readonly hi: number;
}

/**
 * Wilson score interval for `successes` out of `trials` (Wilson 1927; Newcombe 1998, method 3):
 *   (2s + z² ∓ z·√(z² + 4s(n − s)/n)) / (2(n + z²)).
 * Both ends are exactly 0 at s = 0 and exactly 1 at s = n. trials = 0 gives { rate: null, lo: 0, hi: 1 }:
 * the formula's limit as n → 0, and the honest "anything is possible". `z` > 0 (default Φ⁻¹(0.975)).
 */
export function wilsonInterval(successes: number, trials: number, z: number = Z_95): RateInterval {
  checkCount('trials', trials);
  checkCount('successes', successes, trials);
  if (!(Number.isFinite(z) && z > 0)) throw statisticsOutOfRange(`z must be finite and > 0, got ${z}`);
  if (trials === 0) return { rate: null, lo: 0, hi: 1 };
  const z2 = z * z;
  const centre = 2 * successes + z2;
  const spread = z * Math.sqrt(z2 + (4 * successes * (trials - successes)) / trials);
  const denominator = 2 * (trials + z2);
  return {
    rate: successes / trials,
    lo: successes === 0 ? 0 : Math.max(0, (centre - spread) / denominator),
    hi: successes === trials ? 1 : Math.min(1, (centre + spread) / denominator),
  };
}

/**
 * pass@k, the unbiased estimator of "at least one of k attempts passes" from n attempts of which c
 * passed (Chen et al. 2021): 1 − C(n − c, k)/C(n, k). The ratio is a product of min(k, c) factors, never a
 * binomial: ∏_{j<k} (n − c − j)/(n − j) = ∏_{n−c<i≤n} (1 − k/i). Needs integers 0 ≤ c ≤ n and 1 ≤ k ≤ n.
 */
export function passAtK(n: number, c: number, k: number): number {
  checkPassK(n, c, k);
  if (c === 0) return 0;
  if (n - c < k) return 1;
  let allFail = 1;
  if (k <= c) for (let j = 0; j < k; j++) allFail *= (n - c - j) / (n - j);
  else for (let i = n - c + 1; i <= n; i++) allFail *= 1 - k / i;
  return 1 - allFail;
}

/**
 * pass^k: the probability that k attempts drawn without replacement from the n observed (c passing) all
 * pass, C(c, k)/C(n, k) (the unbiased estimator of p^k used by τ-bench). Computed as a product of
 * min(k, n − c) factors: ∏_{j<k} (c − j)/(n − j) = ∏_{c<i≤n} (1 − k/i). Same input rules as passAtK.
 */
export function passHatK(n: number, c: number, k: number): number {
  checkPassK(n, c, k);
  if (c < k) return 0;
  if (c === n) return 1;
  let allPass = 1;
  if (k <= n - c) for (let j = 0; j < k; j++) allPass *= (c - j) / (n - j);
  else for (let i = c + 1; i <= n; i++) allPass *= 1 - k / i;
  return allPass;
}

/**
 * Exact two-sided McNemar test on the discordant pairs: b cases only A solved, c only B solved.
 *   p = min(1, 2·P(X ≤ min(b, c))), X ~ Binomial(b + c, 1/2);   b + c = 0 gives p = 1.
 * The tail is summed relative to its largest term, C(n, m)·2^-n, with ratio recurrence
 * C(n, i)/C(n, i + 1) = (i + 1)/(n − i) and log C(n, m) accumulated as a sum of logs: no overflow, no
 * underflow until p itself is below ~1e-308 (then 0). O(min(b, c)) time; stable far beyond b + c = 10^4.
 */
export function mcnemarExact(b: number, c: number): number {
  checkCount('b', b);
  checkCount('c', c);
  const n = b + c;
  const m = Math.min(b, c);
  if (2 * m + 1 >= n) return 1; // b and c differ by at most 1 (or n = 0): P(X ≤ m) ≥ 1/2 exactly
  let logTop = 0; // log C(n, i)
  let tail = 1; // Σ_{j ≤ i} C(n, j) / C(n, i)
  for (let i = 0; i < m; i++) {
    logTop += Math.log((n - i) / (i + 1));
    tail = (tail * (i + 1)) / (n - i) + 1;
  }
  return Math.min(1, 2 * Math.exp(logTop - n * Math.LN2 + Math.log(tail)));
}

/**
 * A config's solve rate with a case-clustered percentile bootstrap interval. Each resample draws
 * `clusters.length` cases with replacement and takes the pooled rate Σ successes / Σ trials; the
 * interval is the (1 ∓ confidence)/2 quantiles of the resampled rates (linear interpolation, R type 7).
 *
 * Pooled, not the mean of per-case rates: it is the passes/attempts figure the grid and summary print, so
 * the interval brackets the number shown; with equal attempts per case (the grid's normal shape) the two
 * agree. Resampling whole cases keeps attempts of one case together, so correlated retries widen the
 * interval as they should. Cases with 0 trials carry no information for a pooled rate and are dropped
 * before resampling; with none left the result is { rate: null, lo: 0, hi: 1 }.
 * O(resamples × clusters) time; the only allocations are three typed arrays, made once.
 */
export function clusteredBootstrapInterval(
  clusters: readonly Cluster[],
  options: BootstrapOptions = {},
): RateInterval {
  const { resamples, random, confidence } = bootstrapSettings(options);
  let count = 0;
  for (const [index, cluster] of clusters.entries()) {
    checkCount(`clusters[${index}].trials`, cluster.trials);
    checkCount(`clusters[${index}].successes`, cluster.successes, cluster.trials);
    if (cluster.trials > 0) count++;
  }
  if (count === 0) return { rate: null, lo: 0, hi: 1 };
  const successes = new Float64Array(count);
  const trials = new Float64Array(count);
  let totalSuccesses = 0;
  let totalTrials = 0;
  let next = 0;
  for (const cluster of clusters) {
    if (cluster.trials === 0) continue;
    successes[next] = cluster.successes;
    trials[next] = cluster.trials;
    totalSuccesses += cluster.successes;
    totalTrials += cluster.trials;
    next++;
  }
  const rates = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    let t = 0;
    for (let draw = 0; draw < count; draw++) {
      const pick = Math.floor(random() * count);
      s += successes[pick] ?? 0;
      t += trials[pick] ?? 0;
    }
    rates[r] = s / t;
  }
  return { rate: totalSuccesses / totalTrials, ...percentileInterval(rates, confidence) };
}

/**
 * The difference in solve rate B − A over shared cases, with a paired percentile bootstrap interval:
 * each resample draws pairs.length cases with replacement and takes the mean of b − a; the interval is
 * the (1 ∓ confidence)/2 quantiles (linear interpolation, R type 7). Each case weighs the same, whatever its
 * attempt count. No pairs gives { difference: null, lo: −1, hi: 1 }. Every a and b must lie in [0, 1].
 * O(resamples × pairs) time; the only allocations are two typed arrays, made once.
 */
export function pairedBootstrapDifference(
  pairs: readonly RatePair[],
  options: BootstrapOptions = {},
): DifferenceInterval {
  const { resamples, random, confidence } = bootstrapSettings(options);
  for (const [index, pair] of pairs.entries()) {
    checkUnit(`pairs[${index}].a`, pair.a);
    checkUnit(`pairs[${index}].b`, pair.b);
  }
  const count = pairs.length;
  if (count === 0) return { difference: null, lo: -1, hi: 1 };
  const differences = new Float64Array(count);
  let total = 0;
  for (const [index, pair] of pairs.entries()) {
    differences[index] = pair.b - pair.a;
    total += pair.b - pair.a;
  }
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let draw = 0; draw < count; draw++) sum += differences[Math.floor(random() * count)] ?? 0;
    means[r] = sum / count;
  }
  return { difference: total / count, ...percentileInterval(means, confidence) };
}

function bootstrapSettings(options: BootstrapOptions): {
  resamples: number;
  random: Random;
  confidence: number;
} {
  const {
    resamples = DEFAULT_BOOTSTRAP_RESAMPLES,
    seed = DEFAULT_BOOTSTRAP_SEED,
    confidence = DEFAULT_CONFIDENCE,
  } = options;
  if (!(Number.isSafeInteger(resamples) && resamples >= 1))
    throw statisticsOutOfRange(`resamples must be an integer ≥ 1, got ${resamples}`);
  if (!Number.isSafeInteger(seed)) throw statisticsOutOfRange(`seed must be a safe integer, got ${seed}`);
  if (!(confidence > 0 && confidence < 1))
    throw statisticsOutOfRange(`confidence must lie in (0, 1), got ${confidence}`);
  return { resamples, random: mulberry32(seed), confidence };
}

/** Sorts `values` in place and returns its (1 ∓ confidence)/2 quantiles, R type 7 (as numpy's default). */
function percentileInterval(values: Float64Array, confidence: number): { lo: number; hi: number } {
  values.sort();
  const alpha = (1 - confidence) / 2;
  return { lo: quantile(values, alpha), hi: quantile(values, 1 - alpha) };
}

function quantile(sorted: Float64Array, q: number): number {
  const h = (sorted.length - 1) * q;
  const below = Math.floor(h);
  const low = sorted[below] ?? 0;
  const high = sorted[Math.min(below + 1, sorted.length - 1)] ?? 0;
  return low === high ? low : low + (h - below) * (high - low);
}

function checkCount(name: string, value: number, max = Number.MAX_SAFE_INTEGER): void {
  if (!(Number.isSafeInteger(value) && value >= 0 && value <= max))
    throw statisticsOutOfRange(
      `${name} must be an integer in [0, ${max === Number.MAX_SAFE_INTEGER ? '2^53)' : `${max}]`}, got ${value}`,
    );
}

function checkUnit(name: string, value: number): void {
  if (!(value >= 0 && value <= 1)) throw statisticsOutOfRange(`${name} must lie in [0, 1], got ${value}`);
}

function checkPassK(n: number, c: number, k: number): void {
  checkCount('n', n);
  checkCount('c', c, n);
  if (!(Number.isSafeInteger(k) && k >= 1)) throw statisticsOutOfRange(`k must be an integer ≥ 1, got ${k}`);
  if (k > n) throw statisticsOutOfRange(`k (${k}) exceeds n (${n}): pass@k and pass^k need k ≤ n attempts`);
}
