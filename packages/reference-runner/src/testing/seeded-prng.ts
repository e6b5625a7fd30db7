// A seeded pseudo-random generator (sfc32 over the first 16 bytes of sha256(seed)): the only
// randomness the deterministic driver has. Its state is four integers, so a snapshot can carry it.
import { createHash } from 'node:crypto';

export class SeededPrng {
  #state: [number, number, number, number];

  private constructor(state: readonly number[]) {
    if (
      state.length !== 4 ||
      !state.every((word) => Number.isInteger(word) && word >= 0 && word <= 0xffffffff)
    ) {
      throw new RangeError('a SeededPrng state is four unsigned 32-bit integers');
    }
    this.#state = [state[0] ?? 0, state[1] ?? 0, state[2] ?? 0, state[3] ?? 0];
  }

  static fromSeed(seed: string): SeededPrng {
    const bytes = createHash('sha256').update(seed, 'utf8').digest();
    return new SeededPrng([0, 4, 8, 12].map((offset) => bytes.readUInt32BE(offset)));
  }

  static fromState(state: readonly number[]): SeededPrng {
    return new SeededPrng(state);
  }

  get state(): readonly number[] {
    return [...this.#state];
  }

  nextUint32(): number {
    let [a, b, c, d] = this.#state;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    this.#state = [a >>> 0, b >>> 0, c >>> 0, d >>> 0];
    return t >>> 0;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + (this.nextUint32() % (max - min + 1));
  }
}
