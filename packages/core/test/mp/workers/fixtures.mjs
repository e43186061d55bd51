// Inputs of the multi-process op matrix, shared by the worker (which sends them) and the test
// (which derives the exact expected results from them independently of the engine).

export const DTYPES = ['float32', 'float64', 'int32', 'int64', 'uint8', 'int8', 'float16'];

const CTORS = {
  float32: Float32Array,
  float64: Float64Array,
  int32: Int32Array,
  int64: BigInt64Array,
  uint8: Uint8Array,
  int8: Int8Array,
  float16: Uint16Array,
};

/** Small integers are exact in every dtype, float16 included. */
export function makeArray(dtype, values) {
  const Ctor = CTORS[dtype];
  if (dtype === 'int64') return BigInt64Array.from(values, (v) => BigInt(v));
  if (dtype === 'float16') return Uint16Array.from(values, toHalfBits);
  return Ctor.from(values);
}

/** Plain numbers back out of any array (float16 decoded from its bits). */
export function toNumbers(dtype, array) {
  if (dtype === 'int64') return Array.from(array, (v) => Number(v));
  if (dtype === 'float16') return Array.from(array, fromHalfBits);
  return Array.from(array);
}

export function toHalfBits(value) {
  const f = new Float32Array([value]);
  const bits = new Uint32Array(f.buffer)[0];
  const sign = (bits >>> 16) & 0x8000;
  const exp = ((bits >>> 23) & 0xff) - 127 + 15;
  if (value === 0) return sign;
  // Test values are small integers: always normal, never rounded.
  return sign | (exp << 10) | ((bits >>> 13) & 0x3ff);
}

export function fromHalfBits(h) {
  const exp = (h >> 10) & 0x1f;
  const mant = h & 0x3ff;
  const sign = h & 0x8000 ? -1 : 1;
  if (exp === 0) return sign * mant * 2 ** -24;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

export const inputs = {
  /** allreduce sum/min/max/product: 3 elements. */
  reduce: (rank) => [rank + 1, rank + 2, rank + 3],
  /** allreduce average: averages 0.5, 1 and 1.5 at sizes 2, 3 and 4 exercise truncation. */
  average: (rank) => [rank, rank + 1],
  /** allgather: rank r sends r rows of 2 (rank 0 sends none). */
  gatherRows: (rank) => rank,
  gather: (rank) => Array.from({ length: rank * 2 }, (_, k) => rank * 10 + k),
  /** alltoall: rank r sends (r + d) % 3 rows of 1 element to rank d. */
  alltoallSplits: (rank, size) => Array.from({ length: size }, (_, d) => (rank + d) % 3),
  alltoall: (rank, size) => {
    const splits = inputs.alltoallSplits(rank, size);
    const out = [];
    splits.forEach((rows, d) => {
      for (let k = 0; k < rows; k += 1) out.push(rank * 10 + d * 3 + k);
    });
    return out;
  },
  /** reducescatter: (2 * size + 1) rows of 2, so the first rank gets an extra row. */
  scatterRows: (size) => 2 * size + 1,
  scatter: (rank, size) => Array.from({ length: (2 * size + 1) * 2 }, (_, k) => rank + (k % 5)),
  /** join: rank r runs 2 * (r + 1) steps before joining. */
  joinSteps: (rank) => 2 * (rank + 1),
};
