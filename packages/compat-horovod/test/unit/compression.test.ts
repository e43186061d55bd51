import { describe, expect, it } from 'vitest';
import { Compression, fromFloat16Bits, toFloat16Bits } from '../../src/index.js';

describe('float16 bits', () => {
  it('rounds to the nearest half, ties to even, with overflow, subnormals, zeros and NaN', () => {
    const cases: [number, number][] = [
      [1, 0x3c00],
      [-2, 0xc000],
      [0.1, 0x2e66],
      [1 / 3, 0x3555],
      [65504, 0x7bff],
      [65519.99, 0x7bff],
      [65520, 0x7c00],
      [Infinity, 0x7c00],
      [-Infinity, 0xfc00],
      [1 + 2 ** -11, 0x3c00], // tie, mantissa 0 is even
      [1 + 3 * 2 ** -11, 0x3c02], // tie, rounds up to the even mantissa 2
      [2 ** -14, 0x0400], // smallest normal
      [2 ** -14 - 2 ** -25, 0x0400], // tie between the largest subnormal and the smallest normal
      [2 ** -24, 0x0001], // smallest subnormal
      [2 ** -25, 0x0000], // tie with zero, rounds to even (zero)
      [3 * 2 ** -25, 0x0002],
      [0, 0x0000],
      [-0, 0x8000],
      [NaN, 0x7e00],
    ];
    expect(cases.map(([v]) => toFloat16Bits(v))).toEqual(cases.map(([, bits]) => bits));
  });

  it('decodes every class of half exactly', () => {
    const bits = [0x3c00, 0x3555, 0x7bff, 0x0001, 0x03ff, 0x7c00, 0xfc00, 0x8000];
    expect(bits.map(fromFloat16Bits)).toEqual([1, 0.333251953125, 65504, 2 ** -24, 1023 * 2 ** -24, Infinity, -Infinity, -0]);
    expect(fromFloat16Bits(0x7e00)).toBeNaN();
  });

  it('round-trips all 63488 finite halves', () => {
    const finite = Array.from({ length: 0x10000 }, (_, b) => b).filter((b) => (b & 0x7c00) !== 0x7c00);
    expect(finite.filter((b) => toFloat16Bits(fromFloat16Bits(b)) !== b)).toEqual([]);
    expect(finite).toHaveLength(63488);
  });
});

describe('Compression', () => {
  it('fp16 sends float32 as half bits and restores a Float32Array', () => {
    const [wire, ctx] = Compression.fp16.compress(new Float32Array([1, 0.1, -65504, 1e-8]));
    expect([wire.constructor.name, Array.from(wire as Uint16Array), ctx]).toEqual(['Uint16Array', [0x3c00, 0x2e66, 0xfbff, 0x0000], 'float32']);
    const back = Compression.fp16.decompress(wire, ctx);
    expect([back.constructor.name, Array.from(back as Float32Array)]).toEqual(['Float32Array', [1, 0.0999755859375, -65504, 0]]);
  });

  it('fp16 rounds float64 once, directly (not through float32)', () => {
    const value = 1 + 2 ** -11 + 2 ** -40; // float32 would round it to the tie 1 + 2^-11, then to 1
    const [wire, ctx] = Compression.fp16.compress(new Float64Array([value]));
    expect([Array.from(wire as Uint16Array), ctx]).toEqual([[0x3c01], 'float64']);
    expect(Compression.fp16.decompress(wire, ctx)).toEqual(new Float64Array([1 + 2 ** -10]));
  });

  it('fp16 and none leave integers and float16 data as they are', () => {
    for (const tensor of [new Int32Array([1, 2]), new BigInt64Array([3n]), new Uint16Array([0x3c00])]) {
      const [wire, ctx] = Compression.fp16.compress(tensor);
      expect([wire === tensor, ctx, Compression.fp16.decompress(wire, ctx) === tensor]).toEqual([true, null, true]);
    }
    const x = new Float32Array([0.1]);
    const [wire, ctx] = Compression.none.compress(x);
    expect([wire === x, ctx, Compression.none.decompress(wire, ctx) === x]).toEqual([true, null, true]);
  });
});
