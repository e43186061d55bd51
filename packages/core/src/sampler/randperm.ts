import { Mt19937 } from './mt19937.js';

/** Below this length torch's CPU randperm draws 32-bit numbers; we follow it exactly there. */
export const torchExactLimit = Math.floor(0xffffffff / 20);

/**
 * A permutation of `0..n-1` by the algorithm of torch's CPU `randperm` for `n < 2^32 / 20`:
 * MT19937 seeded with `seed`, then for `i = 0..n-2` swap `a[i]` with `a[i + next() % (n - i)]`.
 * Longer permutations combine two draws into a 53-bit number (deterministic, but not torch's
 * 64-bit path).
 *
 * @example
 * ```ts
 * randperm({ n: 5, seed: 0 }); // the same array on every rank and every run
 * ```
 */
export function randperm(options: { readonly n: number; readonly seed: number }): number[] {
  const { n } = options;
  const rng = new Mt19937(options.seed);
  const draw =
    n < torchExactLimit ? () => rng.next() : () => rng.next() * 2 ** 21 + (rng.next() >>> 11);
  const result = Array.from({ length: n }, (_, i) => i);
  for (let i = 0; i < n - 1; i++) {
    const j = i + (draw() % (n - i));
    const held = result[i] ?? 0;
    result[i] = result[j] ?? 0;
    result[j] = held;
  }
  return result;
}
