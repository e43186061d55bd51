// Arrays and exact expectations for the NCCL conformance worker, for any world size. Every value
// is a small integer, exact in every dtype (float16 included), so results compare with ===.

export const DTYPES = ['float32', 'float64', 'int32', 'int64', 'uint8', 'int8', 'float16'];

const CTORS = {
  float32: Float32Array,
  float64: Float64Array,
  int32: Int32Array,
  uint8: Uint8Array,
  int8: Int8Array,
};

function toHalfBits(value) {
  if (value === 0) return 0;
  const bits = new Uint32Array(new Float32Array([value]).buffer)[0];
  const exp = ((bits >>> 23) & 0xff) - 127 + 15;
  return ((bits >>> 16) & 0x8000) | (exp << 10) | ((bits >>> 13) & 0x3ff);
}

function fromHalfBits(h) {
  const exp = (h >> 10) & 0x1f;
  const sign = h & 0x8000 ? -1 : 1;
  if (exp === 0) return sign * (h & 0x3ff) * 2 ** -24;
  return sign * (1 + (h & 0x3ff) / 1024) * 2 ** (exp - 15);
}

export function makeArray(dtype, values) {
  if (dtype === 'int64') return BigInt64Array.from(values, (v) => BigInt(v));
  if (dtype === 'float16') return Uint16Array.from(values, toHalfBits);
  return CTORS[dtype].from(values);
}

export function toNumbers(dtype, array) {
  if (dtype === 'int64') return Array.from(array, Number);
  if (dtype === 'float16') return Array.from(array, fromHalfBits);
  return Array.from(array);
}

/** What the dtype stores for `values` (uint8/int8 sums and products wrap). */
export function wrap(dtype, values) {
  if (dtype === 'uint8' || dtype === 'int8') return Array.from(CTORS[dtype].from(values));
  return values;
}

const ranks = (size) => Array.from({ length: size }, (_, r) => r);
const fold = (size, f, combine, init) => f(0).map((_, i) => ranks(size).reduce((acc, r) => combine(acc, f(r)[i]), init));

export const inputs = {
  reduce: (rank) => [rank + 1, rank + 2, rank + 3],
  average: (rank) => [rank, rank + 1],
  // Uneven: rank r sends r + 1 rows of 2 (even, so ncclAllGather, on one rank).
  gather: (rank) => Array.from({ length: (rank + 1) * 2 }, (_, k) => rank * 10 + k),
  // Rank r sends d + 1 elements to rank d (itself included: the device-to-device copy).
  alltoallSplits: (size) => ranks(size).map((d) => d + 1),
  alltoall: (rank, size) => ranks(size).flatMap((d) => Array.from({ length: d + 1 }, (_, k) => rank * 100 + d * 10 + k)),
  scatterRows: (size) => 2 * size + 1,
  scatter: (rank, size) => Array.from({ length: (2 * size + 1) * 2 }, (_, k) => rank + (k % 5)),
};

/** The exact result of every collective at world size `size`, as seen by rank `me`. */
export function expected(size, dtype, me) {
  const isInt = !dtype.startsWith('float');
  const avg = fold(size, inputs.average, (a, b) => a + b, 0).map((s) => (isInt ? Math.trunc(s / size) : s / size));
  const rows = inputs.scatterRows(size);
  const base = Math.floor(rows / size);
  const extra = rows % size;
  const start = me * base + Math.min(me, extra);
  const mine = base + (me < extra ? 1 : 0);
  const scatterSum = fold(size, (r) => inputs.scatter(r, size), (a, b) => a + b, 0);
  return {
    sum: wrap(dtype, fold(size, inputs.reduce, (a, b) => a + b, 0)),
    min: fold(size, inputs.reduce, Math.min, Infinity),
    max: fold(size, inputs.reduce, Math.max, -Infinity),
    product: wrap(dtype, fold(size, inputs.reduce, (a, b) => a * b, 1)),
    average: avg,
    gather: { data: ranks(size).flatMap(inputs.gather), shape: [ranks(size).reduce((a, r) => a + r + 1, 0), 2] },
    broadcast: [size - 1, size - 1, size - 1],
    alltoall: {
      data: wrap(dtype, ranks(size).flatMap((r) => Array.from({ length: me + 1 }, (_, k) => r * 100 + me * 10 + k))),
      receivedSplits: ranks(size).map(() => me + 1),
    },
    reducescatter: { data: wrap(dtype, scatterSum.slice(start * 2, (start + mine) * 2)), shape: [mine, 2] },
  };
}
