import { invalidArgument, type HostArray } from '@kolo/core';
import { Compression, type Compressor } from './compression.js';

/**
 * Checks a `compression` option (default `Compression.none`).
 *
 * @example
 * ```ts
 * const compressor = compressorOf(options.compression);
 * ```
 */
export function compressorOf(value: unknown): Compressor {
  if (value === undefined) return Compression.none;
  const c = value as Partial<Compressor> | null;
  if (typeof c?.compress !== 'function' || typeof c.decompress !== 'function') {
    throw invalidArgument({
      what: 'hvd.Compression.none, hvd.Compression.fp16 or another { compress, decompress }',
      name: 'compression',
      value,
    });
  }
  return c as Compressor;
}

/**
 * Copies `source` into `target` (same type and length) and returns `target`: how in-place
 * variants deliver a result computed elsewhere (e.g. after decompression).
 *
 * @example
 * ```ts
 * copyInto(grad, decompressed); // grad now holds the reduced values
 * ```
 */
export function copyInto<T extends HostArray>(target: T, source: HostArray): T {
  if (source !== target)
    (target as unknown as { set(a: ArrayLike<unknown>): void }).set(source as ArrayLike<unknown>);
  return target;
}

/**
 * Whether `value` is a well-formed shape for `length` elements; malformed ones are left for core
 * to reject with its message.
 *
 * @example
 * ```ts
 * validShape([2, 3], 6); // true
 * ```
 */
export function validShape(value: unknown, length: number): value is readonly number[] {
  return (
    Array.isArray(value) &&
    value.every((d) => Number.isSafeInteger(d) && (d as number) >= 0) &&
    (value as number[]).reduce((a, b) => a * b, 1) === length
  );
}
