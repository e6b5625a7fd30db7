// A small seeded pseudo-random generator for the Evalbook's bootstraps, so a report computed twice from
// the same ledger prints the same intervals. Not for anything that needs unpredictability.
//
// Algorithm: mulberry32 (Tommy Ettinger, 2017): one 32-bit state word, a Weyl step and an xorshift-multiply
// finaliser, period 2^32. Plenty for resampling (a 2,000 × 10,000 bootstrap draws 2·10^7 numbers) and a
// few nanoseconds per draw; its outputs are a fixed function of the seed on every platform (Math.imul and
// 32-bit integer ops only), so changing this file changes published intervals.

import { EvalbookError } from '../errors.js';

/** A stream of uniform numbers in [0, 1), each a multiple of 2^-32. */
export type Random = () => number;

const TWO_POW_32 = 4_294_967_296;

/**
 * A mulberry32 stream. `seed` is any safe integer; only its low 32 bits matter (`seed mod 2^32`), so
 * seeds that differ by a multiple of 2^32 give the same stream. Anything else is an EvalbookError
 * paperclip_evalbook_statistics_out_of_range.
 */
export function mulberry32(seed: number): Random {
  if (!Number.isSafeInteger(seed))
    throw new EvalbookError(
      'paperclip_evalbook_statistics_out_of_range',
      `seed must be a safe integer, got ${String(seed)}`,
    );
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / TWO_POW_32;
  };
}
