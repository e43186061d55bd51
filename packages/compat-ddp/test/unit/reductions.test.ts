import { describe, expect, it } from 'vitest';
import { assignBuckets, firstBucketBytes } from '../../src/ddp/bucket-assignment.js';
import { halfToNumber, numberToHalf } from '../../src/float16.js';
import { checkReduceDtype, reduceChunks } from '../../src/local-reduce.js';

describe('reduceChunks', () => {
  it('reduces bitwise ops in rank order and wraps to the dtype', () => {
    const chunks = [Int8Array.of(6, -1, 100), Int8Array.of(3, 5, 100)];
    expect(Array.from(reduceChunks(chunks, { op: 'band', dtype: 'int8' }))).toEqual([2, 5, 100]);
    expect(Array.from(reduceChunks(chunks, { op: 'bor', dtype: 'int8' }))).toEqual([7, -1, 100]);
    expect(Array.from(reduceChunks(chunks, { op: 'bxor', dtype: 'int8' }))).toEqual([5, -6, 0]);
    expect(Array.from(reduceChunks(chunks, { op: 'sum', dtype: 'int8' }))).toEqual([9, 4, -56]);
    expect(Array.from(reduceChunks([BigInt64Array.of(-7n), BigInt64Array.of(2n)], { op: 'avg', dtype: 'int64' }))).toEqual([-2n]);
  });

  it('averages as sum times 1/count, truncating integers and rounding float16 through float32', () => {
    expect(Array.from(reduceChunks([Int32Array.of(-7), Int32Array.of(0)], { op: 'avg', dtype: 'int32' }))).toEqual([-3]);
    expect(Array.from(reduceChunks([Float32Array.of(1), Float32Array.of(1), Float32Array.of(5)], { op: 'avg', dtype: 'float32' }))).toEqual([Math.fround(7 * (1 / 3))]);
    const halves = [Uint16Array.of(numberToHalf(1)), Uint16Array.of(numberToHalf(2))];
    expect(Array.from(reduceChunks(halves, { op: 'product', dtype: 'float16' }), halfToNumber)).toEqual([2]);
  });

  it("throws torch's message for bitwise reductions of floating-point dtypes", () => {
    expect(() => checkReduceDtype('bxor', 'float32')).toThrow('Cannot use ReduceOp.BXOR with non-integral dtype');
    expect(() => checkReduceDtype('band', 'float16')).toThrow('Cannot use ReduceOp.BAND with non-integral dtype');
    expect(() => checkReduceDtype('avg', 'int8')).not.toThrow();
  });
});

describe('float16 bits', () => {
  it('round to nearest even, with subnormals and infinities', () => {
    expect(numberToHalf(1)).toBe(0x3c00);
    expect(numberToHalf(-2.5)).toBe(0xc100);
    expect(numberToHalf(1 + 2 ** -11)).toBe(0x3c00); // a tie rounds to even
    expect(numberToHalf(1 + 3 * 2 ** -11)).toBe(0x3c02);
    expect(numberToHalf(2 ** -24)).toBe(1);
    expect(numberToHalf(70000)).toBe(0x7c00);
    expect(halfToNumber(0x7bff)).toBe(65504);
    expect(halfToNumber(0xfc00)).toBe(-Infinity);
  });
});

describe('assignBuckets', () => {
  const mib = 1024 * 1024;
  const param = (index: number, bytes: number, dtype = 'float32') => ({ index, bytes, dtype });

  it('fills buckets in reverse registration order, the first up to 1 MiB and then up to the cap', () => {
    expect(firstBucketBytes).toBe(mib);
    const params = [param(0, 3 * mib), param(1, 600 * 1024), param(2, 600 * 1024), param(3, 100), param(4, 2 * mib)];
    expect(assignBuckets(params, { capBytes: 25 * mib })).toEqual([[4], [3, 2, 1, 0]]);
    expect(assignBuckets(params, { capBytes: mib })).toEqual([[4], [3, 2, 1], [0]]);
  });

  it('keeps one open bucket per dtype and puts the unfilled ones last, by dtype seen first', () => {
    const params = [param(0, 8, 'float32'), param(1, 8, 'int32'), param(2, 2 * mib, 'float32')];
    expect(assignBuckets(params, { capBytes: mib })).toEqual([[2], [0], [1]]);
  });
});
