import { invalidArgument, type HostArray } from '@kolo/core';
import type { GradientCompressionParams } from './gradient-compression.js';
import type { FloatArray } from './optimizer.js';
import type { OptimizerParams } from './optimizer-params.js';
import type { KVStore } from './kvstore.js';
import { flag } from './options.js';
import { parseStoreType, type StoreType } from './store-type.js';

/**
 * Any store a Trainer can use (TypedArray values work with every store).
 *
 * @example
 * ```ts
 * const store: TrainerStore = await create('dist_sync_kolo');
 * ```
 */
export type TrainerStore = KVStore<HostArray, HostArray>;

/**
 * Options of `Trainer` (gluon's keyword arguments; snake_case accepted).
 *
 * @example
 * ```ts
 * const options: TrainerOptions = { kvstore: 'dist_sync_kolo', updateOnKvstore: false };
 * ```
 */
export interface TrainerOptions {
  /** A store, a type name (created on first step), or null; default `device` (no store). */
  readonly kvstore?: TrainerStore | string | null;
  /** Run the optimizer in the store; default true for `dist` types. */
  readonly updateOnKvstore?: boolean;
  /** Passed to `setGradientCompression` when the store is set up. */
  readonly compressionParams?: GradientCompressionParams;
  /** Hyper-parameters when the optimizer is given by name. */
  readonly optimizerParams?: OptimizerParams & Record<string, number>;
}

/**
 * Where a Trainer reduces gradients and where it runs the optimizer.
 *
 * @example
 * ```ts
 * planTrainer('dist_sync', undefined); // { store: { name: 'dist_sync', kind: 'dist' }, updateOnKvstore: true }
 * ```
 */
export interface TrainerPlan {
  /** A store, a type to create on first use, or undefined for none. */
  readonly store: TrainerStore | StoreType | undefined;
  /** Whether the store applies the optimizer (pushpull returns updated weights). */
  readonly updateOnKvstore: boolean;
}

const isStore = (value: unknown): value is TrainerStore =>
  typeof value === 'object' && value !== null && typeof (value as TrainerStore).pushpull === 'function' && typeof (value as TrainerStore).type === 'string';

/**
 * gluon.Trainer's kvstore rules for one device per process: no kvstore (`null`), or a type name
 * that stays in the process (`local`, `device`, the default), means no store; a store object or
 * a `dist`/`horovod` type is used. `updateOnKvstore` defaults to true for `dist` types and must
 * be false for `horovod` (which cannot run an optimizer).
 *
 * @example
 * ```ts
 * planTrainer('horovod', true); // RangeError: Expected false (the horovod kvstore cannot run an optimizer) for updateOnKvstore but received true
 * ```
 */
export function planTrainer(kvstore: unknown, updateOnKvstore: unknown): TrainerPlan {
  const explicit = updateOnKvstore === undefined ? undefined : flag(updateOnKvstore, { name: 'updateOnKvstore', fallback: false });
  if (kvstore === null) return { store: undefined, updateOnKvstore: false };
  if (kvstore !== undefined && typeof kvstore !== 'string' && !isStore(kvstore)) {
    throw invalidArgument({ what: "a KVStore, a kvstore type such as 'dist_sync_kolo', or null", name: 'kvstore', value: kvstore });
  }
  const type = isStore(kvstore) ? parseStoreType(kvstore.type) : parseStoreType(kvstore ?? 'device');
  if (!isStore(kvstore) && (type.kind === 'local' || type.kind === 'device')) return { store: undefined, updateOnKvstore: false };
  const store = isStore(kvstore) ? kvstore : type;
  if (type.kind === 'horovod') {
    if (explicit === true) {
      throw invalidArgument({ what: `false (the ${type.name} kvstore cannot run an optimizer)`, name: 'updateOnKvstore', value: true, kind: 'range' });
    }
    return { store, updateOnKvstore: false };
  }
  return { store, updateOnKvstore: explicit ?? type.kind === 'dist' };
}

/**
 * gluon's parameter list: a list, or a record read in key order; each a Float32Array or
 * Float64Array; an array listed twice (shared) counts once.
 *
 * @example
 * ```ts
 * paramList({ b: bias, a: weight }); // [weight, bias]
 * ```
 */
export function paramList(params: unknown): FloatArray[] {
  const isFloat = (p: unknown): p is FloatArray => p instanceof Float32Array || p instanceof Float64Array;
  const record = typeof params === 'object' && params !== null && !Array.isArray(params);
  const list = Array.isArray(params) ? params : record ? Object.keys(params).sort().map((k) => (params as Record<string, unknown>)[k]) : undefined;
  if (list === undefined || !list.every(isFloat)) {
    throw invalidArgument({ what: 'a list or record of Float32Array/Float64Array parameters', name: 'params', value: params });
  }
  return [...new Set(list)];
}
