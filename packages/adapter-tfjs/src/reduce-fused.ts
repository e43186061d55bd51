import { allreduce, allreduceSync, size } from '@kolo/core';
import { float32ToHalfBits, halfBitsToFloat32 } from './fp16.js';

/**
 * How a fused gradient buffer is reduced across ranks.
 *
 * @example
 * ```ts
 * const plan: Reduction = { name: 'DistributedOptimizer.grads', op: 'average', compression: 'none', predivide: 1, localScale: 1 };
 * ```
 */
export interface Reduction {
  /** The request name on the wire; identical on every rank. */
  readonly name: string;
  /** `average` (Horovod's default) or `sum` across ranks. */
  readonly op: 'average' | 'sum';
  /** `fp16` sends IEEE half bits (half the bytes), `none` sends float32. */
  readonly compression: 'none' | 'fp16';
  /** Horovod's gradient predivide factor: divide by it before the sum, multiply after. */
  readonly predivide: number;
  /** Multiplies each rank's input (1/backwardPassesPerStep averages accumulated passes). */
  readonly localScale: number;
}

/** Pre- and post-scale factors of a reduction, as Horovod splits an average. */
function scales(plan: Reduction): { pre: number; post: number } {
  if (plan.op === 'sum') return { pre: plan.localScale, post: 1 };
  return { pre: plan.localScale / plan.predivide, post: plan.predivide };
}

function scaleInPlace(values: Float32Array, factor: number): Float32Array {
  if (factor !== 1) for (let i = 0; i < values.length; i++) values[i] = (values[i] as number) * factor;
  return values;
}

/**
 * Reduces `fused` in place across all ranks, **blocking** the JS thread (for tfjs's synchronous
 * `applyGradients`). With fp16 compression the sum travels as half bits and is rescaled in
 * float32 afterwards.
 *
 * @example
 * ```ts
 * reduceFusedSync(fuseGradients(entries), plan);
 * ```
 */
export function reduceFusedSync(fused: Float32Array, plan: Reduction): Float32Array {
  const { pre, post } = scales(plan);
  if (plan.compression === 'fp16') {
    const half = float32ToHalfBits(scaleInPlace(fused, pre));
    allreduceSync(half, { name: plan.name, op: 'sum', output: half });
    const average = plan.op === 'average' ? 1 / size() : 1;
    return scaleInPlace(halfBitsToFloat32(half, fused), post * average);
  }
  return allreduceSync(fused, {
    name: plan.name,
    op: plan.op,
    prescaleFactor: pre,
    postscaleFactor: post,
    output: fused,
  });
}

/**
 * Like {@link reduceFusedSync} but resolves without blocking the event loop (custom loops).
 *
 * @example
 * ```ts
 * await reduceFused(fuseGradients(entries), plan);
 * ```
 */
export async function reduceFused(fused: Float32Array, plan: Reduction): Promise<Float32Array> {
  const { pre, post } = scales(plan);
  if (plan.compression === 'fp16') {
    const half = float32ToHalfBits(scaleInPlace(fused, pre));
    await allreduce(half, { name: plan.name, op: 'sum', output: half });
    const average = plan.op === 'average' ? 1 / size() : 1;
    return scaleInPlace(halfBitsToFloat32(half, fused), post * average);
  }
  return allreduce(fused, {
    name: plan.name,
    op: plan.op,
    prescaleFactor: pre,
    postscaleFactor: post,
    output: fused,
  });
}
