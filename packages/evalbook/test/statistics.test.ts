// Evalbook statistics: Wilson and exact McNemar against textbook values and exact BigInt arithmetic,
// pass@k and pass^k against brute-force enumeration, the bootstraps against their large-sample theory,
// plus fast-check properties (bounds, symmetry, monotonicity, determinism) and the seeded generator.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { mulberry32 } from '../src/analysis/random.ts';
import {
  DEFAULT_BOOTSTRAP_SEED,
  Z_95,
  clusteredBootstrapInterval,
  mcnemarExact,
  pairedBootstrapDifference,
  passAtK,
  passHatK,
  wilsonInterval,
} from '../src/analysis/statistics.ts';
import { evalbookError } from './support/evalbook-error.ts';
import type { Cluster, RatePair } from '../src/analysis/statistics.ts';

/** C(n, k) exactly. */
function binomial(n: number, k: number): bigint {
  let value = 1n;
  for (let i = 0; i < k; i++) value = (value * BigInt(n - i)) / BigInt(i + 1);
  return value;
}

/** num/den (both > 0) as a double, correct to ~1e-16 relative while the result is a normal number. */
function ratio(num: bigint, den: bigint): number {
  const shift = Math.max(0, den.toString(2).length - num.toString(2).length + 64);
  return Number((num << BigInt(shift)) / den) * 2 ** -Math.min(shift, 1000) * 2 ** -Math.max(0, shift - 1000);
}

/** Exact two-sided McNemar p from BigInt binomial sums. */
function mcnemarOracle(b: number, c: number): number {
  const n = b + c;
  let term = 1n; // C(n, i)
  let tail = 1n;
  for (let i = 0; i < Math.min(b, c); i++) {
    term = (term * BigInt(n - i)) / BigInt(i + 1);
    tail += term;
  }
  return Math.min(1, ratio(2n * tail, 2n ** BigInt(n)));
}

function expectRelativelyClose(actual: number, expected: number, tolerance: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(tolerance * Math.abs(expected));
}

/** Throws an EvalbookError paperclip_evalbook_statistics_out_of_range whose message contains `text` (typically the argument's name). */
function expectRangeError(run: () => unknown, text: string): void {
  expect(run).toThrow(evalbookError('paperclip_evalbook_statistics_out_of_range'));
  expect(run).toThrow(text);
}

