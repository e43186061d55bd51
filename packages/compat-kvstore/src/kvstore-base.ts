import { expectNonEmptyString, expectOneOf, invalidArgument, type HostArray } from '@kolo/core';
import { toOptimizer } from './create-optimizer.js';
import { parseCompression, type GradientCompressionParams } from './gradient-compression.js';
import { broadcastKeys, initKeys } from './init-keys.js';
import type { Key } from './keys.js';
import { misuse } from './misuse.js';
import type { Optimizer } from './optimizer.js';
import { loadStates, saveStates } from './optimizer-states.js';
import { flag, readOptions } from './options.js';
import { pullKeys, rowSparsePullKeys } from './pull.js';
import { pushKeys, pushpullKeys } from './push.js';
import type { StoreCore } from './store-core.js';
import type * as O from './store-options.js';
import { OptimizerUpdater, type Updater } from './updater.js';

/**
 * One key or a list of keys.
 *
 * @example
 * ```ts
 * const keys: Keys = [0, 1, 2];
 * ```
 */
export type Keys = Key | readonly Key[];

/**
 * Values for {@link Keys}: one value per key, or a list of values per key (one per device; they
 * are reduced in the process before they leave it).
 *
 * @example
 * ```ts
 * const values: Values<Float32Array> = [[gradDevice0, gradDevice1], gradOfKey1];
 * ```
 */
export type Values<V> = V | readonly V[] | readonly (V | readonly V[])[];

/**
 * MXNet's KVStore on Kolo, camelCase names only ({@link KVStore} adds MXNet's snake_case
 * spellings). Create one with `create(type)`. Every operation returns a promise;
 * operations on the same key run in call order, so a pull sees earlier pushes even when they
 * were not awaited. Values are copied at call time and may be reused at once. `V` is what values
 * may be (TypedArrays; tfjs tensors with the `/tfjs` entry), `O` what outputs may be.
 *
 * @example
 * ```ts
 * const store = await create('dist_sync_kolo');
 * await store.init(3, new Float32Array([1, 2]));
 * await store.push(3, new Float32Array([rank, rank]));
 * await store.pull(3, { out: result }); // the sum over workers
 * ```
 */
export class KVStoreBase<V = HostArray, Out = HostArray> {
  /**
   * Use `create()`; a store is built around its internal state.
   * @param core the store's internal state: its type, communicator, entries and key queue.
   */
  constructor(protected readonly core: StoreCore) {}

  /** The type name given to `create` (lower-cased), e.g. `dist_sync_kolo`. */
  get type(): string {
    return this.core.type.name;
  }
  /** This worker's rank (0 for `local` and `device`). */
  get rank(): number {
    return this.core.comm.rank;
  }
  /** Number of workers (1 for `local` and `device`). */
  get numWorkers(): number {
    return this.core.comm.numWorkers;
  }
  /** AIACC's addition: rank on this host, e.g. to pick a device. */
  get localRank(): number {
    return this.core.comm.localRank;
  }

  /** Stores rank 0's value of each key on every worker; each key once. */
  init(keys: Keys, values: Values<V>, options?: O.InitOptions): Promise<void> {
    return initKeys(this.core, keys, values, options);
  }
  /** Reduces the values of each key over devices and workers into the store (sum by default). */
  push(keys: Keys, values: Values<V>, options?: O.PushOptions): Promise<void> {
    return pushKeys(this.core, keys, values, options);
  }
  /** Copies each stored value into `out`. */
  pull(keys: Keys, options: O.PullOptions<Out>): Promise<void> {
    return pullKeys(this.core, keys, options);
  }
  /** `push` then `pull`; results go to `out`, else back into `values`. */
  pushpull(keys: Keys, values: Values<V>, options?: O.PushpullOptions<Out>): Promise<void> {
    return pushpullKeys(this.core, keys, values, options);
  }
  /** `init` from rank 0's values, then `pull` into `out`. */
  broadcast(keys: Keys, values: Values<V>, options: O.BroadcastOptions<Out>): Promise<void> {
    return broadcastKeys(this.core, keys, values, options);
  }
  /** Pulls only rows `rowIds` of each stored value into dense outputs (other rows 0). */
  rowSparsePull(keys: Keys, options: O.RowSparsePullOptions<Out>): Promise<void> {
    return rowSparsePullKeys(this.core, keys, options);
  }

  /** Update on kvstore: every worker applies `optimizer` to each summed push (a no-op on `horovod`, as MXNet). */
  setOptimizer(optimizer: Optimizer): void {
    const checked = toOptimizer(optimizer, undefined, 'optimizer');
    if (this.core.type.kind === 'horovod') return;
    this.core.optimizerUpdater = new OptimizerUpdater(checked);
    this.core.updater = (key, grad, weight) => this.core.optimizerUpdater?.update(key, grad, weight);
  }
  /** MXNet's `_set_updater`: a custom `updater(key, summed, stored)`. */
  setUpdater(updater: Updater): void {
    if (typeof updater !== 'function') throw invalidArgument({ what: 'a function (key, summed, stored) => void', name: 'updater', value: updater });
    this.core.optimizerUpdater = undefined;
    this.core.updater = updater;
  }
  /** MXNet's 2-bit compression or AIACC's fp16 for pushes (not for `local`/`horovod`). */
  setGradientCompression(params: GradientCompressionParams): void {
    this.core.compression = parseCompression(params, this.core.type.kind);
  }
  /** Writes the optimizer's per-key states to `fname` (a no-op on `horovod`). */
  saveOptimizerStates(fname: string, options?: O.SaveStatesOptions): Promise<void> {
    const file = expectNonEmptyString(fname, 'fname');
    const dumpOptimizer = flag(readOptions(options, 'saveOptimizerStates', ['dumpOptimizer']).dumpOptimizer, { name: 'dumpOptimizer', fallback: false });
    if (this.core.type.kind === 'horovod') return Promise.resolve();
    return saveStates(file, this.updaterFor('saveOptimizerStates'), { dumpOptimizer });
  }
  /** Reads states written by `saveOptimizerStates` (a no-op on `horovod`). */
  loadOptimizerStates(fname: string): Promise<void> {
    const file = expectNonEmptyString(fname, 'fname');
    if (this.core.type.kind === 'horovod') return Promise.resolve();
    return loadStates(file, this.updaterFor('loadOptimizerStates'));
  }
  /** `isCapable('optimizer')`: whether the store can run an optimizer (false for `horovod`). */
  isCapable(capability: 'optimizer'): boolean {
    expectOneOf(capability, { name: 'capability', choices: ['optimizer'] });
    return this.core.type.kind !== 'horovod';
  }
  /** Resolves when every worker has reached this barrier. */
  barrier(): Promise<void> {
    this.core.barriers += 1;
    return this.core.comm.barrier(`${this.core.prefix}.barrier.${this.core.barriers}`);
  }

  private updaterFor(method: string): OptimizerUpdater {
    const updater = this.core.optimizerUpdater;
    if (updater === undefined) throw misuse(`${method}() needs the optimizer's states; call setOptimizer() first.`);
    return updater;
  }
}
