import { expectOneOf, type HostArray } from '@kolo/core';
import type { Key } from './keys.js';
import type { PushOp } from './local-reduce.js';
import { readOptions } from './options.js';
import { planPush, reduceItems, type PushItem } from './push-plan.js';
import { checkPriority, keyName, rejectOnHorovod, type StoreCore } from './store-core.js';
import { writersFor, type Writer } from './writers.js';

const readOp = (op: unknown): PushOp => expectOneOf(op ?? 'sum', { name: 'op', choices: ['sum', 'max', 'min'] as const });

/**
 * `push(keys, values, {op, priority})`: several values of one key are reduced locally first,
 * then across workers; the stored value is replaced by the result, or the updater applies it.
 *
 * @example
 * ```ts
 * await pushKeys(core, 3, [g0, g1], {});
 * ```
 */
export function pushKeys(core: StoreCore, keys: unknown, values: unknown, options: unknown): Promise<void> {
  rejectOnHorovod(core, 'push');
  const o = readOptions(options, 'push', ['op', 'priority']);
  checkPriority(o.priority);
  const op = readOp(o.op);
  const items = planPush(core, keys, values, op, 'push');
  return core.queue.run(
    items.map((i) => i.key),
    async () => {
      await reduceItems(core, items, op);
    },
  );
}

function inPlaceWriters(core: StoreCore, items: readonly PushItem[]): Map<Key, Writer[]> {
  return new Map(
    items.map((item) => {
      const like = item.entry?.data ?? item.wire;
      const name = `value of ${keyName(item.key)} (pushpull without out writes into its values)`;
      return [item.key, item.values.map((v) => core.io.writer(v, like, name))];
    }),
  );
}

/**
 * `pushpull(keys, values, {out, op, priority})`: a push, then a pull of the same keys into `out`
 * (into `values` when `out` is omitted). On the `horovod` store it is a sum allreduce.
 *
 * @example
 * ```ts
 * await pushpullKeys(core, 0, grad, {}); // grad now holds the sum over workers
 * ```
 */
export function pushpullKeys(core: StoreCore, keys: unknown, values: unknown, options: unknown): Promise<void> {
  const o = readOptions(options, 'pushpull', ['out', 'op', 'priority']);
  checkPriority(o.priority);
  const op = readOp(o.op);
  const items = planPush(core, keys, values, op, 'pushpull');
  // The horovod store has no entries and no compression: results look like the values.
  const like = new Map<Key, HostArray>(items.map((i) => [i.key, i.entry?.data ?? i.wire]));
  const writers = o.out === undefined ? inPlaceWriters(core, items) : writersFor(core, keys, o.out, like);
  return core.queue.run(
    items.map((i) => i.key),
    async () => {
      const reduced = await reduceItems(core, items, op);
      items.forEach((item, i) => {
        const result = item.entry?.data ?? (reduced[i] as HostArray);
        for (const write of writers.get(item.key) ?? []) write(result);
      });
    },
  );
}
