// Inputs of the compat-ddp collective matrix, shared by the worker (which sends them) and the
// test (which derives the exact expected results from them, independently of the engine).

export const DTYPES = ['float32', 'float64', 'int32', 'int64', 'uint8', 'int8', 'float16'];
export const OPS = ['sum', 'avg', 'product', 'min', 'max', 'band', 'bor', 'bxor'];
export const isFloat = (dtype) => dtype.startsWith('float');
export const isSigned = (dtype) => dtype !== 'uint8';

const CTORS = { float32: Float32Array, float64: Float64Array, int32: Int32Array, int64: BigInt64Array, uint8: Uint8Array, int8: Int8Array, float16: Uint16Array };

/** A TypedArray of `dtype` holding small integers or halves (exact in every dtype, float16 included). */
export function makeArray(dtype, values) {
  if (dtype === 'int64') return BigInt64Array.from(values, (v) => BigInt(v));
  if (dtype === 'float16') return Uint16Array.from(values, toHalfBits);
  return CTORS[dtype].from(values);
}

/** Plain numbers back out of any array (float16 decoded from its bits). */
export function toNumbers(dtype, array) {
  if (dtype === 'int64') return Array.from(array, (v) => Number(v));
  if (dtype === 'float16') return Array.from(array, fromHalfBits);
  return Array.from(array);
}

function toHalfBits(value) {
  if (value === 0) return 0;
  const sign = value < 0 ? 0x8000 : 0;
  const a = Math.abs(value);
  const exp = Math.floor(Math.log2(a));
  // Test values need at most 10 fraction bits: exact, never rounded.
  return sign | ((exp + 15) << 10) | Math.round((a / 2 ** exp - 1) * 1024);
}

function fromHalfBits(h) {
  const exp = (h >> 10) & 0x1f;
  const mant = h & 0x3ff;
  const sign = h & 0x8000 ? -1 : 1;
  if (exp === 0) return sign * mant * 2 ** -24;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

export const inputs = {
  /** all_reduce / reduce: 4 elements; products stay within int8 up to 4 ranks. */
  reduce: (dtype, r, size) => {
    const v = [r + 1, ((r * 3) % 5) + 1, size - r, isSigned(dtype) ? -(r + 1) : 2];
    // Float averages are exact when every sum divides by the number of ranks.
    return (op) => (op === 'avg' && isFloat(dtype) ? v.map((x) => x * size) : v);
  },
  /** reduce_scatter: chunk j (2 elements) of rank r. */
  scatterChunk: (r, j) => [((r + j) % 3) + 1, 2 + (j % 2)],
  broadcast: (r) => [r, r + 1, r + 2],
  /** all_gather: rank r contributes r + 1 elements. */
  gather: (r) => Array.from({ length: r + 1 }, (_, k) => r * 10 + k),
  gatherInto: (r) => [r, r + 1],
  gatherTo: (r) => [r * 2, r * 2 + 1],
  scatterPart: (j) => [j * 10, j * 10 + 1],
  /** all_to_all: rank r sends j + 1 copies of r * 10 + j to rank j. */
  toAll: (r, j) => Array.from({ length: j + 1 }, () => r * 10 + j),
  /** all_to_all_single: element k of rank r. */
  single: (r, k) => (r * 20 + k) % 120,
  ring: (r) => [r, r * 2],
};
