import * as core from '@kolo/core';
import { horovodCall } from './horovod-errors.js';
import { readOptions } from './options.js';

/**
 * Options of {@link broadcastObject} and {@link allgatherObject}.
 *
 * @example
 * ```ts
 * const options: ObjectCollectiveOptions = { name: 'config' };
 * ```
 */
export interface ObjectCollectiveOptions {
  /** Matches the request across ranks, as given; default `<op>.noname.<n>`. */
  readonly name?: string;
}

/**
 * Sends a JSON-serializable value from `rootRank` (default 0) to every rank; the other ranks'
 * `obj` is ignored. Horovod pickles any Python object; Kolo uses JSON.
 *
 * @example
 * ```ts
 * const config = await hvd.broadcastObject(hvd.rank() === 0 ? { lr: 0.1 } : null);
 * ```
 */
export function broadcastObject<T>(
  obj: T,
  rootRank = 0,
  options?: ObjectCollectiveOptions,
): Promise<T> {
  return horovodCall(() => {
    core.size();
    const o = readOptions(options, { opName: 'broadcast_object', allowed: ['name'] });
    return core.broadcastObject(obj, { root: rootRank, ...o });
  });
}

/**
 * Gathers a JSON-serializable value from every rank into an array in rank order.
 *
 * @example
 * ```ts
 * const counts = await hvd.allgatherObject({ rank: hvd.rank(), seen: n });
 * ```
 */
export function allgatherObject<T>(obj: T, options?: ObjectCollectiveOptions): Promise<T[]> {
  return horovodCall(() => {
    core.size();
    const o = readOptions(options, { opName: 'allgather_object', allowed: ['name'] });
    return core.allgatherObject(obj, o);
  });
}
