import { DistributedSampler as CoreSampler, invalidArgument } from '@kolo/core';
import { getRank, getWorldSize } from './groups.js';
import { valueError } from './torch-errors.js';

/**
 * Options of {@link DistributedSampler}, with torch's defaults.
 *
 * @example
 * ```ts
 * new DistributedSampler(dataset, { shuffle: true, seed: 42, dropLast: false } satisfies DistributedSamplerOptions);
 * ```
 */
export interface DistributedSamplerOptions {
  /** Number of ranks sharing the dataset; default `getWorldSize()`. */
  readonly numReplicas?: number;
  /** This rank's share; default `getRank()`. */
  readonly rank?: number;
  /** Shuffle each epoch with torch's generator seeded with seed + epoch; default true. */
  readonly shuffle?: boolean;
  /** Base seed, equal on every rank; default 0. */
  readonly seed?: number;
  /** Drop the tail instead of padding; default false. */
  readonly dropLast?: boolean;
}

/** Anything with a length: an array, a TypedArray, or `{ length }`; or the length itself. */
export type SizedDataset =
  | number
  | {
      /** The number of samples. */
      readonly length: number;
    };

function lengthOf(dataset: unknown): number {
  const n = typeof dataset === 'number' ? dataset : (dataset as { length?: unknown } | null)?.length;
  if (!Number.isSafeInteger(n) || (n as number) < 0) {
    throw invalidArgument({ what: 'a dataset with a length, or a non-negative integer length', name: 'dataset', value: dataset });
  }
  return n as number;
}

/**
 * torch's `DistributedSampler(dataset, num_replicas, rank, shuffle=True, seed=0,
 * drop_last=False)`, index for index: the shuffle is torch's CPU `randperm` (MT19937 seeded with
 * seed + epoch), the tail is padded by repeating from the start (or dropped), and rank r takes
 * every numReplicas-th index from position r. Call `setEpoch(epoch)` before each epoch.
 *
 * @example
 * ```ts
 * const sampler = new DistributedSampler(10, { numReplicas: 3, rank: 0, shuffle: false });
 * sampler.indices(); // [0, 3, 6, 9]
 * ```
 */
export class DistributedSampler extends CoreSampler {
  constructor(dataset: SizedDataset, options: DistributedSamplerOptions = {}) {
    const datasetLength = lengthOf(dataset);
    const numReplicas = options.numReplicas ?? getWorldSize();
    const rank = options.rank ?? getRank();
    if (Number.isInteger(numReplicas) && Number.isInteger(rank) && (rank < 0 || rank >= numReplicas)) {
      throw valueError(`Invalid rank ${rank}, rank should be in the interval [0, ${numReplicas - 1}]`);
    }
    super({ ...options, datasetLength, numReplicas, rank });
  }
}
