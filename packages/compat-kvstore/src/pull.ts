import { invalidArgument, type HostArray } from '@kolo/core';
import { pairKeys, type Key } from './keys.js';
import { flag, readOptions } from './options.js';
import { checkKeyKinds, checkPriority, keyName, rejectOnHorovod, requireEntry, type Entry, type StoreCore } from './store-core.js';
import { writersFor } from './writers.js';

function entriesOf(core: StoreCore, keys: unknown, out: unknown, opName: string): Map<Key, Entry> {
  if (out === undefined) throw invalidArgument({ what: 'an output (or a list of outputs) per key', name: 'out', value: out });
  const pairs = pairKeys(keys, out, { isValue: core.io.isValue, name: 'out' });
  checkKeyKinds(core, pairs);
  return new Map(pairs.map(({ key }) => [key, requireEntry(core, key, opName)]));
}

/**
 * `pull(keys, {out, priority, ignoreSparse})`: copies each stored value into its output(s) once
 * earlier operations on the key have finished. Stored values are identical on every worker, so
 * a pull needs no communication.
 *
 * @example
 * ```ts
 * await pullKeys(core, 3, { out: weight });
 * ```
 */
export function pullKeys(core: StoreCore, keys: unknown, options: unknown): Promise<void> {
  rejectOnHorovod(core, 'pull');
  const o = readOptions(options, 'pull', ['out', 'priority', 'ignoreSparse']);
  checkPriority(o.priority);
  flag(o.ignoreSparse, { name: 'ignoreSparse', fallback: true });
  const entries = entriesOf(core, keys, o.out, 'pull');
  const writers = writersFor(core, keys, o.out, new Map([...entries].map(([k, e]) => [k, e.data])));
  return core.queue.run([...entries.keys()], async () => {
    for (const [key, entry] of entries) for (const write of writers.get(key) ?? []) write(entry.data);
  });
}

function rowIdsOf(value: unknown, rows: number, name: string): number[] {
  const ids = Array.isArray(value) || value instanceof Int32Array ? Array.from(value as ArrayLike<unknown>) : undefined;
  if (ids === undefined || !ids.every((id) => Number.isSafeInteger(id) && (id as number) >= 0 && (id as number) < rows)) {
    throw invalidArgument({ what: `a list of row indices in [0, ${rows - 1}]`, name, value });
  }
  return ids as number[];
}

/**
 * `rowSparsePull(keys, {out, rowIds})`: pulls only the rows `rowIds` (along the first dimension
 * of the key's shape) into each dense `out`; other rows of `out` become 0, as a row-sparse
 * result read densely. `rowIds` is one list for every output, or one list per output.
 *
 * @example
 * ```ts
 * await rowSparsePullKeys(core, 'embed', { out: rows, rowIds: [0, 7] });
 * ```
 */
export function rowSparsePullKeys(core: StoreCore, keys: unknown, options: unknown): Promise<void> {
  rejectOnHorovod(core, 'rowSparsePull');
  const o = readOptions(options, 'rowSparsePull', ['out', 'rowIds', 'priority']);
  checkPriority(o.priority);
  const entries = entriesOf(core, keys, o.out, 'rowSparsePull');
  const writers = writersFor(core, keys, o.out, new Map([...entries].map(([k, e]) => [k, e.data])));
  const perOut = pairKeys(keys, o.rowIds, { isValue: (v) => v instanceof Int32Array || (Array.isArray(v) && v.every((x) => typeof x === 'number')), name: 'rowIds' });
  const plans = [...entries].map(([key, entry]) => {
    const rows = entry.shape[0] ?? 0;
    const lists = perOut.find((p) => p.key === key)?.items ?? [];
    const outs = writers.get(key) ?? [];
    if (lists.length !== 1 && lists.length !== outs.length) {
      throw invalidArgument({ what: `one list of row ids, or one per output (${outs.length})`, name: `rowIds of ${keyName(key)}`, value: lists });
    }
    const ids = outs.map((_, i) => rowIdsOf(lists[lists.length === 1 ? 0 : i], rows, `rowIds of ${keyName(key)}`));
    return { entry, rowLength: rows === 0 ? 0 : entry.data.length / rows, outs, ids };
  });
  return core.queue.run([...entries.keys()], async () => {
    for (const { entry, rowLength, outs, ids } of plans) {
      outs.forEach((write, i) => {
        const dense = new (entry.data.constructor as new (n: number) => HostArray)(entry.data.length);
        for (const row of ids[i] ?? []) {
          (dense as Float32Array).set((entry.data as Float32Array).subarray(row * rowLength, (row + 1) * rowLength), row * rowLength);
        }
        write(dense);
      });
    }
  });
}
