import { describe, expect, it } from 'vitest';
import { float32ToHalfBits, halfBitsToFloat32 } from '../../src/fp16.js';

const bits = (values: number[]): number[] => Array.from(float32ToHalfBits(Float32Array.from(values)));

describe('float32ToHalfBits', () => {
  it('encodes exact values, signs, the largest half and infinities', () => {
    expect(bits([0, -0, 1, -2.5, 65504, Infinity, -Infinity])).toEqual([0x0000, 0x8000, 0x3c00, 0xc100, 0x7bff, 0x7c00, 0xfc00]);
  });

  it('rounds to nearest, ties to even, and overflows to infinity', () => {
    // 0.1 lies between 0x2e66 and 0x2e67, nearer the first; 1 + 2^-11 is a tie between 1 and 1 + 2^-10.
    expect(bits([0.1, 1 + 2 ** -11, 1 + 3 * 2 ** -11, 65519, 65520])).toEqual([0x2e66, 0x3c00, 0x3c02, 0x7bff, 0x7c00]);
  });

  it('encodes subnormals and flushes values below half the smallest one to zero', () => {
    expect(bits([2 ** -24, 3 * 2 ** -25, 2 ** -25, 1.5 * 2 ** -25, 2 ** -26, 2 ** -14])).toEqual([0x0001, 0x0002, 0x0000, 0x0001, 0x0000, 0x0400]);
  });

  it('encodes NaN as a quiet NaN', () => {
    expect(bits([NaN])).toEqual([0x7e00]);
  });
});

describe('halfBitsToFloat32', () => {
  it('round-trips every one of the 65,536 half values exactly (NaNs stay NaN)', () => {
    const all = Uint16Array.from({ length: 65536 }, (_, i) => i);
    const floats = halfBitsToFloat32(all);
    const back = float32ToHalfBits(floats);
    let wrong = 0;
    for (let i = 0; i < 65536; i++) {
      const isNaN = (i & 0x7c00) === 0x7c00 && (i & 0x3ff) !== 0;
      if (isNaN ? !Number.isNaN(floats[i]) : back[i] !== i) wrong++;
    }
    expect(wrong).toBe(0);
  });

  it('decodes into the given output', () => {
    const out = new Float32Array(2);
    expect(halfBitsToFloat32(Uint16Array.from([0x3c00, 0xc100]), out)).toBe(out);
    expect(Array.from(out)).toEqual([1, -2.5]);
  });
});
