import * as core from '@kolo/core';
import { horovodCall } from './horovod-errors.js';

/**
 * Marks this rank as done and waits until every rank joined; resolves with the rank that joined
 * last (the same on every rank). Until then, the other ranks' allreduces proceed with zeros for
 * this rank (Average still divides by `size()`); allgather, broadcast, alltoall and reducescatter
 * fail while a rank is joined.
 *
 * @example
 * ```ts
 * for (const batch of myShard) await step(batch);
 * const last = await hvd.join();
 * ```
 */
export function join(): Promise<number> {
  return horovodCall(() => core.join());
}
