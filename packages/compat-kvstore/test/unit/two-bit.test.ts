import { describe, expect, it } from 'vitest';
import { Compressor, dequantize2Bit, quantize2Bit, quantize2BitCodes } from '../../src/index.js';
import { parseCompression } from '../../src/gradient-compression.js';

// Hand-computed with threshold t = 0.5 (every value is exact in float32). MXNet's rule per
// element: r += g; r >= t -> send +t (bits 11), r -= t; r <= -t -> send -t (bits 10), r += t;
// else send 0 (bits 00). Four values per byte, first value in the two highest bits.
const grad = Float32Array.of(0.25, 0.5, -0.75, 1.5, -0.25, 0, 2, -2);

describe("MXNet's 2-bit quantization", () => {
  it('packs the first step and keeps what was not sent as the residual', () => {
    const residual = new Float32Array(8);
    const packed = quantize2Bit(grad, residual, 0.5);
    // codes 0, +, -, + | 0, 0, +, -  ->  00 11 10 11 = 0x3b | 00 00 11 10 = 0x0e
    expect(Array.from(new Uint8Array(packed.buffer))).toEqual([0x3b, 0x0e, 0, 0]);
    expect(Array.from(residual)).toEqual([0.25, 0, -0.25, 1, -0.25, 0, 1.5, -1.5]);
    expect(Array.from(dequantize2Bit(packed, 8, 0.5))).toEqual([0, 0.5, -0.5, 0.5, 0, 0, 0.5, -0.5]);
  });

  it('adds the residual to the next gradient (error feedback)', () => {
    const residual = Float32Array.of(0.25, 0, -0.25, 1, -0.25, 0, 1.5, -1.5);
    const packed = quantize2Bit(grad, residual, 0.5);
    // r + g = 0.5, 0.5, -1, 2.5, -0.5, 0, 3.5, -3.5 -> codes +, +, -, + | -, 0, +, -
    expect(Array.from(new Uint8Array(packed.buffer))).toEqual([0xfb, 0x8e, 0, 0]);
    expect(Array.from(residual)).toEqual([0, 0, -0.5, 2, 0, 0, 3, -3]);
    expect(Array.from(dequantize2Bit(packed, 8, 0.5))).toEqual([0.5, 0.5, -0.5, 0.5, -0.5, 0, 0.5, -0.5]);
  });

  it('uses one float of 16 values per block; the 17th value starts the second block', () => {
    const g = new Float32Array(17).fill(0);
    g[15] = -1;
    g[16] = 1;
    const packed = quantize2Bit(g, new Float32Array(17), 0.5);
    expect(packed.length).toBe(2);
    expect(Array.from(new Uint8Array(packed.buffer))).toEqual([0, 0, 0, 0x02, 0xc0, 0, 0, 0]);
    expect(Array.from(dequantize2Bit(packed, 17, 0.5)).slice(14)).toEqual([0, -0.5, 0.5]);
  });

  it('gives the same codes and residuals as signed integers', () => {
    const residual = new Float32Array(8);
    expect(Array.from(quantize2BitCodes(grad, residual, 0.5, Int8Array))).toEqual([0, 1, -1, 1, 0, 0, 1, -1]);
    expect(Array.from(residual)).toEqual([0.25, 0, -0.25, 1, -0.25, 0, 1.5, -1.5]);
  });

  it('compares in float32: 0.1 + 0.2 reaches a threshold of 0.3 only as float32 does', () => {
    const residual = Float32Array.of(0.1);
    expect(Array.from(quantize2BitCodes(Float32Array.of(0.2), residual, 0.3, Int8Array))).toEqual([1]);
    expect(residual[0]).toBe(Math.fround(Math.fround(Math.fround(0.1) + Math.fround(0.2)) - Math.fround(0.3)));
  });
});

describe('Compressor', () => {
  it('2bit: summed codes of several workers decode to the sum of dequantized values', () => {
    const c = new Compressor('2bit', 0.5);
    const codes = c.encode('k', grad, 4);
    expect(codes).toBeInstanceOf(Int8Array);
    const twoWorkers = Int8Array.from(codes, (v) => 2 * v);
    expect(Array.from(c.decode(twoWorkers))).toEqual([0, 1, -1, 1, 0, 0, 1, -1]);
    expect(c.encode('wide', grad, 128)).toBeInstanceOf(Int32Array);
  });

  it('keeps one residual per slot', () => {
    const c = new Compressor('2bit', 0.5);
    expect(Array.from(c.roundTrip('a', Float32Array.of(0.25)))).toEqual([0]);
    expect(Array.from(c.roundTrip('b', Float32Array.of(0.25)))).toEqual([0]);
    expect(Array.from(c.roundTrip('a', Float32Array.of(0.25)))).toEqual([0.5]);
  });

  it('fp16 rounds to half precision', () => {
    const c = new Compressor('fp16', 0);
    expect(Array.from(c.encode('k', Float32Array.of(1, -2.5, 1 / 3), 2))).toEqual([0x3c00, 0xc100, 0x3555]);
    expect(Array.from(c.roundTrip('k', Float32Array.of(1 / 3)))).toEqual([0.333251953125]);
  });
});

describe('parseCompression', () => {
  it("defaults the 2-bit threshold to MXNet's 0.5 and accepts 'none'", () => {
    expect(parseCompression({ type: '2bit' }, 'dist')).toEqual(new Compressor('2bit', 0.5));
    expect(parseCompression({ type: 'none' }, 'local')).toBeUndefined();
  });

  it.each([
    [{ type: '2bit' }, 'local', 'UnsupportedError', "Gradient compression is not supported for this type of kvstore (local); use 'device' (several values per key in one process) or 'dist_sync_kolo'."],
    [{ type: '1bit' }, 'dist', 'UnsupportedError', "Gradient compression type '1bit' is not supported; use '2bit' (MXNet's threshold quantization with error feedback) or 'fp16'."],
    [{ type: '2bit', threshold: 0 }, 'dist', 'RangeError', 'Expected a number > 0 for threshold but received 0'],
    [{ type: 'fp16', threshold: 1 }, 'dist', 'TypeError', "Expected no threshold (it applies to type '2bit' only) for threshold but received 1"],
    [{ type: '3bit' }, 'dist', 'TypeError', "Expected one of '2bit', 'fp16', 'none' for type but received '3bit'"],
    [{ type: '2bit', treshold: 1 }, 'dist', 'TypeError', "Unknown option 'treshold' for setGradientCompression; did you mean 'threshold'?"],
  ] as const)('rejects %j on a %s store with %s', (params, kind, name, message) => {
    expect(() => parseCompression(params, kind)).toThrow(expect.objectContaining({ name, message }));
  });
});
