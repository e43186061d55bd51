import type { HostArray } from '@kolo/native';

/**
 * The plain TypedArray class a result has for an input of type `T` (a Buffer input gives a
 * Uint8Array result).
 *
 * @example
 * ```ts
 * const out: SameKind<Float32Array> = await allreduce(new Float32Array(4));
 * ```
 */
export type SameKind<T extends HostArray> = T extends Float32Array
  ? Float32Array
  : T extends Float64Array
  ? Float64Array
  : T extends Int32Array
  ? Int32Array
  : T extends BigInt64Array
  ? BigInt64Array
  : T extends Int8Array
  ? Int8Array
  : T extends Uint16Array
  ? Uint16Array
  : Uint8Array;
