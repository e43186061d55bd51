import { describe, expect, it } from 'vitest';
import { alltoallMessages, planSplits } from '../../src/alltoall-splits.js';

const failure = (splits: unknown, tensor: { size: number; length: number; shape?: number[] }) => {
  try {
    planSplits(splits, tensor);
  } catch (error) {
    const e = error as Error & { code?: string };
    return [e.name, e.code, e.message];
  }
  return 'no error';
};

describe("alltoall splits, checked with Horovod's messages", () => {
  const t = { size: 2, length: 8, shape: [4, 2] };

  it('refuses splits that are not a 1-D list of 32-bit integers', () => {
    expect(failure([[1], [1]], t)).toEqual(['TypeError', 'ERR_KOLO_INVALID_ARG', alltoallMessages.notOneD]);
    expect(failure(3, t)).toEqual(['TypeError', 'ERR_KOLO_INVALID_ARG', alltoallMessages.notOneD]);
    expect(failure(new Float32Array([2, 2]), t)).toEqual(['TypeError', 'ERR_KOLO_INVALID_ARG', alltoallMessages.notInt32]);
    expect(failure([1.5, 2.5], t)).toEqual(['TypeError', 'ERR_KOLO_INVALID_ARG', alltoallMessages.notInt32]);
    expect(failure([2 ** 31, 0], t)).toEqual(['TypeError', 'ERR_KOLO_INVALID_ARG', alltoallMessages.notInt32]);
  });

  it('refuses the wrong count, negative entries, too many rows and an uneven default split', () => {
    expect(failure([1, 1, 1], t)).toEqual(['RangeError', 'ERR_KOLO_INVALID_ARG', alltoallMessages.wrongCount]);
    expect(failure([-1, 2], t)).toEqual(['RangeError', 'ERR_KOLO_INVALID_ARG', 'Expected non-negative entries for splits but received [-1, 2]']);
    expect(failure(new Int32Array([3, 2]), t)).toEqual(['RangeError', 'ERR_KOLO_INVALID_ARG', alltoallMessages.tooMany]);
    expect(failure(undefined, { size: 2, length: 6, shape: [3, 2] })).toEqual(['RangeError', 'ERR_KOLO_INVALID_ARG', alltoallMessages.notEven]);
    expect(alltoallMessages).toEqual({
      notOneD: 'alltoall expects a 1D splits tensor',
      notInt32: 'alltoall expects splits to contain 32-bit integer elements.',
      tooMany: 'Sum of splits entries is greater than the first dimension of tensor.',
      notEven: 'splits not provided, but first dimension of tensor is not an even multiple of the number of workers.',
      wrongCount: 'Number of entries in splits does not equal number of workers.',
    });
  });

  it('sends only the rows the splits cover, and passes a malformed shape on for core to refuse', () => {
    expect(planSplits(new Int32Array([1, 2]), t)).toEqual({ splits: [1, 2], length: 6, shape: [3, 2] });
    expect(planSplits([2, 2], t)).toEqual({ splits: [2, 2], length: 8, shape: [4, 2] });
    expect(planSplits(undefined, { size: 2, length: 4 })).toEqual({ splits: undefined, length: 4, shape: undefined });
    expect(planSplits([9, 9], { size: 2, length: 8, shape: [3, 2] })).toEqual({ splits: [9, 9], length: 8, shape: [3, 2] });
  });
});
