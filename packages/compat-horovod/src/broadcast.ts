import * as core from '@kolo/core';
import type { HostArray, SameKind } from '@kolo/core';
import { toHandle, type Handle } from './handles.js';
import { horovodCall } from './horovod-errors.js';
import { readOptions } from './options.js';
import type { ProcessSetOption } from './process-sets.js';

/**
 * Options of {@link broadcast}.
 *
 * @example
 * ```ts
 * const options: BroadcastOptions = { name: 'weights', shape: [784, 10] };
 * ```
 */
export interface BroadcastOptions extends ProcessSetOption {
  /** Matches the request across ranks, as given; default `broadcast.noname.<n>`. */
  readonly name?: string;
  /** Logical shape, checked against the other ranks; default `[tensor.length]`. */
  readonly shape?: readonly number[];
}

function run<T extends HostArray>(
  tensor: T,
  rootRank: number,
  options: unknown,
  inPlace: boolean,
): Promise<HostArray> {
  const opName = inPlace ? 'broadcast_' : 'broadcast';
  return horovodCall(() => {
    core.size();
    const o = readOptions(options as BroadcastOptions | undefined, {
      opName,
      allowed: ['name', 'shape', 'processSet'],
    });
    return core.broadcast(tensor, { root: rootRank, ...o, ...(inPlace && { output: tensor }) });
  });
}

/**
 * Returns a new array holding rank `rootRank`'s `tensor` on every rank; `tensor` is unchanged.
 *
 * @example
 * ```ts
 * const weights = await hvd.broadcast(local, 0, { name: 'weights' });
 * ```
 */
export function broadcast<T extends HostArray>(
  tensor: T,
  rootRank: number,
  options?: BroadcastOptions,
): Promise<SameKind<T>> {
  return run(tensor, rootRank, options, false) as Promise<SameKind<T>>;
}

/**
 * In-place {@link broadcast} (Horovod's `broadcast_`): `tensor` receives the root's values and
 * the promise resolves with it.
 *
 * @example
 * ```ts
 * await hvd.broadcast_(weights, 0);
 * ```
 */
export function broadcastInplace<T extends HostArray>(
  tensor: T,
  rootRank: number,
  options?: BroadcastOptions,
): Promise<T> {
  return run(tensor, rootRank, options, true) as Promise<T>;
}

/**
 * Starts {@link broadcast}; returns a handle for `hvd.synchronize`.
 *
 * @example
 * ```ts
 * const w = await hvd.synchronize(hvd.broadcastAsync(weights, 0));
 * ```
 */
export function broadcastAsync<T extends HostArray>(
  tensor: T,
  rootRank: number,
  options?: BroadcastOptions,
): Handle<SameKind<T>> {
  return toHandle(broadcast(tensor, rootRank, options));
}

/**
 * Starts {@link broadcastInplace}; returns a handle for `hvd.synchronize`.
 *
 * @example
 * ```ts
 * await hvd.synchronize(hvd.broadcastAsyncInplace(weights, 0));
 * ```
 */
export function broadcastAsyncInplace<T extends HostArray>(
  tensor: T,
  rootRank: number,
  options?: BroadcastOptions,
): Handle<T> {
  return toHandle(broadcastInplace(tensor, rootRank, options));
}
