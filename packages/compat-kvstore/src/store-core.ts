import { expectInteger, invalidArgument, UnsupportedError, type HostArray } from '@kolo/core';
import type { Comm } from './comm.js';
import type { Compressor } from './gradient-compression.js';
import type { KeyQueue } from './key-queue.js';
import { keyLabel, type Key, type KeyItems } from './keys.js';
import type { StoreType } from './store-type.js';
import type { OptimizerUpdater, Updater } from './updater.js';
import type { ValueIO } from './value-io.js';

/**
 * What a store holds for one initialized key.
 *
 * @example
 * ```ts
 * const entry: Entry = { data: new Float32Array(4), shape: [2, 2], paramOnly: false };
 * ```
 */
export interface Entry {
  /** The stored value (the weight, or the last reduction), identical on every worker. */
  readonly data: HostArray;
  /** Logical shape, used by rowSparsePull. */
  readonly shape: readonly number[];
  /** AIACC's `param_only`: a plain reduction buffer that the updater never touches. */
  readonly paramOnly: boolean;
}

/**
 * The state shared by a store's operations.
 *
 * @example
 * ```ts
 * const entry = requireEntry(core, 3, 'pull');
 * ```
 */
export interface StoreCore {
  readonly type: StoreType;
  readonly comm: Comm;
  readonly io: ValueIO;
  /** Prefix of request names, `kv` for the first store of a process. */
  readonly prefix: string;
  readonly entries: Map<Key, Entry>;
  readonly queue: KeyQueue;
  keyKind: 'number' | 'string' | undefined;
  updater: Updater | undefined;
  /** Set by setOptimizer, for saving and loading its states. */
  optimizerUpdater: OptimizerUpdater | undefined;
  compression: Compressor | undefined;
  barriers: number;
}

/**
 * The request name of an operation on a key, the same on every worker: `kv.push.3`.
 *
 * @example
 * ```ts
 * requestNameOf(core, 'push', 'w'); // 'kv.push.w'
 * ```
 */
export function requestNameOf(core: StoreCore, op: string, key: Key): string {
  return `${core.prefix}.${op}.${String(key)}`;
}

/**
 * Checks that every key has the kind (integer or string) of the keys the store already holds.
 *
 * @example
 * ```ts
 * checkKeyKinds(core, pairs); // TypeError for a string key in an integer-keyed store
 * ```
 */
export function checkKeyKinds(core: StoreCore, pairs: readonly KeyItems[]): void {
  for (const { key } of pairs) {
    const kind = typeof key === 'number' ? 'number' : 'string';
    core.keyKind ??= kind;
    if (kind !== core.keyKind) {
      const what = `${core.keyKind === 'number' ? 'an integer key' : 'a string key'} (mixed key types are not allowed in one store)`;
      throw invalidArgument({ what, name: 'key', value: key });
    }
  }
}

/**
 * The entry of an initialized key; throws a RangeError naming the key otherwise.
 *
 * @example
 * ```ts
 * requireEntry(core, 7, 'push'); // RangeError: Expected a key initialized with init() for push key but received 7
 * ```
 */
export function requireEntry(core: StoreCore, key: Key, opName: string): Entry {
  const entry = core.entries.get(key);
  if (entry === undefined) {
    throw invalidArgument({ what: 'a key initialized with init()', name: `${opName} key`, value: key, kind: 'range' });
  }
  return entry;
}

/**
 * Throws UnsupportedError for a call MXNet's Horovod store does not have.
 *
 * @example
 * ```ts
 * rejectOnHorovod(core, 'push');
 * ```
 */
export function rejectOnHorovod(core: StoreCore, method: string): void {
  if (core.type.kind !== 'horovod') return;
  throw new UnsupportedError(
    `The 'horovod' kvstore has no ${method}() (as MXNet's Horovod store): use pushpull() and broadcast(), or create('dist_sync_kolo') for init, push and pull.`,
  );
}

/**
 * Validates the `priority` option: an integer or undefined. Priorities never change results;
 * Kolo's engine orders requests by name negotiation, so they are accepted and not used.
 *
 * @example
 * ```ts
 * checkPriority(-3); // ok
 * ```
 */
export function checkPriority(priority: unknown): void {
  if (priority !== undefined) expectInteger(priority, { name: 'priority' });
}

/**
 * `key 3` or `key 'w'`, for messages.
 *
 * @example
 * ```ts
 * keyName('w'); // "key 'w'"
 * ```
 */
export const keyName = (key: Key): string => `key ${keyLabel(key)}`;
