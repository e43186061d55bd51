import { invalidArgument, type HostArray } from '@kolo/core';
import { keyLabel, pairKeys, type Key } from './keys.js';
import { reduceLocal, type PushOp } from './local-reduce.js';
import { checkKeyKinds, keyName, requestNameOf, requireEntry, type Entry, type StoreCore } from './store-core.js';
import { expectLike, type HostView } from './value-io.js';

/**
 * One key of a push, prepared at call time: the local reduction is done and the values may be
 * reused at once.
 *
 * @example
 * ```ts
 * const [item] = planPush(core, 3, [g0, g1], 'sum', 'push'); // item.wire = g0 + g1
 * ```
 */
export interface PushItem {
  readonly key: Key;
  /** The stored entry; undefined for the `horovod` store, which stores nothing. */
  readonly entry: Entry | undefined;
  /** The values as given (pushpull writes into them when no `out` is given). */
  readonly values: readonly unknown[];
  /** What this worker contributes to the allreduce (possibly compressed). */
  readonly wire: HostArray;
  /** The reduced values from the reduced wire array. */
  readonly decode: (wire: HostArray) => HostArray;
  /** Whether the updater applies (an updater is set and the key is not paramOnly). */
  readonly update: boolean;
}

function merge(core: StoreCore, key: Key, views: readonly HostView[], op: PushOp, compress: boolean): Pick<PushItem, 'wire' | 'decode'> {
  const { compression, type, comm } = core;
  const identity = (wire: HostArray) => wire;
  if (!compress || compression === undefined) return { wire: reduceLocal(views.map((v) => v.data), op), decode: identity };
  const slot = keyLabel(key);
  if (type.kind === 'device') {
    const trips = views.map((v, i) => compression.roundTrip(`${slot}#${i}`, v.data as Float32Array));
    return { wire: reduceLocal(trips, 'sum'), decode: identity };
  }
  const merged = reduceLocal(views.map((v) => v.data), 'sum') as Float32Array;
  return { wire: compression.encode(slot, merged, comm.numWorkers), decode: (wire) => compression.decode(wire) };
}

/**
 * Checks a push (or pushpull) and prepares one {@link PushItem} per key: values must match the
 * stored value's dtype and length; with an updater, only `sum` is allowed (max and min suit
 * `paramOnly` buffers); compression applies to float32 sums of non-paramOnly keys.
 *
 * @example
 * ```ts
 * const items = planPush(core, ['a', 'b'], [ga, gb], 'sum', 'push');
 * ```
 */
export function planPush(core: StoreCore, keys: unknown, values: unknown, op: PushOp, opName: string): PushItem[] {
  const pairs = pairKeys(keys, values, { isValue: core.io.isValue, name: 'values' });
  checkKeyKinds(core, pairs);
  return pairs.map(({ key, items }) => {
    const views = items.map((v, i) => core.io.read(v, `value${items.length > 1 ? `[${i}]` : ''} of ${keyName(key)}`));
    const entry = core.type.kind === 'horovod' ? undefined : requireEntry(core, key, opName);
    const like = entry?.data ?? (views[0] as HostView).data;
    views.forEach((v, i) => expectLike(v.data, like, `value${items.length > 1 ? `[${i}]` : ''} of ${keyName(key)}`));
    const update = core.updater !== undefined && entry !== undefined && !entry.paramOnly;
    if (update && op !== 'sum') {
      const what = "op 'sum' (an optimizer is set; init the key with paramOnly for max/min buffers)";
      throw invalidArgument({ what, name: `op of ${keyName(key)}`, value: op });
    }
    if (update && !(like instanceof Float32Array || like instanceof Float64Array)) {
      throw invalidArgument({ what: 'a Float32Array or Float64Array (an optimizer is set)', name: `value of ${keyName(key)}`, value: like });
    }
    const compress = op === 'sum' && !(entry?.paramOnly ?? false) && like instanceof Float32Array;
    return { key, entry, values: items, update, ...merge(core, key, views, op, compress) };
  });
}

/**
 * Allreduces every item's wire array (request `kv.push.<key>`), then replaces each stored value
 * with the reduction or applies the updater to it. Resolves with the reductions, in item order.
 *
 * @example
 * ```ts
 * const reduced = await reduceItems(core, items, 'sum');
 * ```
 */
export function reduceItems(core: StoreCore, items: readonly PushItem[], op: PushOp): Promise<HostArray[]> {
  return Promise.all(
    items.map(async (item) => {
      await core.comm.allreduce(item.wire, { name: requestNameOf(core, 'push', item.key), op });
      const reduced = item.decode(item.wire);
      if (item.entry === undefined) return reduced;
      if (item.update) core.updater?.(item.key, reduced, item.entry.data);
      else (item.entry.data as Float32Array).set(reduced as Float32Array);
      return reduced;
    }),
  );
}
