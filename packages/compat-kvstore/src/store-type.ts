import { closestMatch as closest, describeValue, invalidArgCode, invalidArgument, UnsupportedError } from '@kolo/core';

/**
 * What a store does under its type name: `local` and `device` stay in the process, `dist`
 * synchronizes every worker through Kolo, `horovod` is MXNet's Horovod store (pushpull and
 * broadcast only).
 *
 * @example
 * ```ts
 * const kind: StoreKind = parseStoreType('dist_sync_kolo').kind; // 'dist'
 * ```
 */
export type StoreKind = 'local' | 'device' | 'dist' | 'horovod';

/**
 * A parsed type name.
 *
 * @example
 * ```ts
 * const type: StoreType = { name: 'dist_sync', kind: 'dist' };
 * ```
 */
export interface StoreType {
  /** The name as given, lower-cased, with `-` read as `_` (the value `store.type` returns). */
  readonly name: string;
  /** What the store does. */
  readonly kind: StoreKind;
}

const kinds: Readonly<Record<string, StoreKind>> = {
  local: 'local',
  device: 'device',
  dist_sync: 'dist',
  dist_device_sync: 'dist',
  dist_sync_device: 'dist',
  dist_sync_kolo: 'dist',
  dist_sync_perseus: 'dist',
  horovod: 'horovod',
};

/** Every accepted type name, in documentation order. */
export const storeTypeNames: readonly string[] = Object.keys(kinds);

const syncAlternative = "Use 'dist_sync_kolo' (synchronous: every worker applies the optimizer to the summed gradient)";

function unsupportedReason(name: string): string | undefined {
  if (name.includes('_async')) {
    return `Kolo has no parameter server, so nothing can apply each worker's push as it arrives. ${syncAlternative}.`;
  }
  if (name.includes('nccl')) {
    return "Kolo runs one process per device. Use 'dist_sync_kolo' under kolorun (one process per device), or 'device' to sum several values per key in one process.";
  }
  if (name === 'byteps') return `Kolo has no BytePS servers. ${syncAlternative}, or 'horovod' for MXNet's Horovod store.`;
  return undefined;
}

/**
 * Parses a KVStore type name as `mx.kv.create` does (case-insensitive). Unsupported MXNet types
 * (`dist_async`, `nccl`, `byteps`) throw UnsupportedError saying why and what to use; an
 * unknown name throws a TypeError with the closest valid name.
 *
 * @example
 * ```ts
 * parseStoreType('dist_sync_perseus'); // { name: 'dist_sync_perseus', kind: 'dist' }
 * parseStoreType('dist_async');        // UnsupportedError: kvstore type 'dist_async' is not supported: …
 * ```
 */
export function parseStoreType(value: unknown): StoreType {
  if (typeof value !== 'string') throw invalidArgument({ what: 'a string', name: 'kvstore type', value });
  const name = value.toLowerCase().replaceAll('-', '_');
  const kind = kinds[name];
  if (kind !== undefined) return { name, kind };
  const reason = unsupportedReason(name);
  if (reason !== undefined) {
    throw new UnsupportedError(`kvstore type '${name}' is not supported: ${reason}`, { code: 'KOLO_UNSUPPORTED' });
  }
  const what = `one of ${storeTypeNames.map((n) => `'${n}'`).join(', ')}`;
  const guess = closest(name, storeTypeNames);
  const hint = guess === undefined ? '' : `; did you mean '${guess}'?`;
  const message = `Expected ${what} for kvstore type but received ${describeValue(value)}${hint}`;
  throw Object.assign(new TypeError(message), { code: invalidArgCode });
}
