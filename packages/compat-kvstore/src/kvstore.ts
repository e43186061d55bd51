import type { HostArray } from '@kolo/core';
import { KVStoreBase, type Keys } from './kvstore-base.js';
import type { Optimizer } from './optimizer.js';
import type * as O from './store-options.js';
import type { Updater } from './updater.js';
import type { GradientCompressionParams } from './gradient-compression.js';

/**
 * MXNet's KVStore on Kolo with MXNet's snake_case spellings next to the camelCase names
 * (`store.num_workers`, `store.row_sparse_pull(...)`, `store._barrier()`), so code ported from
 * Python keeps its calls. Create one with `create(type)`.
 *
 * @example
 * ```ts
 * const kv = await create('dist_sync_perseus');
 * await kv.init(0, weight);
 * await kv.push(0, grad);
 * await kv.pull(0, { out: weight });
 * console.log(kv.rank, kv.num_workers, kv.local_rank);
 * ```
 */
export class KVStore<V = HostArray, Out = HostArray> extends KVStoreBase<V, Out> {
  /** Alias of {@link KVStoreBase.numWorkers}. */
  get num_workers(): number {
    return this.numWorkers;
  }
  /** Alias of {@link KVStoreBase.localRank}. */
  get local_rank(): number {
    return this.localRank;
  }
  /** Alias of {@link KVStoreBase.rowSparsePull}. */
  row_sparse_pull(keys: Keys, options: O.RowSparsePullOptions<Out>): Promise<void> {
    return this.rowSparsePull(keys, options);
  }
  /** Alias of {@link KVStoreBase.setOptimizer}. */
  set_optimizer(optimizer: Optimizer): void {
    this.setOptimizer(optimizer);
  }
  /** Alias of {@link KVStoreBase.setUpdater} (MXNet's private name). */
  _set_updater(updater: Updater): void {
    this.setUpdater(updater);
  }
  /** Alias of {@link KVStoreBase.setGradientCompression}. */
  set_gradient_compression(params: GradientCompressionParams): void {
    this.setGradientCompression(params);
  }
  /** Alias of {@link KVStoreBase.saveOptimizerStates}. */
  save_optimizer_states(fname: string, options?: O.SaveStatesOptions): Promise<void> {
    return this.saveOptimizerStates(fname, options);
  }
  /** Alias of {@link KVStoreBase.loadOptimizerStates}. */
  load_optimizer_states(fname: string): Promise<void> {
    return this.loadOptimizerStates(fname);
  }
  /** Alias of {@link KVStoreBase.isCapable}. */
  is_capable(capability: 'optimizer'): boolean {
    return this.isCapable(capability);
  }
  /** Alias of {@link KVStoreBase.barrier} (MXNet's private name; it has no public barrier). */
  _barrier(): Promise<void> {
    return this.barrier();
  }
}
