/**
 * `@kolo/compat-kvstore/tfjs`: everything from `@kolo/compat-kvstore`, with `create` returning
 * stores that also take tfjs tensors and LayerVariables as values and tf.Variables or
 * LayerVariables as outputs, and `Trainer` working on tfjs weights. Needs
 * `@tensorflow/tfjs-core` (a peer dependency). Importing this module does nothing.
 */
import type * as tf from '@tensorflow/tfjs-core';
import type { HostArray } from '@kolo/core';
import { openStore } from '../create.js';
import type { KVStore } from '../kvstore.js';
import { tensorIO, type LayerVariableLike } from './tensor-io.js';

export * from '../index.js';
export { Trainer, type TfjsParam } from './trainer.js';
export { tensorIO, variableOf, type LayerVariableLike } from './tensor-io.js';

/**
 * A store whose values may be TypedArrays, tensors or LayerVariables, and whose outputs may be
 * TypedArrays, tf.Variables or LayerVariables.
 *
 * @example
 * ```ts
 * const store: TfjsKVStore = await create('dist_sync_kolo');
 * ```
 */
export type TfjsKVStore = KVStore<HostArray | tf.Tensor | LayerVariableLike, HostArray | tf.Variable | LayerVariableLike>;

/**
 * `mx.kv.create(name)` for tfjs code: the same types as the main entry's `create`.
 *
 * @example
 * ```ts
 * import * as kv from '@kolo/compat-kvstore/tfjs';
 * const store = await kv.create('dist_sync_kolo');
 * await store.pushpull(0, gradTensor, { out: weightVariable });
 * ```
 */
export function create(name = 'local'): Promise<TfjsKVStore> {
  return openStore(name, tensorIO);
}