/** The original mulberry32 gist (Tommy Ettinger), kept verbatim apart from types. */
function referenceMulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('wilsonInterval', () => {
  // Newcombe (1998), Stat. Med. 17:857–872, Table I, method 3 (Wilson score, no continuity correction).
  it.each([
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0, 0.1611],
    [1, 29, 0.0061, 0.1718],
  ])('matches Newcombe 1998 Table I for %i/%i to 4 decimals', (s, n, lo, hi) => {
    const interval = wilsonInterval(s, n);
    expect(interval.rate).toBe(s / n);
    expect(interval.lo).toBeCloseTo(lo, 4);
    expect(interval.hi).toBeCloseTo(hi, 4);
  });

  // Closed form evaluated in mpmath at 40 digits with z = √2·erfinv(0.95), rounded to 15 decimals; catches z = 1.96.
  it.each([
    [81, 263, 0.255288519878274, 0.3662095769828],
    [0, 20, 0, 0.161125158052819],
    [29, 29, 0.883030201500259, 1],
    [7, 10, 0.396778147461145, 0.892208732593699],
  ])('matches a 40-digit evaluation for %i/%i to 1e-12', (s, n, lo, hi) => {
    const interval = wilsonInterval(s, n);
    expect(Math.abs(interval.lo - lo)).toBeLessThan(1e-12);
    expect(Math.abs(interval.hi - hi)).toBeLessThan(1e-12);
  });

  it('inverts the score test: each inner bound p₀ has |s/n − p₀| = z·√(p₀(1 − p₀)/n)', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 2, max: 10_000 })
          .chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 1, max: n - 1 }))),
        fc.constantFrom(Z_95, 1, 2.5758293035489004),
        ([n, s], z) => {
          const { lo, hi } = wilsonInterval(s, n, z);
          for (const p0 of [lo, hi])
            expectRelativelyClose(Math.abs(s / n - p0) / Math.sqrt((p0 * (1 - p0)) / n), z, 1e-8);
        },
      ),
    );
  });

  it('is ordered, inside [0, 1], and mirrors under s ↦ n − s', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 100_000 })
          .chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n }))),
        ([n, s]) => {
          const { rate, lo, hi } = wilsonInterval(s, n);
          const mirror = wilsonInterval(n - s, n);
          expect(0 <= lo && lo <= rate! && rate! <= hi && hi <= 1).toBe(true);
          expect(Math.abs(lo - (1 - mirror.hi))).toBeLessThan(1e-12);
          expect(Math.abs(hi - (1 - mirror.lo))).toBeLessThan(1e-12);
        },
      ),
    );
  });

  it('gives exact 0 and 1 at the boundaries', () => {
    expect(wilsonInterval(0, 7).lo).toBe(0);
    expect(wilsonInterval(7, 7).hi).toBe(1);
  });

  it('returns rate null and the whole of [0, 1] for zero trials', () => {
    expect(wilsonInterval(0, 0)).toEqual({ rate: null, lo: 0, hi: 1 });
  });

  it('narrows with a smaller z', () => {
    const wide = wilsonInterval(81, 263);
    const narrow = wilsonInterval(81, 263, 1);
    expect(narrow.hi - narrow.lo).toBeLessThan(wide.hi - wide.lo);
  });

  it.each([
    [5, 4, Z_95],
    [-1, 4, Z_95],
    [1.5, 4, Z_95],
    [Number.NaN, 4, Z_95],
    [1, Number.POSITIVE_INFINITY, Z_95],
    [1, 4, 0],
    [1, 4, Number.NaN],
  ])('throws paperclip_evalbook_statistics_out_of_range for (%s, %s, z = %s)', (s, n, z) => {
    expect(() => wilsonInterval(s, n, z)).toThrow(
      evalbookError('paperclip_evalbook_statistics_out_of_range'),
    );
  });
});

describe('mcnemarExact', () => {
  it.each([
    [6, 1, 0.125], // 2·(1 + 7)/2^7
    [10, 2, 0.03857421875], // 2·(1 + 12 + 66)/2^12 = 79/2048
    [3, 12, 0.03515625], // 2·(1 + 15 + 105 + 455)/2^15
    [100, 60, 0.001953728034064355], // scipy.stats.binomtest(60, 160).pvalue
    [5100, 4900, 0.04658552770494645], // scipy.stats.binomtest(4900, 10000).pvalue
  ])('gives p for b = %i, c = %i as in the references', (b, c, p) => {
    expectRelativelyClose(mcnemarExact(b, c), p, 1e-11);
  });

  it.each([
    [0, 0],
    [7, 7],
    [4, 5],
    [0, 1],
  ])('gives exactly 1 when b = %i and c = %i differ by at most one', (b, c) => {
    expect(mcnemarExact(b, c)).toBe(1);
  });

  it('gives exactly 1 whenever b and c differ by at most one, however large', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 0, max: 1 }), (m, extra) => {
        expect(mcnemarExact(m, m + extra)).toBe(1);
      }),
    );
  });

  it('matches exact BigInt arithmetic and is symmetric in (b, c), inside [0, 1]', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 400 }), (b, c) => {
        const p = mcnemarExact(b, c);
        expect(p).toBe(mcnemarExact(c, b));
        expect(p >= 0 && p <= 1).toBe(true);
        expectRelativelyClose(p, mcnemarOracle(b, c), 1e-11);
      }),
    );
  });

  it.each([
    [5200, 4800],
    [5500, 4500],
    [6000, 4000],
    [9000, 1000],
  ])('stays accurate at b + c = 10,000 (b = %i, c = %i)', (b, c) => {
    expectRelativelyClose(mcnemarExact(b, c), mcnemarOracle(b, c), 1e-10);
  });

  it('underflows to 0, not NaN, when p is below the smallest double', () => {
    expect(mcnemarExact(0, 20_000)).toBe(0);
    expect(mcnemarExact(400_000, 600_000)).toBe(0);
  });

  it.each([
    [-1, 2],
    [1.5, 2],
    [Number.NaN, 2],
  ])('throws paperclip_evalbook_statistics_out_of_range for b = %s, c = %s', (b, c) => {
    expect(() => mcnemarExact(b, c)).toThrow(evalbookError('paperclip_evalbook_statistics_out_of_range'));
  });
});

