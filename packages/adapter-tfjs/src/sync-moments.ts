import type { Tensor } from '@tensorflow/tfjs-core';
import { allgatherSync, allreduceSync, crossRank, isInitialized } from '@kolo/core';

/**
 * Which ranks share batch statistics: `global` (all ranks) or `local` (the ranks on this host,
 * as AIACC-Training's PerseusSyncBatchNorm).
 *
 * @example
 * ```ts
 * const scope: CommScope = 'local';
 * ```
 */
export type CommScope = 'global' | 'local';

/**
 * Sums `values` element-wise over the ranks of `scope`, **blocking** (it runs inside tfjs's
 * synchronous forward and backward passes). `local` gathers every rank's values with its host
 * index and adds those of this host. Without an initialized engine, the values are returned as
 * they are (one process).
 *
 * @example
 * ```ts
 * const totals = sumOverScope(new Float64Array([sum, sumSq, count]), { scope: 'global', name: 'bn.forward' });
 * ```
 */
export function sumOverScope(values: Float64Array, options: { readonly scope: CommScope; readonly name: string }): Float64Array {
  if (!isInitialized()) return values;
  if (options.scope === 'global') return allreduceSync(values, { op: 'sum', name: options.name, output: values });
  const row = values.length + 1;
  const mine = new Float64Array(row);
  mine.set(values);
  mine[values.length] = crossRank();
  const { data } = allgatherSync(mine, { name: options.name });
  const out = new Float64Array(values.length);
  for (let start = 0; start < data.length; start += row) {
    if (data[start + values.length] !== mine[values.length]) continue;
    for (let i = 0; i < values.length; i++) out[i] = (out[i] as number) + (data[start + i] as number);
  }
  return out;
}

/**
 * Per-channel statistics of a batch over the ranks of a scope: mean, biased variance (as
 * BatchNormalization uses in training) and the number of elements per channel.
 *
 * @example
 * ```ts
 * const { mean, variance, count } = syncMoments(x, { axis: 3, scope: 'global', name: 'bn.forward' });
 * ```
 */
export interface SyncMoments {
  readonly mean: Float64Array;
  readonly variance: Float64Array;
  readonly count: number;
}

/**
 * Computes {@link SyncMoments} of `x` along every axis but `axis`: local sums and sums of
 * squares in float64, then one blocking sum over the scope of `[sum, sumOfSquares, count]`.
 *
 * @example
 * ```ts
 * syncMoments(tf.tensor2d([[1], [3]]), { axis: 1, scope: 'global', name: 'bn' }).mean; // [2] on one rank
 * ```
 */
export function syncMoments(x: Tensor, options: { readonly axis: number; readonly scope: CommScope; readonly name: string }): SyncMoments {
  const channels = x.shape[options.axis] as number;
  const inner = x.shape.slice(options.axis + 1).reduce((a, b) => a * b, 1);
  const data = x.dataSync() as Float32Array;
  const local = new Float64Array(2 * channels + 1);
  for (let i = 0; i < data.length; i++) {
    const c = Math.floor(i / inner) % channels;
    const v = data[i] as number;
    local[c] = (local[c] as number) + v;
    local[channels + c] = (local[channels + c] as number) + v * v;
  }
  local[2 * channels] = data.length / channels;
  const totals = sumOverScope(local, { scope: options.scope, name: options.name });
  const count = totals[2 * channels] as number;
  const mean = new Float64Array(channels);
  const variance = new Float64Array(channels);
  for (let c = 0; c < channels; c++) {
    const m = (totals[c] as number) / count;
    mean[c] = m;
    variance[c] = Math.max(0, (totals[channels + c] as number) / count - m * m);
  }
  return { mean, variance, count };
}
