import { invalidArgument } from '@kolo/core';
import { pairKeys, type Key } from './keys.js';
import { flag, readOptions } from './options.js';
import { writersFor } from './writers.js';
import { checkKeyKinds, checkPriority, keyName, rejectOnHorovod, requestNameOf, type Entry, type StoreCore } from './store-core.js';

function checkShape(shape: unknown, length: number, key: Key): readonly number[] | undefined {
  if (shape === undefined) return undefined;
  const ok = Array.isArray(shape) && shape.every((d) => Number.isSafeInteger(d) && d >= 0) && shape.reduce((a: number, d: number) => a * d, 1) === length;
  if (!ok) throw invalidArgument({ what: `a shape of ${length} elements for ${keyName(key)}`, name: 'shape', value: shape });
  return shape as number[];
}

/**
 * Checks `init(keys, values, options)` and prepares its entries: `commit` stores them (at call
 * time, so later calls can use the keys at once), `send` makes rank 0's values everyone's.
 */
function planInit(core: StoreCore, keys: unknown, values: unknown, options: unknown, opName: string) {
  const o = readOptions(options, opName, ['paramOnly', 'shape', 'priority', 'out']);
  checkPriority(o.priority);
  const paramOnly = flag(o.paramOnly, { name: 'paramOnly', fallback: false });
  const pairs = pairKeys(keys, values, { isValue: core.io.isValue, name: 'values' });
  checkKeyKinds(core, pairs);
  for (const { key } of pairs) {
    if (core.entries.has(key)) {
      const what = 'a key not initialized yet (a key is initialized once, by init or broadcast; update it with push or pushpull)';
      throw invalidArgument({ what, name: `${opName} key`, value: key, kind: 'range' });
    }
  }
  const entries: [Key, Entry][] = pairs.map(({ key, items }) => {
    // As MXNet, the first of several values initializes the key.
    const view = core.io.read(items[0], `value of ${keyName(key)}`);
    const shape = checkShape(o.shape, view.data.length, key) ?? view.shape;
    return [key, { data: view.data.slice(), shape, paramOnly }];
  });
  const commit = () => entries.forEach(([key, entry]) => core.entries.set(key, entry));
  const send = () => Promise.all(entries.map(([key, e]) => core.comm.broadcast(e.data, requestNameOf(core, 'init', key))));
  return { keys: entries.map(([key]) => key), entries, out: o.out, commit, send };
}

/**
 * `init(keys, values, {paramOnly})`: stores rank 0's value of each key on every worker.
 *
 * @example
 * ```ts
 * await initKeys(core, [0, 1], [w0, w1], {});
 * ```
 */
export function initKeys(core: StoreCore, keys: unknown, values: unknown, options: unknown): Promise<void> {
  rejectOnHorovod(core, 'init');
  const plan = planInit(core, keys, values, options, 'init');
  if (plan.out !== undefined) throw invalidArgument({ what: 'no out (init has none; use broadcast)', name: 'out', value: plan.out });
  plan.commit();
  return core.queue.run(plan.keys, async () => {
    await plan.send();
  });
}

/**
 * `broadcast(keys, values, {out})`: init from rank 0's values, then pull into `out`. The
 * `horovod` store broadcasts without storing, so a key may be broadcast again.
 *
 * @example
 * ```ts
 * await broadcastKeys(core, 0, weight, { out: weight });
 * ```
 */
export function broadcastKeys(core: StoreCore, keys: unknown, values: unknown, options: unknown): Promise<void> {
  if (core.type.kind === 'horovod') return broadcastUnstored(core, keys, values, options);
  const plan = planInit(core, keys, values, options, 'broadcast');
  const writers = writersFor(core, keys, plan.out, new Map(plan.entries.map(([k, e]) => [k, e.data])));
  plan.commit();
  return core.queue.run(plan.keys, async () => {
    await plan.send();
    for (const [key, e] of plan.entries) for (const write of writers.get(key) ?? []) write(e.data);
  });
}

function broadcastUnstored(core: StoreCore, keys: unknown, values: unknown, options: unknown): Promise<void> {
  const o = readOptions(options, 'broadcast', ['out', 'priority']);
  checkPriority(o.priority);
  const pairs = pairKeys(keys, values, { isValue: core.io.isValue, name: 'values' });
  checkKeyKinds(core, pairs);
  const data = new Map(pairs.map(({ key, items }) => [key, core.io.read(items[0], `value of ${keyName(key)}`).data.slice()]));
  const writers = writersFor(core, keys, o.out, data);
  return core.queue.run([...data.keys()], async () => {
    await Promise.all([...data].map(([key, d]) => core.comm.broadcast(d, requestNameOf(core, 'broadcast', key))));
    for (const [key, d] of data) for (const write of writers.get(key) ?? []) write(d);
  });
}
