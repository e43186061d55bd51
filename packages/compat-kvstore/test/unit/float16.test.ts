import { describe, expect, it } from 'vitest';
import { fromFloat16Bits, toFloat16Bits } from '../../src/index.js';

describe('float16 bits', () => {
  it.each([
    [1, 0x3c00],
    [-2.5, 0xc100],
    [0, 0x0000],
    [65504, 0x7bff],
    [65520, 0x7c00], // rounds up past the largest half: Infinity
    [2 ** -24, 0x0001], // smallest subnormal
    [2 ** -25, 0x0000], // a tie rounds to even (zero)
    [1 + 2 ** -11, 0x3c00], // tie between 1 and 1 + 2^-10 rounds to even
    [1 + 3 * 2 ** -11, 0x3c02],
    [Infinity, 0x7c00],
  ])('%d becomes the bits %i', (value, bits) => {
    expect(toFloat16Bits(value)).toBe(bits);
  });

  it('reads back normals, subnormals, infinities and NaN', () => {
    expect([0x3c00, 0xc100, 0x0001, 0x7bff, 0xfc00].map(fromFloat16Bits)).toEqual([1, -2.5, 2 ** -24, 65504, -Infinity]);
    expect(fromFloat16Bits(0x7e00)).toBeNaN();
    expect(toFloat16Bits(NaN)).toBe(0x7e00);
  });
});
