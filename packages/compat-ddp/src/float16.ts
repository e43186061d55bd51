const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/**
 * The value of IEEE half-precision bits (how a Uint16Array carries float16 in Kolo).
 *
 * @example
 * ```ts
 * halfToNumber(0x3c00); // 1
 * ```
 */
export function halfToNumber(bits: number): number {
  const exp = (bits >> 10) & 0x1f;
  const mant = bits & 0x3ff;
  const sign = bits & 0x8000 ? -1 : 1;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant === 0 ? sign * Infinity : NaN;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/**
 * The nearest half-precision bits of `value` (round to nearest, ties to even; overflow gives
 * infinity), rounding through float32 first as the engine's float32 staging does.
 *
 * @example
 * ```ts
 * numberToHalf(1); // 0x3c00
 * ```
 */
export function numberToHalf(value: number): number {
  f32[0] = value;
  const bits = u32[0] ?? 0;
  const sign = (bits >>> 16) & 0x8000;
  const exp = (bits >>> 23) & 0xff;
  const mant = bits & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    const full = mant | 0x800000;
    const shift = 14 - e;
    return sign | roundShift(full, shift);
  }
  return sign | ((e << 10) + roundShift(mant, 13));
}

/** `value >> shift`, rounded to nearest with ties to even (a carry may spill into the exponent). */
function roundShift(value: number, shift: number): number {
  const kept = value >>> shift;
  const rest = value - kept * 2 ** shift;
  const half = 2 ** (shift - 1);
  return rest > half || (rest === half && (kept & 1) === 1) ? kept + 1 : kept;
}
