import { checkOptions, expectInteger, invalidArgument, isInitialized, rank, size } from '@kolo/core';

/**
 * The part of a tf.data `Dataset` that {@link shardDataset} needs: its iterator (whose `filter`
 * disposes the tensors it skips) and its size. Any `tf.data.Dataset` fits.
 *
 * @example
 * ```ts
 * const ds: ShardableDataset = tf.data.array([1, 2, 3]);
 * ```
 */
export interface ShardableDataset {
  /** A fresh iterator over the elements; only its `filter` is used. */
  iterator(): Promise<{
    /** An iterator over the elements for which `predicate` is true. */
    filter(predicate: (value: never) => boolean): unknown;
  }>;
  /** The number of elements, or null when unknown. */
  readonly size: number | null;
}

/**
 * Options of {@link shardDataset}.
 *
 * @example
 * ```ts
 * const o: ShardDatasetOptions = { numShards: size(), index: rank() };
 * ```
 */
export interface ShardDatasetOptions {
  /** How many shards; default `size()`. */
  readonly numShards?: number;
  /** Which shard this is, in [0, numShards); default `rank()`. */
  readonly index?: number;
}

/**
 * Keeps every `numShards`-th element of a tf.data dataset starting at `index` (tf.data's
 * `shard`): element i goes to shard `i % numShards`. Shard before shuffling with a per-rank
 * seed or before batching; the result is a dataset of the same class, each new iterator starts
 * again at element 0, and skipped tensors are disposed.
 *
 * @example
 * ```ts
 * const mine = shardDataset(tf.data.array(samples), { numShards: size(), index: rank() }).batch(32);
 * await model.fitDataset(mine, { epochs: 5 });
 * ```
 */
export function shardDataset<D extends ShardableDataset>(dataset: D, options: ShardDatasetOptions = {}): D {
  if (dataset === null || typeof dataset !== 'object' || typeof dataset.iterator !== 'function') {
    throw invalidArgument({ what: 'a tf.data Dataset', name: 'dataset', value: dataset });
  }
  const o = checkOptions(options, { opName: 'shardDataset', allowed: ['numShards', 'index'] });
  const numShards = expectInteger(o.numShards ?? (isInitialized() ? size() : 1), { name: 'numShards', min: 1 });
  const index = expectInteger(o.index ?? (isInitialized() ? rank() : 0), { name: 'index', min: 0, max: numShards - 1 });
  const sharded = Object.create(dataset) as D & { size: number | null };
  const total = dataset.size;
  sharded.size = total === null || !Number.isFinite(total) ? total : Math.max(0, Math.ceil((total - index) / numShards));
  const iterator: ShardableDataset['iterator'] = async () => {
    let position = 0;
    const filtered = (await dataset.iterator()).filter(() => position++ % numShards === index);
    return filtered as Awaited<ReturnType<ShardableDataset['iterator']>>;
  };
  sharded.iterator = iterator;
  return sharded;
}
