import { broadcast as coreBroadcast } from '@kolo/core';
import { runCollective, type CollectiveResult, type CommonOptions } from './collective.js';
import { groupRankOf } from './src-dst.js';
import { deliver, viewTensor, type Tensor } from './tensor-io.js';

/**
 * Options of {@link broadcast}.
 *
 * @example
 * ```ts
 * await dist.broadcast(weights, { src: 0 } satisfies BroadcastOptions);
 * ```
 */
export interface BroadcastOptions extends CommonOptions {
  /** The global rank whose tensor everyone receives. */
  readonly src: number;
}

/**
 * torch's `broadcast`: every rank receives rank `src`'s tensor, in place for a TypedArray, as
 * a new tensor for a tfjs tensor. Every rank passes a tensor of the same dtype and length.
 *
 * @example
 * ```ts
 * const w = new Float32Array(4);
 * if (dist.getRank() === 0) w.fill(1);
 * await dist.broadcast(w, { src: 0 }); // w = [1, 1, 1, 1] everywhere
 * ```
 */
export function broadcast<T extends Tensor, O extends BroadcastOptions = BroadcastOptions>(
  tensor: T,
  options: O,
): CollectiveResult<O, T> {
  return runCollective({
    opName: 'broadcast',
    group: options?.group,
    asyncOp: options?.asyncOp,
    fallback: () => tensor,
    plan: (group) => {
      const view = viewTensor(tensor, 'tensor');
      groupRankOf(group, options.src, 'src');
      const name = group.nextName('broadcast');
      const processSet = group.processSet;
      return async () => {
        const out = await coreBroadcast(view.data, { root: options.src, name, output: view.data, ...(processSet && { processSet }) });
        return deliver(tensor, view, out);
      };
    },
  }) as CollectiveResult<O, T>;
}
