import { invalidArgument } from '@kolo/core';
import { valueError } from './horovod-errors.js';
import { validShape } from './tensor-io.js';

/** Horovod's alltoall argument messages, reproduced word for word. */
export const alltoallMessages = {
  /** splits is not one-dimensional. */
  notOneD: 'alltoall expects a 1D splits tensor',
  /** splits is not an Int32Array or int32 tensor. */
  notInt32: 'alltoall expects splits to contain 32-bit integer elements.',
  /** splits asks for more rows than the tensor has. */
  tooMany: 'Sum of splits entries is greater than the first dimension of tensor.',
  /** No splits, and the rows do not divide evenly among the ranks. */
  notEven:
    'splits not provided, but first dimension of tensor is not an even multiple of the number of workers.',
  /** splits has not one entry per rank. */
  wrongCount: 'Number of entries in splits does not equal number of workers.',
} as const;

/** What to send: the checked splits and how many leading elements of the tensor they cover. */
export interface PlannedSplits {
  readonly splits: number[] | undefined;
  /** Elements of the tensor that are sent (rows past the splits' sum stay home, as in Horovod). */
  readonly length: number;
  /** The shape of the part sent, or the caller's shape when nothing is cut. */
  readonly shape: readonly number[] | undefined;
}

function entries(splits: unknown): number[] {
  if (splits instanceof Int32Array) return Array.from(splits);
  if (ArrayBuffer.isView(splits)) throw valueError(alltoallMessages.notInt32, 'type');
  if (!Array.isArray(splits) || splits.some((s) => typeof s === 'object' && s !== null)) {
    throw valueError(alltoallMessages.notOneD, 'type');
  }
  if (!splits.every((s) => Number.isInteger(s) && s >= -(2 ** 31) && s < 2 ** 31)) {
    throw valueError(alltoallMessages.notInt32, 'type');
  }
  return splits as number[];
}

/**
 * Checks Horovod's alltoall `splits` (rows of the first dimension sent to each rank) against the
 * tensor, with Horovod's messages, before anything is sent.
 *
 * @example
 * ```ts
 * planSplits([1, 2], { size: 2, length: 4 }); // { splits: [1, 2], length: 3, shape: [3] }
 * ```
 */
export function planSplits(
  splits: unknown,
  tensor: { readonly size: number; readonly length: number; readonly shape?: unknown },
): PlannedSplits {
  const given = tensor.shape as number[] | undefined;
  // A malformed shape is passed on untouched for core to reject with its own message.
  if (given !== undefined && !validShape(given, tensor.length)) {
    return { splits: splits as number[] | undefined, length: tensor.length, shape: given };
  }
  const dims = given ?? [tensor.length];
  const rows = dims[0] ?? 0;
  const rowLength = rows === 0 ? 0 : tensor.length / rows;
  if (splits === undefined || splits === null) {
    if (rows % tensor.size !== 0) throw valueError(alltoallMessages.notEven, 'range');
    return { splits: undefined, length: tensor.length, shape: given };
  }
  const list = entries(splits);
  if (list.length !== tensor.size) throw valueError(alltoallMessages.wrongCount, 'range');
  if (list.some((s) => s < 0)) {
    throw invalidArgument({
      what: 'non-negative entries',
      name: 'splits',
      value: list,
      kind: 'range',
    });
  }
  const sum = list.reduce((a, b) => a + b, 0);
  if (sum > rows) throw valueError(alltoallMessages.tooMany, 'range');
  if (sum === rows) return { splits: list, length: tensor.length, shape: given };
  return { splits: list, length: sum * rowLength, shape: [sum, ...dims.slice(1)] };
}
