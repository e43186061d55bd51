import * as core from '@kolo/core';
import type { HostArray, SameKind } from '@kolo/core';
import { planSplits } from './alltoall-splits.js';
import { toHandle, type Handle } from './handles.js';
import { horovodCall } from './horovod-errors.js';
import { readOptions } from './options.js';
import type { ProcessSetOption } from './process-sets.js';

/**
 * Options of {@link alltoall}.
 *
 * @example
 * ```ts
 * const options: AlltoallOptions = { name: 'tokens', shape: [rows, 16] };
 * ```
 */
export interface AlltoallOptions extends ProcessSetOption {
  /** Matches the request across ranks, as given; default `alltoall.noname.<n>`. */
  readonly name?: string;
  /** Logical shape; dimensions after the first must match on every rank. */
  readonly shape?: readonly number[];
}

/** Rows of the first dimension for each rank: an Int32Array or an array of integers. */
export type Splits = Int32Array | readonly number[];

function run(
  tensor: HostArray,
  splits: unknown,
  options: unknown,
): Promise<[HostArray, Int32Array]> {
  return horovodCall(() => {
    const worldSize = core.size();
    const o = readOptions(options as AlltoallOptions | undefined, {
      opName: 'alltoall',
      allowed: ['name', 'shape', 'processSet'],
    });
    // Splits count the set's members; a malformed set is left for core to refuse.
    const members = (o.processSet as { ranks?: unknown } | undefined)?.ranks;
    const size = Array.isArray(members) ? members.length : worldSize;
    const length = ArrayBuffer.isView(tensor) ? tensor.length : 0;
    const plan = planSplits(splits, { size, length, shape: o.shape });
    const data = plan.length === length ? tensor : tensor.subarray(0, plan.length);
    return core
      .alltoall(data, {
        name: o.name,
        shape: plan.shape,
        splits: plan.splits,
        processSet: o.processSet,
      })
      .then((r) => [r.data, Int32Array.from(r.receivedSplits)] as [HostArray, Int32Array]);
  });
}

/**
 * Sends `splits[r]` consecutive rows of `tensor` (first dimension) to each rank r, in order, and
 * concatenates what every rank sent here. Without `splits` the rows are split evenly and the
 * promise resolves with the received array; with `splits` it resolves with
 * `[received, receivedSplits]`, as Horovod. Rows past the sum of `splits` are not sent. With a
 * process set, `splits` has one entry per member, in the set's rank order.
 *
 * @example
 * ```ts
 * const [mine, counts] = await hvd.alltoall(rows, [1, 2], { shape: [3, 4] });
 * ```
 */
export function alltoall<T extends HostArray>(
  tensor: T,
  splits?: undefined,
  options?: AlltoallOptions,
): Promise<SameKind<T>>;
export function alltoall<T extends HostArray>(
  tensor: T,
  splits: Splits,
  options?: AlltoallOptions,
): Promise<[SameKind<T>, Int32Array]>;
export function alltoall(
  tensor: HostArray,
  splits?: Splits,
  options?: AlltoallOptions,
): Promise<unknown> {
  const started = run(tensor, splits, options);
  return splits === undefined || splits === null ? started.then(([data]) => data) : started;
}

/**
 * Starts {@link alltoall}; returns a handle for `hvd.synchronize`.
 *
 * @example
 * ```ts
 * const [mine, counts] = await hvd.synchronize(hvd.alltoallAsync(rows, [1, 2]));
 * ```
 */
export function alltoallAsync<T extends HostArray>(
  tensor: T,
  splits?: undefined,
  options?: AlltoallOptions,
): Handle<SameKind<T>>;
export function alltoallAsync<T extends HostArray>(
  tensor: T,
  splits: Splits,
  options?: AlltoallOptions,
): Handle<[SameKind<T>, Int32Array]>;
export function alltoallAsync(
  tensor: HostArray,
  splits?: Splits,
  options?: AlltoallOptions,
): Handle<unknown> {
  return toHandle(alltoall(tensor, splits as Splits, options));
}
