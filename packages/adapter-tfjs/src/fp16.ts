const scratch = new Float32Array(1);
const scratchBits = new Uint32Array(scratch.buffer);

/** Rounds one float32 (as bits) to the nearest IEEE half, ties to even; overflow becomes infinity. */
function halfBitsOf(bits: number): number {
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  const mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa === 0 ? 0 : 0x200);
  const halfExponent = exponent - 127 + 15;
  if (halfExponent >= 0x1f) return sign | 0x7c00;
  if (halfExponent <= 0) {
    // Subnormal half (or zero): shift the implicit leading 1 in, then round to nearest even.
    if (halfExponent < -11) return sign;
    const full = mantissa | 0x800000;
    const shift = 14 - halfExponent;
    const rounded = (full >>> shift) + roundBit(full, shift);
    return sign | rounded;
  }
  const rounded = ((halfExponent << 10) | (mantissa >>> 13)) + roundBit(mantissa, 13);
  return sign | rounded; // a carry into the exponent is the correct rounding, up to infinity
}

/** 1 when dropping the low `shift` bits of `value` must round up (nearest, ties to even). */
function roundBit(value: number, shift: number): number {
  const half = 1 << (shift - 1);
  const rest = value & ((1 << shift) - 1);
  if (rest > half) return 1;
  if (rest < half) return 0;
  return (value >>> shift) & 1;
}

/** The float32 value of one IEEE half (bits). */
function floatOfHalf(half: number): number {
  const sign = half & 0x8000 ? -1 : 1;
  const exponent = (half >>> 10) & 0x1f;
  const mantissa = half & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa === 0 ? sign * Infinity : NaN;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

/**
 * Converts float32 values to IEEE half-precision bits (round to nearest even), the wire format of
 * Kolo's `float16` dtype. Values beyond ±65504 become ±Infinity.
 *
 * @example
 * ```ts
 * float32ToHalfBits(new Float32Array([1, -2.5])); // Uint16Array [0x3c00, 0xc100]
 * ```
 */
export function float32ToHalfBits(
  values: Float32Array,
  output: Uint16Array = new Uint16Array(values.length),
): Uint16Array {
  for (let i = 0; i < values.length; i++) {
    scratch[0] = values[i] as number;
    output[i] = halfBitsOf(scratchBits[0] as number);
  }
  return output;
}

/**
 * Converts IEEE half-precision bits back to float32 values (exact).
 *
 * @example
 * ```ts
 * halfBitsToFloat32(new Uint16Array([0x3c00, 0xc100])); // Float32Array [1, -2.5]
 * ```
 */
export function halfBitsToFloat32(
  bits: Uint16Array,
  output: Float32Array = new Float32Array(bits.length),
): Float32Array {
  for (let i = 0; i < bits.length; i++) output[i] = floatOfHalf(bits[i] as number);
  return output;
}
