import { allreduce } from '@kolo/core';
import type { LayerVariable } from '@tensorflow/tfjs-layers';
import type { Tensor as TfTensor } from '@tensorflow/tfjs-core';
import type { TfCore } from '../load-tf.js';
import type { ProcessGroup } from '../process-group.js';
import type { GradientStore } from './gradient-store.js';

/** What one gradient synchronization needs. */
export interface ReduceGradientsSpec {
  /** Shapes of the parameters, by registration index. */
  readonly shapes: readonly (readonly number[])[];
  /** Parameter indices per bucket, in reduction order. */
  readonly buckets: readonly (readonly number[])[];
  readonly group: ProcessGroup;
  /** Request-name prefix, the same on every rank, e.g. `ddp0.step3`. */
  readonly name: string;
  /** Gradients are multiplied by 1/divisor before the sum (torch divides by the world size). */
  readonly divisor: number;
  /** Parameters no rank used (with findUnusedParameters): left without a gradient. */
  readonly globallyUnused?: ReadonlySet<number>;
}

/**
 * Averages local gradients across the group bucket by bucket, as torch's reducer: each bucket
 * is packed into one flat buffer (zeros for a parameter without a local gradient), scaled by
 * 1/divisor and its allreduce starts at once, so the engine reduces bucket k while this thread
 * packs bucket k+1. Resolves with new gradient tensors by parameter index (the inputs are not
 * disposed).
 *
 * @example
 * ```ts
 * const averaged = await reduceGradients(tf, grads, { shapes, buckets, group, name: 'ddp0.s1', divisor: 2 });
 * ```
 */
export async function reduceGradients(
  tf: TfCore,
  grads: ReadonlyMap<number, TfTensor>,
  spec: ReduceGradientsSpec,
): Promise<Map<number, TfTensor>> {
  const processSet = spec.group.processSet;
  const size = (i: number): number => (spec.shapes[i] ?? []).reduce((a, b) => a * b, 1);
  const started = spec.buckets.map((bucket, k) => {
    const buffer = new Float32Array(bucket.reduce((n, i) => n + size(i), 0));
    let offset = 0;
    for (const i of bucket) {
      const grad = grads.get(i);
      if (grad !== undefined) buffer.set(grad.dataSync() as Float32Array, offset);
      offset += size(i);
    }
    const options = { op: 'sum', prescaleFactor: 1 / spec.divisor, name: `${spec.name}.bucket${k}`, output: buffer } as const;
    return allreduce(buffer, { ...options, ...(processSet && { processSet }) }).then(() => buffer);
  });
  const reduced = await Promise.all(started);
  const out = new Map<number, TfTensor>();
  spec.buckets.forEach((bucket, k) => {
    let offset = 0;
    for (const i of bucket) {
      const n = size(i);
      if (!spec.globallyUnused?.has(i)) out.set(i, tf.tensor((reduced[k] as Float32Array).subarray(offset, offset + n), [...(spec.shapes[i] ?? [])]));
      offset += n;
    }
  });
  return out;
}

/**
 * One synchronizing step of DDP: with `findUnused`, first an allreduce of which parameters have
 * a gradient on any rank (torch's `local_used_map`); then {@link reduceGradients}; the store's
 * gradients are replaced by the averages (parameters no rank used keep none).
 *
 * @example
 * ```ts
 * await synchronizeGradients(tf, store, { params, buckets, group, divisor: group.size(), findUnused: false });
 * ```
 */
export async function synchronizeGradients(
  tf: TfCore,
  store: GradientStore,
  spec: { params: readonly LayerVariable[]; buckets: readonly (readonly number[])[]; group: ProcessGroup; divisor: number; findUnused: boolean },
): Promise<void> {
  const { params, group } = spec;
  const processSet = group.processSet;
  let globallyUnused: Set<number> | undefined;
  if (spec.findUnused) {
    const used = Int32Array.from(params, (_, i) => (store.has(i) ? 1 : 0));
    await allreduce(used, { op: 'sum', name: group.nextName('ddp_used'), output: used, ...(processSet && { processSet }) });
    globallyUnused = new Set(params.flatMap((_, i) => (used[i] === 0 ? [i] : [])));
  }
  const shapes = params.map((p) => p.shape as number[]);
  const name = group.nextName('ddp_grads');
  const reduced = await reduceGradients(tf, store.entries(), { shapes, buckets: spec.buckets, group, name, divisor: spec.divisor, ...(globallyUnused && { globallyUnused }) });
  store.replace(reduced);
}
