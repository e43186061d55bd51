import * as core from '@kolo/core';
import type { HostArray, SameKind } from '@kolo/core';
import { toHandle, type Handle } from './handles.js';
import { horovodCall } from './horovod-errors.js';
import { readOptions } from './options.js';
import type { ProcessSetOption } from './process-sets.js';

/**
 * Options of {@link allgather}.
 *
 * @example
 * ```ts
 * const options: AllgatherOptions = { name: 'rows', shape: [rows, 3] };
 * ```
 */
export interface AllgatherOptions extends ProcessSetOption {
  /** Matches the request across ranks, as given; default `allgather.noname.<n>`. */
  readonly name?: string;
  /** Logical shape; the first dimension may differ per rank, the others must match. */
  readonly shape?: readonly number[];
}

/**
 * Concatenates every rank's `tensor` along the first dimension, in rank order, into a new
 * array (rank r's rows first after ranks 0 … r-1's). First dimensions may differ per rank.
 *
 * @example
 * ```ts
 * const all = await hvd.allgather(new Int32Array([hvd.rank()])); // [0, 1, …, size-1]
 * ```
 */
export function allgather<T extends HostArray>(
  tensor: T,
  options?: AllgatherOptions,
): Promise<SameKind<T>> {
  return horovodCall(() => {
    core.size();
    const o = readOptions(options, {
      opName: 'allgather',
      allowed: ['name', 'shape', 'processSet'],
    });
    return core.allgather(tensor, o).then((r) => r.data);
  });
}

/**
 * Starts {@link allgather}; returns a handle for `hvd.synchronize`.
 *
 * @example
 * ```ts
 * const all = await hvd.synchronize(hvd.allgatherAsync(rows, { shape: [n, 3] }));
 * ```
 */
export function allgatherAsync<T extends HostArray>(
  tensor: T,
  options?: AllgatherOptions,
): Handle<SameKind<T>> {
  return toHandle(allgather(tensor, options));
}
