const f = Math.fround;
/** Bits set for a value at or above +threshold (`11`) and at or below -threshold (`10`), by slot in a byte. */
const posBits = [0xc0, 0x30, 0x0c, 0x03];
const negBits = [0x80, 0x20, 0x08, 0x02];

/**
 * MXNet's 2-bit quantization of one element, in float32 arithmetic: the gradient is added to the
 * residual; a residual >= threshold sends +1 and keeps `residual - threshold`, one <= -threshold
 * sends -1 and keeps `residual + threshold`, anything else sends 0 and keeps the residual.
 * Returns the code and updates `residual[i]`.
 *
 * @example
 * ```ts
 * const residual = Float32Array.of(0.25);
 * quantizeElement(Float32Array.of(0.5), residual, 0, 0.5); // 1, residual[0] becomes 0.25
 * ```
 */
export function quantizeElement(grad: Float32Array, residual: Float32Array, i: number, threshold: number): -1 | 0 | 1 {
  const t = f(threshold);
  const r = f((residual[i] ?? 0) + (grad[i] ?? 0));
  if (r >= t) {
    residual[i] = f(r - t);
    return 1;
  }
  if (r <= -t) {
    residual[i] = f(r + t);
    return -1;
  }
  residual[i] = r;
  return 0;
}

/**
 * MXNet's `quantize_2bit`: packs 16 values per float32 (4 per byte, the first value in the two
 * highest bits), `11` for +threshold, `10` for -threshold, `00` for zero, accumulating what was
 * not sent in `residual` (error feedback). Returns `ceil(n / 16)` floats of packed bits.
 *
 * @example
 * ```ts
 * const packed = quantize2Bit(Float32Array.of(0.25, 0.5, -0.75, 1.5), new Float32Array(4), 0.5);
 * new Uint8Array(packed.buffer)[0]; // 0x3b: 00 11 10 11
 * ```
 */
export function quantize2Bit(grad: Float32Array, residual: Float32Array, threshold: number): Float32Array {
  const packed = new Float32Array(Math.ceil(grad.length / 16));
  const bytes = new Uint8Array(packed.buffer);
  for (let i = 0; i < grad.length; i++) {
    const code = quantizeElement(grad, residual, i, threshold);
    const byte = (i >> 4) * 4 + ((i & 15) >> 2);
    if (code === 1) bytes[byte] = (bytes[byte] ?? 0) | (posBits[i & 3] ?? 0);
    if (code === -1) bytes[byte] = (bytes[byte] ?? 0) | (negBits[i & 3] ?? 0);
  }
  return packed;
}

/**
 * MXNet's `dequantize_2bit`: expands `size` values from packed bits into +threshold, -threshold
 * or 0.
 *
 * @example
 * ```ts
 * dequantize2Bit(packed, 4, 0.5); // Float32Array [0, 0.5, -0.5, 0.5]
 * ```
 */
export function dequantize2Bit(packed: Float32Array, size: number, threshold: number): Float32Array {
  const t = f(threshold);
  const bytes = new Uint8Array(packed.buffer, packed.byteOffset, packed.byteLength);
  const out = new Float32Array(size);
  for (let i = 0; i < size; i++) {
    const bits = (bytes[(i >> 4) * 4 + ((i & 15) >> 2)] ?? 0) & (posBits[i & 3] ?? 0);
    out[i] = bits === posBits[i & 3] ? t : bits === negBits[i & 3] ? -t : 0;
  }
  return out;
}

/**
 * The same quantization as {@link quantize2Bit}, one signed code per element (-1, 0, +1) in an
 * Int8Array or Int32Array: codes of several workers can then be summed by an integer allreduce
 * and scaled by the threshold once, which equals summing the dequantized values.
 *
 * @example
 * ```ts
 * quantize2BitCodes(Float32Array.of(0.25, 0.5, -0.75), new Float32Array(3), 0.5, Int8Array); // Int8Array [0, 1, -1]
 * ```
 */
export function quantize2BitCodes<T extends Int8Array | Int32Array>(
  grad: Float32Array,
  residual: Float32Array,
  threshold: number,
  Codes: { new (length: number): T },
): T {
  const codes = new Codes(grad.length);
  for (let i = 0; i < grad.length; i++) codes[i] = quantizeElement(grad, residual, i, threshold);
  return codes;
}
