import { type HostArray } from '@kolo/core';
import { runCollective, type CollectiveResult, type CommonOptions } from './collective.js';
import type { ReduceOpName } from './reduce-op.js';
import { checkOp, reduceAcross } from './reduce-all.js';
import { groupRankOf } from './src-dst.js';
import { deliver, viewTensor, type Tensor } from './tensor-io.js';

/**
 * Options of {@link allReduce}.
 *
 * @example
 * ```ts
 * await dist.allReduce(t, { op: dist.ReduceOp.MAX } satisfies AllReduceOptions);
 * ```
 */
export interface AllReduceOptions extends CommonOptions {
  /** The reduction; default SUM (torch's default; not an average). */
  readonly op?: ReduceOpName;
}

/**
 * torch's `all_reduce`: reduces `tensor` across the group, **in place** for a TypedArray
 * (resolves with the same array), as a **new tensor** for an immutable tfjs tensor. Default
 * SUM. Do not change the array until the call settles.
 *
 * @example
 * ```ts
 * const t = new Float32Array([dist.getRank() + 1]);
 * await dist.allReduce(t); // t = [1 + 2 + … + worldSize]
 * ```
 */
export function allReduce<T extends Tensor, O extends AllReduceOptions = AllReduceOptions>(
  tensor: T,
  options?: O,
): CollectiveResult<O, T> {
  const o: AllReduceOptions = options ?? {};
  return runCollective({
    opName: 'all_reduce',
    group: o.group,
    asyncOp: o.asyncOp,
    fallback: () => tensor,
    plan: (group) => {
      const view = viewTensor(tensor, 'tensor');
      const op = checkOp(o.op, view);
      const name = group.nextName('all_reduce');
      return async () => deliver(tensor, view, await reduceAcross(view, { op, group, name, output: view.data }));
    },
  }) as CollectiveResult<O, T>;
}

/**
 * Options of {@link reduce}.
 *
 * @example
 * ```ts
 * await dist.reduce(t, { dst: 0, op: dist.ReduceOp.SUM } satisfies ReduceOptions);
 * ```
 */
export interface ReduceOptions extends AllReduceOptions {
  /** The global rank that receives the result. */
  readonly dst: number;
}

/**
 * torch's `reduce`: like {@link allReduce}, but only rank `dst` receives the result (in place,
 * or a new tfjs tensor); the other ranks' tensors stay as they were (torch leaves them
 * unspecified). It runs as an allreduce into a scratch array.
 *
 * @example
 * ```ts
 * await dist.reduce(loss, { dst: 0 }); // rank 0's loss is now the sum
 * ```
 */
export function reduce<T extends Tensor, O extends ReduceOptions = ReduceOptions>(tensor: T, options: O): CollectiveResult<O, T> {
  return runCollective({
    opName: 'reduce',
    group: options?.group,
    asyncOp: options?.asyncOp,
    fallback: () => tensor,
    plan: (group) => {
      const view = viewTensor(tensor, 'tensor');
      const op = checkOp(options.op, view);
      const isDst = group.ranks[groupRankOf(group, options.dst, 'dst')] === group.ranks[group.rank()];
      const name = group.nextName('reduce');
      return async () => {
        const scratch = (view.data as Float32Array).slice() as HostArray;
        const result = await reduceAcross(view, { op, group, name, output: scratch });
        return isDst ? deliver(tensor, view, result) : tensor;
      };
    },
  }) as CollectiveResult<O, T>;
}
