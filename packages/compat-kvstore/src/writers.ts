import { invalidArgument, type HostArray } from '@kolo/core';
import { pairKeys, type Key } from './keys.js';
import { keyName, type StoreCore } from './store-core.js';

/**
 * A function that copies a result into one output.
 *
 * @example
 * ```ts
 * const write: Writer = (data) => out.set(data);
 * ```
 */
export type Writer = (data: HostArray) => void;

/**
 * Checks `out` (one output or a list per key, structured like `keys`) against the arrays each
 * key's result will look like, and returns the writers per key. `out` is required.
 *
 * @example
 * ```ts
 * const writers = writersFor(core, [0, 1], [out0, [out1a, out1b]], like);
 * ```
 */
export function writersFor(core: StoreCore, keys: unknown, out: unknown, like: ReadonlyMap<Key, HostArray>): Map<Key, Writer[]> {
  if (out === undefined) throw invalidArgument({ what: 'an output (or a list of outputs) per key', name: 'out', value: out });
  const pairs = pairKeys(keys, out, { isValue: core.io.isValue, name: 'out' });
  return new Map(
    pairs.map(({ key, items }) => {
      const shape = like.get(key);
      if (shape === undefined) throw new RangeError(`No result for ${keyName(key)}`);
      return [key, items.map((o) => core.io.writer(o, shape, `out of ${keyName(key)}`))];
    }),
  );
}
