// Inputs of the multi-process KVStore tests, shared by the workers (which send them) and the
// vitest files (which derive the exact expected results from them without the engine). Every
// value is a small integer or a dyadic fraction, so sums are exact in float32 in any order.

/** Rank r's init value of key 0; only rank 0's may survive. */
export const initValue = (rank) => [1 + 100 * rank, 2, -3, 4 * rank];
/** Rank r's push to key 0. */
export const pushValue = (rank) => [rank + 1, 2 * (rank + 1), 3.5, -rank];
/** Rank r's two values ("devices") for key 1, summed locally first. */
export const deviceValues = (rank) => [
  [rank, 1, 0.5],
  [10 * rank, -2, 0.25],
];
/** Rank r's values for the list push of keys [2, 3]. */
export const listValues = (rank) => [
  [rank, -rank],
  [rank * rank, 7],
];
/** Per-rank counts for AIACC's max/min buffers. */
export const counts = [17, 42, 5, 23];
/** The rows x cols value of the row-sparse key (rank-dependent; rank 0's wins at init). */
export const sparseShape = [4, 2];
export const sparseValue = (rank) => [1, 2, 3, 4, 5, 6, 7, 8].map((v) => v + 10 * rank);
export const sparseRows = [3, 1];
/** Integer and float16 pushes (int32, float64, float16 bits of small integers). */
export const intValue = (rank) => [rank - 2, 1000 * rank, -7];
export const f64Value = (rank) => [0.125 * rank, 2 ** 40 + rank];
export const f16Ints = (rank) => [rank + 1, -2 * rank, 3];

/** Rank r's gradient for the 2-bit store (threshold 0.5): codes are obvious by hand. */
export const twoBitGrad = (rank) => [0.75, -0.75, 0.25, rank % 2 === 1 ? 0.5 : -0.5];
/** Rank r's gradient for the fp16 store: 1 + 2^-12 rounds to 1 in half precision. */
export const fp16Grad = (rank) => [1 + 2 ** -12, 0.5 + rank];

/** The training data: B = 24 rows (6, 8 or 12 per worker at 4, 3 or 2 workers) of 5 features. */
export const batch = 24;
export const features = 5;
export const xRow = (i) => Array.from({ length: features }, (_, j) => (((i * 7 + j * 3) % 11) - 5) / 4);
export const yOf = (i) => (((i * 5) % 9) - 4) / 2;
/** The rows worker `rank` of `size` trains on: a contiguous block. */
export const shardRows = (rank, size) => Array.from({ length: batch / size }, (_, k) => (rank * batch) / size + k);
export const allRows = Array.from({ length: batch }, (_, i) => i);
/** Initial weights of a small network; rank-dependent so that only rank 0's broadcast can agree. */
export const initialWeights = (rank) => ({
  w1: Array.from({ length: features * 4 }, (_, k) => (((k * 5) % 7) - 3) / 8 + rank),
  b1: [0.25, -0.125, 0.5, 0].map((v) => v + rank),
  w2: [0.5, -0.25, 0.75, -0.5].map((v) => v + rank),
  b2: [0.125 + rank],
});
/** Largest element-wise |a - b| / max(|b|, 1e-3) over equally long number arrays. */
export function maxRelDiff(a, b) {
  return a.reduce((worst, v, i) => Math.max(worst, Math.abs(v - b[i]) / Math.max(Math.abs(b[i]), 1e-3)), 0);
}
