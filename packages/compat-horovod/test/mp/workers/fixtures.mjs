// Inputs of the Horovod parallel-test port, shared by the worker (which sends them) and the
// vitest file (which derives the exact expected results from them without the engine).

/** Horovod's CPU dtypes for torch tests. */
export const DTYPES = ['int32', 'int64', 'float32', 'float64'];
/** Horovod uses [17] * dim for dim 1..3; the 3-D case is [5, 5, 5] to keep reports small. */
export const DIMS = [[17], [17, 17], [5, 5, 5]];

const CTORS = { int32: Int32Array, float32: Float32Array, float64: Float64Array };

export const numel = (shape) => shape.reduce((a, b) => a * b, 1);

/** Deterministic integers in [lo, hi) (mulberry32), exact in every dtype used here. */
export function randInts(seed, count, lo, hi) {
  let a = seed >>> 0;
  return Array.from({ length: count }, () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const u = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    return lo + Math.floor(u * (hi - lo));
  });
}

export function makeArray(dtype, values) {
  if (dtype === 'int64') return BigInt64Array.from(values, (v) => BigInt(v));
  return CTORS[dtype].from(values);
}

export const toNumbers = (array) => Array.from(array, Number);

export const inputs = {
  /** The same tensor on every rank (Horovod seeds 1234 on every rank). */
  identical: (dimIndex) => randInts(1234 + dimIndex, numel(DIMS[dimIndex]), -100, 100),
  /** A rank-dependent tensor of `count` values in [lo, hi). */
  perRank: (rank, salt, count, lo = -100, hi = 100) => randInts(7919 * (rank + 1) + salt, count, lo, hi),
  /** Rows each rank contributes to the variable-size allgather (Horovod's list). */
  gatherRows: (rank) => [17, 32, 81, 12][rank],
  /** Rows of the reducescatter input: uneven on purpose (the first ranks get one more). */
  scatterRows: (size) => 2 * size + 1,
  /** Pre/postscale factor (exact in binary, so every cast is predictable). */
  factor: 1.5,
};