describe('passAtK and passHatK', () => {
  /** Over every k-subset of n attempts (the first c pass): the share with some pass, and with all passing. */
  function enumerate(n: number, c: number, k: number): { atK: number; hatK: number } {
    let subsets = 0;
    let some = 0;
    let all = 0;
    const passing = (1 << c) - 1;
    for (let mask = 0; mask < 1 << n; mask++) {
      let size = 0;
      for (let bits = mask; bits !== 0; bits &= bits - 1) size++;
      if (size !== k) continue;
      subsets++;
      if ((mask & passing) !== 0) some++;
      if ((mask & passing) === mask) all++;
    }
    return { atK: some / subsets, hatK: all / subsets };
  }

  const triples: [number, number, number][] = [];
  for (let n = 1; n <= 10; n++)
    for (let c = 0; c <= n; c++) for (let k = 1; k <= n; k++) triples.push([n, c, k]);

  it(`match brute-force enumeration of every k-subset for all ${triples.length} (n ≤ 10, c, k)`, () => {
    for (const [n, c, k] of triples) {
      const { atK, hatK } = enumerate(n, c, k);
      expect(Math.abs(passAtK(n, c, k) - atK), `pass@${k}, n=${n}, c=${c}`).toBeLessThan(1e-12);
      expect(Math.abs(passHatK(n, c, k) - hatK), `pass^${k}, n=${n}, c=${c}`).toBeLessThan(1e-12);
    }
  });

  const nck = fc
    .integer({ min: 1, max: 400 })
    .chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n }), fc.integer({ min: 1, max: n })));

  it('match exact binomial ratios up to n = 400', () => {
    fc.assert(
      fc.property(nck, ([n, c, k]) => {
        const all = binomial(n, k);
        const noneFail = binomial(n - c, k);
        expect(Math.abs(passAtK(n, c, k) - (1 - ratio(noneFail, all)))).toBeLessThan(1e-12);
        const allPass = binomial(c, k);
        const exact = allPass === 0n ? 0 : ratio(allPass, all);
        expect(Math.abs(passHatK(n, c, k) - exact)).toBeLessThanOrEqual(1e-12 * exact);
      }),
    );
  });

  it('reduce to c/n at k = 1 and bracket it otherwise: pass^k ≤ c/n ≤ pass@k, all in [0, 1]', () => {
    fc.assert(
      fc.property(nck, ([n, c, k]) => {
        const at = passAtK(n, c, k);
        const hat = passHatK(n, c, k);
        if (k === 1) {
          expect(Math.abs(at - c / n)).toBeLessThan(1e-15);
          expect(Math.abs(hat - c / n)).toBeLessThan(1e-15);
        }
        expect(0 <= hat && hat <= c / n + 1e-15 && c / n <= at + 1e-15 && at <= 1).toBe(true);
      }),
    );
  });

  it('are non-decreasing in c; pass@k is non-decreasing and pass^k non-increasing in k', () => {
    fc.assert(
      fc.property(nck, ([n, c, k]) => {
        if (c < n) {
          expect(passAtK(n, c + 1, k)).toBeGreaterThanOrEqual(passAtK(n, c, k) - 1e-12);
          expect(passHatK(n, c + 1, k)).toBeGreaterThanOrEqual(passHatK(n, c, k) - 1e-12);
        }
        if (k < n) {
          expect(passAtK(n, c, k + 1)).toBeGreaterThanOrEqual(passAtK(n, c, k) - 1e-12);
          expect(passHatK(n, c, k + 1)).toBeLessThanOrEqual(passHatK(n, c, k) + 1e-12);
        }
      }),
    );
  });

  it('stay finite and exact-ish far beyond what binomials in doubles could hold (n = 100,000)', () => {
    const [n, c, k] = [100_000, 50_000, 100];
    expect(passAtK(n, c, k)).toBe(1 - ratio(binomial(n - c, k), binomial(n, k)));
    expectRelativelyClose(passHatK(n, c, k), ratio(binomial(c, k), binomial(n, k)), 1e-12);
  });

  it('throws paperclip_evalbook_statistics_out_of_range naming k when k > n', () => {
    expectRangeError(() => passAtK(3, 1, 5), 'k (5) exceeds n (3)');
    expectRangeError(() => passHatK(3, 1, 5), 'k (5) exceeds n (3)');
  });

  it.each([
    [5, 1, 0],
    [5, 6, 2],
    [5, -1, 2],
    [5, 1, 1.5],
    [0, 0, 1],
    [Number.NaN, 1, 1],
  ])('throws paperclip_evalbook_statistics_out_of_range for n = %s, c = %s, k = %s', (n, c, k) => {
    expect(() => passAtK(n, c, k)).toThrow(evalbookError('paperclip_evalbook_statistics_out_of_range'));
    expect(() => passHatK(n, c, k)).toThrow(evalbookError('paperclip_evalbook_statistics_out_of_range'));
  });
});

