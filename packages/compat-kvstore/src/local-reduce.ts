import { dtypeOf, type HostArray } from '@kolo/core';
import { fromFloat16Bits, toFloat16Bits } from './float16.js';

/**
 * The reductions a KVStore push accepts: MXNet's sum, and AIACC-Training's (Perseus) `Max` and
 * `Min` for buffers such as the global maximum of a per-worker count.
 *
 * @example
 * ```ts
 * await store.push('epoch_size_max', size, { op: 'max' satisfies PushOp });
 * ```
 */
export type PushOp = 'sum' | 'max' | 'min';

type Combine<T> = (a: T, b: T) => T;
const numberOps: Record<PushOp, Combine<number>> = {
  sum: (a, b) => a + b,
  max: (a, b) => (b > a ? b : a),
  min: (a, b) => (b < a ? b : a),
};
const bigintOps: Record<PushOp, Combine<bigint>> = {
  sum: (a, b) => a + b,
  max: (a, b) => (b > a ? b : a),
  min: (a, b) => (b < a ? b : a),
};

/**
 * Reduces several arrays of one dtype and length element-wise into a new array, left to right,
 * in the arrays' own arithmetic: float32 rounds after every step, float16 (Uint16Array bits) too,
 * integers wrap around as their TypedArray stores them. One array is copied.
 *
 * @example
 * ```ts
 * reduceLocal([Float32Array.of(1, 5), Float32Array.of(2, 3)], 'sum'); // Float32Array [3, 8]
 * reduceLocal([Float32Array.of(1, 5), Float32Array.of(2, 3)], 'max'); // Float32Array [2, 5]
 * ```
 */
export function reduceLocal(arrays: readonly HostArray[], op: PushOp): HostArray {
  const [first, ...rest] = arrays;
  if (first === undefined) throw new RangeError('reduceLocal needs at least one array');
  const out = first.slice();
  if (out instanceof BigInt64Array) {
    for (const next of rest as BigInt64Array[]) {
      for (let i = 0; i < out.length; i++) out[i] = bigintOps[op](out[i] ?? 0n, next[i] ?? 0n);
    }
  } else if (dtypeOf(out, 'array') === 'float16') {
    const bits = out as Uint16Array;
    for (const next of rest as Uint16Array[]) {
      for (let i = 0; i < bits.length; i++) {
        const value = numberOps[op](fromFloat16Bits(bits[i] ?? 0), fromFloat16Bits(next[i] ?? 0));
        bits[i] = toFloat16Bits(value);
      }
    }
  } else {
    const numbers = out as Exclude<HostArray, BigInt64Array>;
    for (const next of rest as Exclude<HostArray, BigInt64Array>[]) {
      for (let i = 0; i < numbers.length; i++) numbers[i] = numberOps[op](numbers[i] ?? 0, next[i] ?? 0);
    }
  }
  return out;
}
