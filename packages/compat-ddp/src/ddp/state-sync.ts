import { broadcast as coreBroadcast, type HostArray } from '@kolo/core';
import type { Tensor as TfTensor } from '@tensorflow/tfjs-core';
import type { LayerVariable } from '@tensorflow/tfjs-layers';
import type { TfCore } from '../load-tf.js';
import { allGatherObject } from '../object-collectives.js';
import type { ProcessGroup } from '../process-group.js';
import { runtimeError } from '../torch-errors.js';

/** torch's bucket size for broadcasting module state (DDP's `broadcast_bucket_size`, 250 MiB). */
export const stateBucketBytes = 250 * 1024 * 1024;

const shapeText = (shape: readonly number[]): string => `[${shape.join(', ')}]`;

/**
 * torch's `_verify_param_shape_across_processes`: every rank must hold as many parameters as the
 * others, of the same shapes as process 0's; otherwise it throws torch's `DDP expects same model
 * across all ranks, but Rank 1 has 4 params, while rank 0 has inconsistent 2 params.` or
 * `[1]: params[0] in this process with sizes [4, 2] appears not to match sizes of the same param
 * in process 0.` (shapes are tfjs's, e.g. a Dense kernel is [in, out]).
 *
 * @example
 * ```ts
 * await verifyModelAcrossRanks(model.trainableWeights, group);
 * ```
 */
export async function verifyModelAcrossRanks(params: readonly LayerVariable[], group: ProcessGroup): Promise<void> {
  const mine = params.map((p) => [...p.shape] as number[]);
  const all = (await allGatherObject(new Array<unknown>(group.size()).fill(null), mine, { group })) as number[][][];
  const me = group.rank();
  const countMismatch = all.findIndex((other) => other.length !== mine.length);
  if (countMismatch >= 0) {
    throw runtimeError(`DDP expects same model across all ranks, but Rank ${me} has ${mine.length} params, while rank ${countMismatch} has inconsistent ${all[countMismatch]?.length} params.`);
  }
  const reference = all[0] ?? [];
  const differs = (shapes: number[][]): number => shapes.findIndex((s, i) => shapeText(s) !== shapeText(reference[i] ?? []));
  const own = differs(mine);
  if (own >= 0) {
    throw runtimeError(`[${me}]: params[${own}] in this process with sizes ${shapeText(mine[own] ?? [])} appears not to match sizes of the same param in process 0.`);
  }
  const other = all.findIndex((shapes) => differs(shapes) >= 0);
  if (other >= 0) {
    throw runtimeError(`[${me}]: the parameters of rank ${other} do not match process 0's; see rank ${other}'s error.`);
  }
}

/** Variables of one dtype, packed into buckets of at most `stateBucketBytes` (one variable may exceed it). */
function stateBuckets(variables: readonly LayerVariable[]): LayerVariable[][] {
  const buckets: LayerVariable[][] = [];
  const open = new Map<string, { vars: LayerVariable[]; bytes: number }>();
  for (const v of variables) {
    const bytes = v.shape.reduce((a: number, b) => a * (b ?? 1), 1) * 4;
    const bucket = open.get(v.dtype) ?? { vars: [], bytes: 0 };
    if (bucket.vars.length > 0 && bucket.bytes + bytes > stateBucketBytes) {
      buckets.push(bucket.vars);
      bucket.vars = [];
      bucket.bytes = 0;
    }
    bucket.vars.push(v);
    bucket.bytes += bytes;
    open.set(v.dtype, bucket);
  }
  for (const b of open.values()) if (b.vars.length > 0) buckets.push(b.vars);
  return buckets;
}

/**
 * Overwrites `variables` on every rank of `group` with the values of `root` (default its first
 * rank), packed per dtype into coalesced broadcasts of up to 250 MiB (torch's
 * `_sync_module_states`).
 *
 * @example
 * ```ts
 * await broadcastVariables(tf, model.weights, { group, name: 'ddp0.init' });
 * ```
 */
export async function broadcastVariables(
  tf: TfCore,
  variables: readonly LayerVariable[],
  spec: { group: ProcessGroup; name: string; root?: number },
): Promise<void> {
  const processSet = spec.group.processSet;
  const root = spec.root ?? (spec.group.ranks[0] as number);
  let k = 0;
  for (const bucket of stateBuckets(variables)) {
    const values = bucket.map((v) => v.read().dataSync() as Float32Array | Int32Array);
    const total = values.reduce((n, a) => n + a.length, 0);
    const packed = bucket[0]?.dtype === 'int32' ? new Int32Array(total) : new Float32Array(total);
    values.reduce((offset, a) => (packed.set(a, offset), offset + a.length), 0);
    await coreBroadcast(packed as HostArray, { root, name: `${spec.name}.${k++}`, output: packed as HostArray, ...(processSet && { processSet }) });
    let offset = 0;
    for (const v of bucket) {
      const n = v.shape.reduce((a: number, b) => a * (b ?? 1), 1);
      const t: TfTensor = tf.tensor(packed.subarray(offset, offset + n), [...v.shape] as number[], v.dtype as 'float32' | 'int32');
      v.write(t);
      t.dispose();
      offset += n;
    }
  }
}
