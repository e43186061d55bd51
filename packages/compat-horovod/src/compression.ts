import type { HostArray } from '@kolo/core';
import { fromFloat16Bits, toFloat16Bits } from './float16.js';

/** What `decompress` needs to undo `compress`: the original float dtype, or null for none. */
export type CompressionContext = 'float32' | 'float64' | null;

/**
 * Horovod's compressor interface: shrink a tensor before a collective and restore it after.
 *
 * @example
 * ```ts
 * const [wire, ctx] = hvd.Compression.fp16.compress(grad);
 * const back = hvd.Compression.fp16.decompress(wire, ctx);
 * ```
 */
export interface Compressor {
  /** Returns the array to send and the context `decompress` needs. */
  compress(tensor: HostArray): [HostArray, CompressionContext];
  /** Restores an array produced by `compress` (or a collective's result on it). */
  decompress(tensor: HostArray, ctx: CompressionContext): HostArray;
}

const none: Compressor = {
  compress: (tensor) => [tensor, null],
  decompress: (tensor) => tensor,
};

const fp16: Compressor = {
  compress(tensor) {
    if (tensor instanceof Float32Array || tensor instanceof Float64Array) {
      const ctx = tensor instanceof Float32Array ? 'float32' : 'float64';
      return [Uint16Array.from(tensor, toFloat16Bits), ctx];
    }
    // Integers, and Uint16Array (already float16), travel unchanged, as in Horovod.
    return [tensor, null];
  },
  decompress(tensor, ctx) {
    if (ctx === null) return tensor;
    const halves = tensor as Uint16Array;
    return ctx === 'float32'
      ? Float32Array.from(halves, fromFloat16Bits)
      : Float64Array.from(halves, fromFloat16Bits);
  },
};

/**
 * Horovod's `Compression`: `none` (the default) and `fp16`, which sends Float32Array and
 * Float64Array data as float16 (a Uint16Array of half bits, rounded to nearest even) and
 * restores the original type afterwards; other arrays pass through unchanged.
 *
 * @example
 * ```ts
 * const mean = await hvd.allreduce(grad, { compression: hvd.Compression.fp16 });
 * ```
 */
export const Compression: {
  /** Sends tensors as they are (the default). */
  readonly none: Compressor;
  /** Sends Float32Array and Float64Array as float16 and restores the dtype after. */
  readonly fp16: Compressor;
} = {
  none,
  fp16,
};
