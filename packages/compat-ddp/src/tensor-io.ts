import { dtypeOf, invalidArgument, type DtypeName, type HostArray } from '@kolo/core';
import type { Tensor as TfTensor } from '@tensorflow/tfjs-core';
import { loadTf } from './load-tf.js';

/**
 * What the collectives take: a TypedArray (changed in place, as torch tensors are) or a
 * TensorFlow.js tensor (immutable: results come back as new tensors). A `Uint16Array` holds
 * float16 bits; a `BigInt64Array` is int64.
 *
 * @example
 * ```ts
 * const t: Tensor = new Float32Array([1, 2, 3]);
 * ```
 */
export type Tensor = HostArray | TfTensor;

/** A tensor's data as the engine takes it, and how to turn a result back into its kind. */
export interface TensorView {
  /** The TypedArray itself, or a copy of a tfjs tensor's data. */
  readonly data: HostArray;
  readonly dtype: DtypeName;
  /** The tfjs tensor's shape, or `[length]`. */
  readonly shape: readonly number[];
  /** The tfjs dtype, or undefined for a TypedArray. */
  readonly tfDtype: 'float32' | 'int32' | 'bool' | undefined;
}

const tfDtypes = { float32: 'float32', int32: 'int32', bool: 'uint8' } as const;

/**
 * True for a TensorFlow.js tensor (recognised by shape, so any copy of tfjs works).
 *
 * @example
 * ```ts
 * isTfTensor(tf.zeros([2])); // true
 * ```
 */
export function isTfTensor(value: unknown): value is TfTensor {
  const t = value as Partial<TfTensor> | null;
  return typeof t === 'object' && t !== null && typeof t.dataSync === 'function' && Array.isArray(t.shape);
}

/**
 * Checks a tensor argument and views its data. A tfjs tensor's data is copied out; float32,
 * int32 and bool tfjs tensors are accepted.
 *
 * @example
 * ```ts
 * viewTensor(new Int32Array(3), 'tensor').dtype; // 'int32'
 * ```
 */
export function viewTensor(value: unknown, name: string): TensorView {
  if (isTfTensor(value)) {
    const tfDtype = value.dtype as keyof typeof tfDtypes;
    if (!(tfDtype in tfDtypes) || value.isDisposed) {
      const what = 'an undisposed tf.Tensor of dtype float32, int32 or bool';
      throw invalidArgument({ what, name, value: value.isDisposed ? 'a disposed tensor' : `a ${value.dtype} tensor` });
    }
    // A copy: the CPU backend's dataSync() returns the tensor's own storage.
    const data = (value.dataSync() as Float32Array).slice() as HostArray;
    const fixed = tfDtype === 'bool' ? Uint8Array.from(data as Uint8Array) : data;
    return { data: fixed, dtype: tfDtypes[tfDtype], shape: value.shape, tfDtype };
  }
  if (!ArrayBuffer.isView(value)) {
    throw invalidArgument({ what: 'a TypedArray or a tf.Tensor', name, value });
  }
  const dtype = dtypeOf(value, name);
  return { data: value as HostArray, dtype, shape: [(value as HostArray).length], tfDtype: undefined };
}

/**
 * Delivers `result` for `original`: copied into a TypedArray (unless it is the same array), or
 * as a new tfjs tensor of the original's shape and dtype.
 *
 * @example
 * ```ts
 * const out = await deliver(view, original, reduced);
 * ```
 */
export async function deliver<T extends Tensor>(original: T, view: TensorView, result: HostArray): Promise<T> {
  if (view.tfDtype === undefined) {
    if (result !== original) (original as unknown as { set(a: ArrayLike<unknown>): void }).set(result as ArrayLike<unknown>);
    return original;
  }
  const tf = await loadTf();
  return tf.tensor(result as Float32Array, [...view.shape], view.tfDtype) as T;
}

/**
 * Number of elements of a tensor (its length, or a tfjs tensor's size).
 *
 * @example
 * ```ts
 * numel(new Float32Array(6)); // 6
 * ```
 */
export function numel(value: Tensor): number {
  return isTfTensor(value) ? value.size : value.length;
}

const arrayClasses = {
  float32: Float32Array,
  float64: Float64Array,
  int32: Int32Array,
  int64: BigInt64Array,
  uint8: Uint8Array,
  int8: Int8Array,
  float16: Uint16Array,
} as const;

/**
 * A new zeroed array of `dtype` (float16 as a Uint16Array of bits).
 *
 * @example
 * ```ts
 * allocate('int64', 2); // BigInt64Array [0n, 0n]
 * ```
 */
export function allocate(dtype: DtypeName, length: number): HostArray {
  return new arrayClasses[dtype](length);
}