describe('clusteredBootstrapInterval', () => {
  const cluster = fc
    .integer({ min: 0, max: 20 })
    .chain((trials) =>
      fc.record({ successes: fc.integer({ min: 0, max: trials }), trials: fc.constant(trials) }),
    );

  /** 200 cases of 10 attempts each, all-or-nothing, half solved: attempts of a case are fully correlated. */
  const allOrNothing: Cluster[] = Array.from({ length: 200 }, (_, i) => ({
    successes: i % 2 === 0 ? 10 : 0,
    trials: 10,
  }));

  it('estimates the pooled rate Σ successes / Σ trials, not the mean of per-case rates', () => {
    expect(
      clusteredBootstrapInterval([
        { successes: 9, trials: 10 },
        { successes: 0, trials: 90 },
      ]).rate,
    ).toBe(0.09);
  });

  it('resamples whole cases: correlated attempts give the between-case width, 1.96·√(¼/200) each side', () => {
    const half = Z_95 * Math.sqrt(0.25 / 200); // 0.0693; treating the 2,000 attempts as i.i.d. would give 0.0219
    const { rate, lo, hi } = clusteredBootstrapInterval(allOrNothing, { resamples: 4000 });
    expect(rate).toBe(0.5);
    expect(Math.abs(lo - (0.5 - half))).toBeLessThan(0.005);
    expect(Math.abs(hi - (0.5 + half))).toBeLessThan(0.005);
  });

  it('honours confidence: a 90% interval is about 1.645/1.96 as wide', () => {
    const wide = clusteredBootstrapInterval(allOrNothing, { resamples: 4000 });
    const narrow = clusteredBootstrapInterval(allOrNothing, { resamples: 4000, confidence: 0.9 });
    expect((narrow.hi - narrow.lo) / (wide.hi - wide.lo)).toBeCloseTo(1.645 / 1.96, 1);
  });

  it('narrows about as 1/√(cases) when the same case mix is repeated four times', () => {
    const mix: Cluster[] = Array.from({ length: 50 }, (_, i) => ({ successes: i % 5, trials: 4 }));
    const few = clusteredBootstrapInterval(mix);
    const many = clusteredBootstrapInterval([...mix, ...mix, ...mix, ...mix]);
    expect((many.hi - many.lo) / (few.hi - few.lo)).toBeCloseTo(0.5, 1);
  });

  it('is deterministic for a seed, defaults to DEFAULT_BOOTSTRAP_SEED, and moves with the seed', () => {
    const clusters: Cluster[] = [
      { successes: 3, trials: 5 },
      { successes: 0, trials: 5 },
      { successes: 5, trials: 5 },
      { successes: 1, trials: 4 },
      { successes: 2, trials: 3 },
    ];
    const seeded = clusteredBootstrapInterval(clusters, { seed: 7 });
    expect(clusteredBootstrapInterval(clusters, { seed: 7 })).toEqual(seeded);
    expect(clusteredBootstrapInterval(clusters)).toEqual(
      clusteredBootstrapInterval(clusters, { seed: DEFAULT_BOOTSTRAP_SEED }),
    );
    expect(clusteredBootstrapInterval(clusters, { seed: 8 })).not.toEqual(seeded);
  });

  it('contains the point estimate and stays inside [0, 1]', () => {
    fc.assert(
      fc.property(fc.array(cluster, { minLength: 1, maxLength: 30 }), fc.nat(), (clusters, seed) => {
        const { rate, lo, hi } = clusteredBootstrapInterval(clusters, { resamples: 300, seed });
        if (rate === null) expect({ lo, hi }).toEqual({ lo: 0, hi: 1 });
        else expect(0 <= lo && lo <= rate && rate <= hi && hi <= 1).toBe(true);
      }),
    );
  });

  it.each([
    ['equal rates', [3, 4, 6, 8, 0, 0, 9, 12], 0.75],
    ['all solved', [2, 2, 5, 5], 1],
    ['none solved', [0, 3, 0, 1], 0],
  ])('has zero width when every case has the same rate (%s)', (_, flat, rate) => {
    const clusters = [];
    for (let i = 0; i < flat.length; i += 2) clusters.push({ successes: flat[i]!, trials: flat[i + 1]! });
    expect(clusteredBootstrapInterval(clusters)).toEqual({ rate, lo: rate, hi: rate });
  });

  it('drops cases with no trials, and with none left returns rate null over [0, 1]', () => {
    const clusters = [
      { successes: 1, trials: 2 },
      { successes: 2, trials: 2 },
    ];
    expect(clusteredBootstrapInterval([...clusters, { successes: 0, trials: 0 }])).toEqual(
      clusteredBootstrapInterval(clusters),
    );
    expect(clusteredBootstrapInterval([{ successes: 0, trials: 0 }])).toEqual({ rate: null, lo: 0, hi: 1 });
    expect(clusteredBootstrapInterval([])).toEqual({ rate: null, lo: 0, hi: 1 });
  });

  it.each([
    ['successes above trials', [{ successes: 3, trials: 2 }], {}, 'clusters[0].successes'],
    ['fractional trials', [{ successes: 0, trials: 1.5 }], {}, 'clusters[0].trials'],
    ['zero resamples', [], { resamples: 0 }, 'resamples'],
    ['confidence 1', [], { confidence: 1 }, 'confidence'],
    ['a fractional seed', [], { seed: 0.5 }, 'seed'],
  ])('throws paperclip_evalbook_statistics_out_of_range for %s', (_, clusters, options, name) => {
    expectRangeError(() => clusteredBootstrapInterval(clusters, options), name);
  });
});

