import { dtypeOf, invalidArgument, type HostArray } from '@kolo/core';

/**
 * A value as the store sees it: host data (not copied) and its logical shape.
 *
 * @example
 * ```ts
 * const view: HostView = { data: new Float32Array(6), shape: [2, 3] };
 * ```
 */
export interface HostView {
  /** The elements, row-major. */
  readonly data: HostArray;
  /** The logical shape; `[data.length]` for a TypedArray. */
  readonly shape: readonly number[];
}

/**
 * How a store reads values and writes results: TypedArrays always; the `/tfjs` entry adds
 * tfjs tensors (read) and variables (written).
 *
 * @example
 * ```ts
 * const view = typedArrayIO.read(new Float32Array(4), 'value'); // { data, shape: [4] }
 * ```
 */
export interface ValueIO {
  /** True for one value; false for anything else (e.g. a list of values). */
  isValue(value: unknown): boolean;
  /** Reads `value` without copying; throws a TypeError naming `name` for anything else. */
  read(value: unknown, name: string): HostView;
  /**
   * Checks now that `out` can receive arrays like `like` and returns a function that copies one
   * in; throws a TypeError naming `name` otherwise.
   */
  writer(out: unknown, like: HostArray, name: string): (data: HostArray) => void;
}

/**
 * Throws unless `data` has the dtype and length of `like`.
 *
 * @example
 * ```ts
 * expectLike(new Float32Array(3), new Float32Array(4), 'out'); // TypeError: Expected a Float32Array of 4 elements for out but received Float32Array(3)
 * ```
 */
export function expectLike(data: HostArray, like: HostArray, name: string): void {
  const dtype = dtypeOf(data, name);
  if (dtype !== dtypeOf(like, 'stored value') || data.length !== like.length) {
    throw invalidArgument({ what: `a ${like.constructor.name} of ${like.length} elements`, name, value: data });
  }
}

/**
 * Values and outputs as TypedArrays (Uint16Array = float16 bits); results are copied in place.
 *
 * @example
 * ```ts
 * const write = typedArrayIO.writer(out, stored, 'out');
 * write(stored); // out.set(stored)
 * ```
 */
export const typedArrayIO: ValueIO = {
  isValue: (value) => ArrayBuffer.isView(value),
  read(value, name) {
    dtypeOf(value, name);
    const data = value as HostArray;
    return { data, shape: [data.length] };
  },
  writer(out, like, name) {
    dtypeOf(out, name);
    const target = out as HostArray;
    expectLike(target, like, name);
    return (data) => (target as Float32Array).set(data as Float32Array);
  },
};
