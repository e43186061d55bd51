const stateSize = 624;
const shift = 397;

/**
 * The 32-bit Mersenne Twister (MT19937) with the standard `init_genrand` seeding, the generator
 * behind `std::mt19937` and torch's CPU generator. Deterministic across platforms.
 *
 * @example
 * ```ts
 * new Mt19937(5489).next(); // 3499211612, std::mt19937's first output
 * ```
 */
export class Mt19937 {
  private readonly state = new Uint32Array(stateSize);
  private index = stateSize;

  /** Seeds with the low 32 bits of `seed` (a non-negative integer). */
  constructor(seed: number) {
    this.state[0] = seed % 2 ** 32;
    for (let i = 1; i < stateSize; i++) {
      const previous = this.state[i - 1] ?? 0;
      this.state[i] = (Math.imul(1812433253, previous ^ (previous >>> 30)) + i) >>> 0;
    }
  }

  /**
   * The next 32-bit output as a non-negative number.
   *
   * @example
   * ```ts
   * const draw = rng.next() % 10;
   * ```
   */
  next(): number {
    if (this.index >= stateSize) this.twist();
    let y = this.state[this.index++] ?? 0;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  private twist(): void {
    const s = this.state;
    for (let i = 0; i < stateSize; i++) {
      const y = ((s[i] ?? 0) & 0x80000000) | ((s[(i + 1) % stateSize] ?? 0) & 0x7fffffff);
      let value = (s[(i + shift) % stateSize] ?? 0) ^ (y >>> 1);
      if (y & 1) value ^= 0x9908b0df;
      s[i] = value >>> 0;
    }
    this.index = 0;
  }
}