describe('pairedBootstrapDifference', () => {
  /** 200 shared cases: B alone solves 40, A alone solves 20, 140 ties. */
  const discordant: RatePair[] = Array.from({ length: 200 }, (_, i) =>
    i < 40 ? { a: 0, b: 1 } : i < 60 ? { a: 1, b: 0 } : { a: i % 2, b: i % 2 },
  );

  it('estimates mean(b − a) with the normal-theory width 1.96·√(0.29/200) each side', () => {
    const half = Z_95 * Math.sqrt((0.3 - 0.1 ** 2) / 200); // E[d²] = 0.3, mean 0.1
    const { difference, lo, hi } = pairedBootstrapDifference(discordant, { resamples: 4000 });
    expect(difference).toBeCloseTo(0.1, 15);
    expect(Math.abs(lo - (0.1 - half))).toBeLessThan(0.006);
    expect(Math.abs(hi - (0.1 + half))).toBeLessThan(0.006);
  });

  it('is antisymmetric in the configs: swapping a and b negates the difference', () => {
    const swapped = discordant.map(({ a, b }) => ({ a: b, b: a }));
    expect(pairedBootstrapDifference(swapped).difference).toBeCloseTo(-0.1, 15);
  });

  it('is deterministic for a seed and moves with the seed', () => {
    const seeded = pairedBootstrapDifference(discordant, { seed: 11 });
    expect(pairedBootstrapDifference(discordant, { seed: 11 })).toEqual(seeded);
    expect(pairedBootstrapDifference(discordant, { seed: 12 })).not.toEqual(seeded);
  });

  it('contains the point estimate and stays inside [−1, 1]', () => {
    const pair = fc.record({
      a: fc.integer({ min: 0, max: 8 }).map((x) => x / 8),
      b: fc.integer({ min: 0, max: 8 }).map((x) => x / 8),
    });
    fc.assert(
      fc.property(fc.array(pair, { minLength: 1, maxLength: 30 }), fc.nat(), (pairs, seed) => {
        const { difference, lo, hi } = pairedBootstrapDifference(pairs, { resamples: 300, seed });
        expect(-1 <= lo && lo <= difference! && difference! <= hi && hi <= 1).toBe(true);
      }),
    );
  });

  it('has zero width when every case differs by the same amount', () => {
    const pairs = [
      { a: 0.5, b: 0.75 },
      { a: 0, b: 0.25 },
      { a: 0.75, b: 1 },
    ];
    expect(pairedBootstrapDifference(pairs)).toEqual({ difference: 0.25, lo: 0.25, hi: 0.25 });
  });

  it('returns difference null over [−1, 1] when there are no shared cases', () => {
    expect(pairedBootstrapDifference([])).toEqual({ difference: null, lo: -1, hi: 1 });
  });

  it.each([
    [{ a: 1.2, b: 0 }, 'pairs[0].a'],
    [{ a: 0, b: -0.1 }, 'pairs[0].b'],
    [{ a: Number.NaN, b: 0 }, 'pairs[0].a'],
  ])('throws paperclip_evalbook_statistics_out_of_range for %o', (pair, name) => {
    expectRangeError(() => pairedBootstrapDifference([pair]), name);
  });
});

