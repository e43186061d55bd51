import { DistributedSampler } from '@kolo/core';

/**
 * The dataset rows one rank runs: the core sampler's split without shuffling, minus the
 * duplicates it pads with, so every row is run exactly once across all ranks. Rank `r` gets
 * rows `r, r + size, r + 2 size, …`; a rank may get none when there are fewer rows than ranks.
 *
 * @example
 * ```ts
 * shardRows({ datasetLength: 10, numReplicas: 3, rank: 2 }); // [2, 5, 8]
 * ```
 */
export function shardRows(options: { datasetLength: number; numReplicas: number; rank: number }): number[] {
  const { datasetLength, numReplicas, rank } = options;
  const sampler = new DistributedSampler({ datasetLength, numReplicas, rank, shuffle: false });
  // The sampler's k-th index for this rank sits at position k * numReplicas + rank of its padded
  // list; positions past the dataset are the padding.
  return sampler.indices().filter((_, k) => k * numReplicas + rank < datasetLength);
}

/**
 * Copies the rows `rows` of a row-major array with `rowLength` elements per row into a new array
 * of the same class.
 *
 * @example
 * ```ts
 * takeRows(Float32Array.of(0, 1, 2, 3, 4, 5), { rowLength: 2, rows: [2, 0] }); // Float32Array [4, 5, 0, 1]
 * ```
 */
export function takeRows<T extends ArrayLike<unknown> & { subarray(a: number, b: number): T }>(
  data: T,
  options: { rowLength: number; rows: readonly number[] },
): T {
  const { rowLength, rows } = options;
  const Ctor = data.constructor as new (length: number) => T & { set(source: T, offset: number): void };
  const out = new Ctor(rows.length * rowLength);
  rows.forEach((row, i) => out.set(data.subarray(row * rowLength, (row + 1) * rowLength), i * rowLength));
  return out;
}
