import { expectFiniteNumber, expectOneOf, invalidArgument, UnsupportedError, type HostArray } from '@kolo/core';
import { fromFloat16Bits, toFloat16Bits } from './float16.js';
import { readOptions } from './options.js';
import type { StoreKind } from './store-type.js';
import { dequantize2Bit, quantize2Bit, quantize2BitCodes } from './two-bit.js';

/**
 * `setGradientCompression` parameters: MXNet's `{type: '2bit', threshold}` (default threshold
 * 0.5), AIACC-Training's fp16 communication (`{type: 'fp16'}`), or `{type: 'none'}` to turn
 * compression off.
 *
 * @example
 * ```ts
 * store.setGradientCompression({ type: '2bit', threshold: 0.5 } satisfies GradientCompressionParams);
 * ```
 */
export interface GradientCompressionParams {
  /** `2bit`: send -t, 0 or +t per element with error feedback; `fp16`: send half precision. */
  readonly type: '2bit' | 'fp16' | 'none';
  /** The 2-bit threshold t > 0; default 0.5, as MXNet. */
  readonly threshold?: number;
}

/**
 * Compresses float32 gradients of one store. Residuals (2-bit error feedback) live per key and
 * per value slot, as MXNet keeps one per key and device.
 *
 * @example
 * ```ts
 * const c = new Compressor('2bit', 0.5);
 * c.decode(c.encode('3', grad, 2)); // grad quantized to -0.5, 0 or 0.5
 * ```
 */
export class Compressor {
  private readonly residuals = new Map<string, Float32Array>();

  constructor(
    /** The compression. */
    readonly type: '2bit' | 'fp16',
    /** The 2-bit threshold (unused for fp16). */
    readonly threshold: number,
  ) {}

  /**
   * The array that goes on the wire for `data`: 2-bit codes (Int8Array while `workers` x 1 fits,
   * else Int32Array) or float16 bits. Updates the residual named `slot`.
   *
   * @example
   * ```ts
   * compressor.encode('3', Float32Array.of(0.75), 2); // Int8Array [1]
   * ```
   */
  encode(slot: string, data: Float32Array, workers: number): HostArray {
    if (this.type === 'fp16') return Uint16Array.from(data, toFloat16Bits);
    const residual = this.residual(slot, data.length);
    if (workers <= 127) return quantize2BitCodes(data, residual, this.threshold, Int8Array);
    return quantize2BitCodes(data, residual, this.threshold, Int32Array);
  }

  /**
   * The float32 values an encoded (and possibly summed) wire array stands for.
   *
   * @example
   * ```ts
   * compressor.decode(Int8Array.of(2, -1)); // Float32Array [1, -0.5] for threshold 0.5
   * ```
   */
  decode(wire: HostArray): Float32Array {
    if (this.type === 'fp16') return Float32Array.from(wire as Uint16Array, fromFloat16Bits);
    return Float32Array.from(wire as Int8Array, (code) => code * this.threshold);
  }

  /**
   * Quantizes and dequantizes `data` in this process (the `device` store's per-value path).
   *
   * @example
   * ```ts
   * compressor.roundTrip('3#0', Float32Array.of(0.75)); // Float32Array [0.5]
   * ```
   */
  roundTrip(slot: string, data: Float32Array): Float32Array {
    if (this.type === 'fp16') return this.decode(this.encode(slot, data, 1));
    return dequantize2Bit(quantize2Bit(data, this.residual(slot, data.length), this.threshold), data.length, this.threshold);
  }

  private residual(slot: string, length: number): Float32Array {
    let residual = this.residuals.get(slot);
    if (residual === undefined || residual.length !== length) {
      residual = new Float32Array(length);
      this.residuals.set(slot, residual);
    }
    return residual;
  }
}

/**
 * Validates `setGradientCompression` parameters for a store of `kind`; returns the compressor,
 * or undefined for `{type: 'none'}`.
 *
 * @example
 * ```ts
 * parseCompression({ type: '2bit' }, 'dist'); // Compressor { type: '2bit', threshold: 0.5 }
 * parseCompression({ type: '2bit' }, 'local'); // UnsupportedError: Gradient compression is not supported for this type of kvstore (local); …
 * ```
 */
export function parseCompression(params: unknown, kind: StoreKind): Compressor | undefined {
  const o = readOptions(params, 'setGradientCompression', ['type', 'threshold']);
  if (o.type === '1bit') {
    throw new UnsupportedError("Gradient compression type '1bit' is not supported; use '2bit' (MXNet's threshold quantization with error feedback) or 'fp16'.");
  }
  const type = expectOneOf(o.type, { name: 'type', choices: ['2bit', 'fp16', 'none'] as const });
  if (type === 'none') return undefined;
  if (kind === 'local' || kind === 'horovod') {
    throw new UnsupportedError(
      `Gradient compression is not supported for this type of kvstore (${kind}); use 'device' (several values per key in one process) or 'dist_sync_kolo'.`,
    );
  }
  if (type === 'fp16') {
    if (o.threshold !== undefined) throw invalidArgument({ what: "no threshold (it applies to type '2bit' only)", name: 'threshold', value: o.threshold });
    return new Compressor(type, 0);
  }
  const threshold = o.threshold === undefined ? 0.5 : expectFiniteNumber(o.threshold, 'threshold');
  if (threshold <= 0) throw invalidArgument({ what: 'a number > 0', name: 'threshold', value: threshold, kind: 'range' });
  return new Compressor(type, Math.fround(threshold));
}
