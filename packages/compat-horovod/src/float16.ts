const twoPow24 = 2 ** 24;
const smallestNormal = 2 ** -14;
/** Halfway between the largest half (65504) and 65536: this and above round to infinity. */
const overflow = 65520;

function roundHalfEven(value: number): number {
  const floor = Math.floor(value);
  const rest = value - floor;
  if (rest !== 0.5) return rest < 0.5 ? floor : floor + 1;
  return floor % 2 === 0 ? floor : floor + 1;
}

/**
 * The IEEE 754 half-precision bits nearest to `value` (round half to even, as a C cast or
 * `torch.half()`): overflow gives ±infinity, tiny values become subnormals or ±0, NaN stays NaN.
 * A float64 is rounded once, directly, not through float32.
 *
 * @example
 * ```ts
 * toFloat16Bits(1);       // 0x3c00
 * toFloat16Bits(65504);   // 0x7bff
 * toFloat16Bits(-2 ** -24); // 0x8001
 * ```
 */
export function toFloat16Bits(value: number): number {
  if (Number.isNaN(value)) return 0x7e00;
  const sign = value < 0 || Object.is(value, -0) ? 0x8000 : 0;
  const a = Math.abs(value);
  if (a >= overflow) return sign | 0x7c00;
  // Scaling by powers of two is exact, so each branch rounds exactly once.
  if (a < smallestNormal) return sign | roundHalfEven(a * twoPow24);
  let exponent = Math.floor(Math.log2(a));
  if (2 ** exponent > a) exponent -= 1;
  else if (2 ** (exponent + 1) <= a) exponent += 1;
  const mantissa = roundHalfEven((a / 2 ** exponent) * 1024);
  // A mantissa rounded up to 2048 carries into the exponent, which is the right result.
  return sign | (((exponent + 15) << 10) + (mantissa - 1024));
}

/**
 * The number that half-precision `bits` encode (exact: every half is a float32 and a double).
 *
 * @example
 * ```ts
 * fromFloat16Bits(0x3c00); // 1
 * fromFloat16Bits(0x0001); // 2 ** -24
 * ```
 */
export function fromFloat16Bits(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa === 0 ? sign * Infinity : NaN;
  return sign * (1024 + mantissa) * 2 ** (exponent - 25);
}
