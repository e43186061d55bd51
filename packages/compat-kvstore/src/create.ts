import * as core from '@kolo/core';
import type { HostArray } from '@kolo/core';
import { koloComm, localComm } from './comm.js';
import { KeyQueue } from './key-queue.js';
import { KVStore } from './kvstore.js';
import type { StoreCore } from './store-core.js';
import { parseStoreType, type StoreType } from './store-type.js';
import { typedArrayIO, type ValueIO } from './value-io.js';

/** Stores that communicate, in creation order: their request-name prefix must match across ranks. */
let distStores = 0;

async function open<V, Out>(type: StoreType, io: ValueIO): Promise<KVStore<V, Out>> {
  const local = type.kind === 'local' || type.kind === 'device';
  let prefix = 'kv';
  if (!local) {
    if (!core.isInitialized()) await core.init();
    distStores += 1;
    if (distStores > 1) prefix = `kv${distStores}`;
  }
  const state: StoreCore = {
    type,
    comm: local ? localComm : koloComm(),
    io,
    prefix,
    entries: new Map(),
    queue: new KeyQueue(),
    keyKind: undefined,
    updater: undefined,
    optimizerUpdater: undefined,
    compression: undefined,
    barriers: 0,
  };
  return new KVStore<V, Out>(state);
}

/**
 * Opens a store of `name` whose values go through `io` (the `/tfjs` entry passes one for
 * tensors). Type errors throw now; the engine starts in the returned promise.
 *
 * @example
 * ```ts
 * const store = await openStore('dist_sync', typedArrayIO);
 * ```
 */
export function openStore<V, Out>(name: unknown, io: ValueIO): Promise<KVStore<V, Out>> {
  return open<V, Out>(parseStoreType(name), io);
}

/**
 * MXNet's `mx.kv.create(name)`. `local` and `device` stay in this process (rank 0 of 1;
 * `device` also supports gradient compression between the values of one key); `dist_sync`,
 * `dist_device_sync`, `dist_sync_kolo` (alias `dist_sync_perseus`) synchronize all workers
 * through Kolo, starting the engine with `init()` when it is not running; `horovod` is MXNet's
 * Horovod store. `dist_async`, `nccl` and `byteps` throw UnsupportedError naming what to use.
 * Values are TypedArrays here; import from `@kolo/compat-kvstore/tfjs` for tfjs tensors.
 *
 * @example
 * ```ts
 * import * as kv from '@kolo/compat-kvstore';
 * const store = await kv.create('dist_sync_kolo'); // was: kv.create('local')
 * ```
 */
export function create(name = 'local'): Promise<KVStore<HostArray, HostArray>> {
  return openStore<HostArray, HostArray>(name, typedArrayIO);
}

/**
 * Stops the Kolo engine that `create` started for a distributed store (`@kolo/core`'s
 * `shutdown`); safe to call when none is running.
 *
 * @example
 * ```ts
 * try { await train(store); } finally { await shutdown(); }
 * ```
 */
export function shutdown(): Promise<void> {
  return core.shutdown();
}
