const float = new Float32Array(1);
const bits = new Uint32Array(float.buffer);

/**
 * The IEEE 754 half-precision bits of `value`, rounded to nearest even (Kolo carries float16 in
 * a Uint16Array). Values beyond the half range become ±Infinity.
 *
 * @example
 * ```ts
 * toFloat16Bits(1);    // 0x3c00
 * toFloat16Bits(-2.5); // 0xc100
 * ```
 */
export function toFloat16Bits(value: number): number {
  float[0] = value;
  const x = bits[0] ?? 0;
  const sign = (x >>> 16) & 0x8000;
  const exponent = (x >>> 23) & 0xff;
  const mantissa = x & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa === 0 ? 0 : 0x200);
  const e = exponent - 112;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    const shift = 14 - e;
    const full = mantissa | 0x800000;
    return sign | roundShift(full, shift);
  }
  // A carry out of the mantissa correctly bumps the exponent (up to Infinity).
  return sign | ((e << 10) + roundShift(mantissa, 13));
}

function roundShift(value: number, shift: number): number {
  const kept = Math.floor(value / 2 ** shift);
  const rest = value - kept * 2 ** shift;
  const half = 2 ** (shift - 1);
  return rest > half || (rest === half && kept % 2 === 1) ? kept + 1 : kept;
}

/**
 * The number that half-precision `bits` encode.
 *
 * @example
 * ```ts
 * fromFloat16Bits(0x3c00); // 1
 * fromFloat16Bits(0x0001); // 5.960464477539063e-8 (the smallest subnormal)
 * ```
 */
export function fromFloat16Bits(bits16: number): number {
  const sign = bits16 & 0x8000 ? -1 : 1;
  const exponent = (bits16 >>> 10) & 0x1f;
  const mantissa = bits16 & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa === 0 ? sign * Infinity : NaN;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}
