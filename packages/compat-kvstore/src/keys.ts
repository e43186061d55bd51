import { describeValue, invalidArgument } from '@kolo/core';

/**
 * A KVStore key: an integer (gluon uses parameter indices) or a string. One store holds keys of
 * one kind only, as MXNet ("Mixed key types are not allowed").
 *
 * @example
 * ```ts
 * const keys: Key[] = [0, 1, 2];
 * ```
 */
export type Key = number | string;

/**
 * One key and the values (or outputs) given for it, in call order.
 *
 * @example
 * ```ts
 * const pair: KeyItems = { key: 3, items: [gradOnDevice0, gradOnDevice1] };
 * ```
 */
export interface KeyItems {
  /** The key. */
  readonly key: Key;
  /** One or more values or outputs, unchecked. */
  readonly items: readonly unknown[];
}

/**
 * How a key appears in messages and request names: `3` or `'w'`.
 *
 * @example
 * ```ts
 * keyLabel('w'); // "'w'"
 * ```
 */
export function keyLabel(key: Key): string {
  return describeValue(key);
}

function expectKey(key: unknown, name: string): Key {
  if ((typeof key === 'number' && Number.isSafeInteger(key)) || (typeof key === 'string' && key !== '')) {
    return key;
  }
  throw invalidArgument({ what: 'an integer or a non-empty string', name, value: key });
}

function itemsOf(entry: unknown, isValue: (v: unknown) => boolean, name: string): unknown[] {
  if (Array.isArray(entry) && !isValue(entry)) {
    if (entry.length === 0) throw invalidArgument({ what: 'one value or a non-empty list of values', name, value: entry });
    return entry;
  }
  return [entry];
}

/**
 * Pairs `keys` (one key or a list) with `values` the MXNet way: one key takes one value or a
 * list of values (one per device, summed before they leave the process); a list of keys takes a
 * list of the same length whose entries are either. Repeated keys are grouped, keeping the first
 * position. Throws a TypeError for bad keys, mixed key kinds or mismatched lengths.
 *
 * @example
 * ```ts
 * pairKeys([3, 5], [a, [b1, b2]], { isValue: ArrayBuffer.isView, name: 'values' });
 * // [{ key: 3, items: [a] }, { key: 5, items: [b1, b2] }]
 * ```
 */
export function pairKeys(
  keys: unknown,
  values: unknown,
  spec: { readonly isValue: (v: unknown) => boolean; readonly name: string },
): KeyItems[] {
  if (!Array.isArray(keys)) return [{ key: expectKey(keys, 'key'), items: itemsOf(values, spec.isValue, spec.name) }];
  if (keys.length === 0) throw invalidArgument({ what: 'a key or a non-empty list of keys', name: 'keys', value: keys });
  const checked = keys.map((k, i) => expectKey(k, `keys[${i}]`));
  if (new Set(checked.map((k) => typeof k)).size > 1) {
    throw invalidArgument({ what: 'keys of one kind (all integers or all strings)', name: 'keys', value: keys });
  }
  if (!Array.isArray(values) || values.length !== keys.length) {
    throw invalidArgument({ what: `a list of ${keys.length} entries (one per key)`, name: spec.name, value: values });
  }
  const grouped = new Map<Key, unknown[]>();
  checked.forEach((key, i) => {
    const items = itemsOf(values[i], spec.isValue, `${spec.name}[${i}]`);
    grouped.set(key, [...(grouped.get(key) ?? []), ...items]);
  });
  return [...grouped].map(([key, items]) => ({ key, items }));
}
