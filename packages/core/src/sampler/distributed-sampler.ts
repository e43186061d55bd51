import { rank as currentRank, size as currentSize } from '../runtime/topology.js';
import { checkOptions } from '../validation/check-options.js';
import { expectInteger } from '../validation/checks.js';
import { invalidArgument } from '../validation/invalid-argument.js';
import { randperm } from './randperm.js';

/**
 * Options of {@link DistributedSampler}, with torch's defaults.
 *
 * @example
 * ```ts
 * new DistributedSampler({ datasetLength: 50_000, seed: 1, dropLast: true });
 * ```
 */
export interface DistributedSamplerOptions {
  /** Number of samples in the dataset. */
  readonly datasetLength: number;
  /** Number of ranks sharing the dataset; default `size()`. */
  readonly numReplicas?: number;
  /** This rank's share; default `rank()`. */
  readonly rank?: number;
  /** Shuffle every epoch (seeded with `seed + epoch`); default true. */
  readonly shuffle?: boolean;
  /** Base seed; must be equal on every rank. Default 0. */
  readonly seed?: number;
  /** Drop the tail so every rank gets the same count without padding; default false. */
  readonly dropLast?: boolean;
}

const allowed = ['datasetLength', 'numReplicas', 'rank', 'shuffle', 'seed', 'dropLast'];

/**
 * torch's `DistributedSampler`: splits dataset indices across ranks, every rank the same count.
 * Without `dropLast`, pads by repeating indices from the start; with it, drops the tail. Rank r
 * takes every `numReplicas`-th index from position r. The shuffle is the algorithm of torch's
 * CPU `randperm` (MT19937 seeded with `seed + epoch`, modulo Fisher–Yates), so for datasets below
 * 2^32 / 20 samples the index lists equal torch's for the same seed and epoch. Call
 * {@link DistributedSampler.setEpoch} before each epoch, or every epoch has the same order.
 *
 * @example
 * ```ts
 * const sampler = new DistributedSampler({ datasetLength: 10, numReplicas: 3, rank: 1, shuffle: false });
 * sampler.indices(); // [1, 4, 7, 0]
 * ```
 */
export class DistributedSampler implements Iterable<number> {
  /** The number of samples in the dataset. */
  readonly datasetLength: number;
  /** The number of ranks sharing the dataset (default: the job's size). */
  readonly numReplicas: number;
  /** This rank's position among the replicas (default: the job's rank). */
  readonly rank: number;
  /** Whether each epoch's order is a seeded permutation (default true). */
  readonly shuffle: boolean;
  /** The permutation seed, the same on every rank (default 0). */
  readonly seed: number;
  /** Drop the tail so every rank gets the same count, instead of padding with repeated indices. */
  readonly dropLast: boolean;
  /** Indices this rank yields per epoch (torch's `num_samples`). */
  readonly length: number;
  /** Indices all ranks yield per epoch together (`length * numReplicas`). */
  readonly totalSize: number;
  private currentEpoch = 0;

  constructor(options: DistributedSamplerOptions) {
    const o = checkOptions(options, { opName: 'DistributedSampler', allowed });
    this.datasetLength = expectInteger(o.datasetLength, { name: 'datasetLength', min: 0 });
    this.numReplicas = expectInteger(o.numReplicas ?? currentSize(), {
      name: 'numReplicas',
      min: 1,
    });
    const max = this.numReplicas - 1;
    this.rank = expectInteger(o.rank ?? currentRank(), { name: 'rank', min: 0, max });
    this.shuffle = expectBoolean(o.shuffle ?? true, 'shuffle');
    this.seed = expectInteger(o.seed ?? 0, { name: 'seed', min: 0 });
    this.dropLast = expectBoolean(o.dropLast ?? false, 'dropLast');
    const [n, r] = [this.datasetLength, this.numReplicas];
    this.length =
      this.dropLast && n % r !== 0 ? Math.max(0, Math.ceil((n - r) / r)) : Math.ceil(n / r);
    this.totalSize = this.length * r;
  }

  /** The epoch whose order {@link DistributedSampler.indices} returns. */
  get epoch(): number {
    return this.currentEpoch;
  }

  /**
   * Selects the epoch's shuffle (seed + epoch). Call it with the same value on every rank.
   *
   * @example
   * ```ts
   * for (let epoch = 0; epoch < 10; epoch++) { sampler.setEpoch(epoch); for (const i of sampler) use(i); }
   * ```
   */
  setEpoch(epoch: number): void {
    this.currentEpoch = expectInteger(epoch, { name: 'epoch', min: 0 });
  }

  /**
   * This rank's indices for the current epoch.
   *
   * @example
   * ```ts
   * const batchIndices = sampler.indices().slice(0, 32);
   * ```
   */
  indices(): number[] {
    const n = this.datasetLength;
    const all = this.shuffle
      ? randperm({ n, seed: this.seed + this.currentEpoch })
      : Array.from({ length: n }, (_, i) => i);
    if (this.dropLast) {
      all.length = this.totalSize;
    } else {
      for (let i = 0; all.length < this.totalSize; i++) all.push(all[i % n] ?? 0);
    }
    const mine: number[] = [];
    for (let i = this.rank; i < this.totalSize; i += this.numReplicas) mine.push(all[i] ?? 0);
    return mine;
  }

  /**
   * Iterates {@link DistributedSampler.indices}.
   *
   * @example
   * ```ts
   * for (const index of sampler) batch.push(dataset[index]);
   * ```
   */
  [Symbol.iterator](): Iterator<number> {
    return this.indices()[Symbol.iterator]();
  }
}

function expectBoolean(value: unknown, name: string): boolean {
  if (typeof value !== 'boolean') throw invalidArgument({ what: 'a boolean', name, value });
  return value;
}