describe('mulberry32', () => {
  it.each([0, 1, 42, 0xffffffff, DEFAULT_BOOTSTRAP_SEED])(
    'reproduces the reference gist for seed %i',
    (seed) => {
      const ours = mulberry32(seed);
      const reference = referenceMulberry32(seed);
      for (let i = 0; i < 1000; i++) expect(ours()).toBe(reference());
    },
  );

  it('uses the seed mod 2^32 and accepts negative seeds', () => {
    expect(mulberry32(2 ** 32 + 5)()).toBe(mulberry32(5)());
    expect(mulberry32(-1)()).toBe(mulberry32(0xffffffff)());
  });

  it('draws from [0, 1) with mean ½ and variance 1/12', () => {
    const random = mulberry32(3);
    const draws = 100_000;
    let sum = 0;
    let squares = 0;
    let min = 1;
    let max = 0;
    for (let i = 0; i < draws; i++) {
      const u = random();
      sum += u;
      squares += u * u;
      min = Math.min(min, u);
      max = Math.max(max, u);
    }
    expect(min >= 0 && max < 1).toBe(true);
    expect(Math.abs(sum / draws - 0.5)).toBeLessThan(0.005);
    expect(Math.abs(squares / draws - (sum / draws) ** 2 - 1 / 12)).toBeLessThan(0.002);
  });

  it('throws paperclip_evalbook_statistics_out_of_range for a seed that is not a safe integer', () => {
    expect(() => mulberry32(1.5)).toThrow(evalbookError('paperclip_evalbook_statistics_out_of_range'));
    expect(() => mulberry32(2 ** 53)).toThrow(evalbookError('paperclip_evalbook_statistics_out_of_range'));
  });
});
