import { allgather, allreduce, expectOneOf, type HostArray, type ReduceOpName as CoreOp } from '@kolo/core';
import { checkReduceDtype, reduceChunks } from './local-reduce.js';
import type { ProcessGroup } from './process-group.js';
import { reduceOpNames, type ReduceOpName } from './reduce-op.js';
import type { TensorView } from './tensor-io.js';

const coreOps: Partial<Record<ReduceOpName, CoreOp>> = {
  sum: 'sum',
  avg: 'average',
  product: 'product',
  min: 'min',
  max: 'max',
};

/**
 * Checks an `op` option (default SUM, as torch) against the tensor's dtype.
 *
 * @example
 * ```ts
 * const op = checkOp(options.op, view); // 'sum'
 * ```
 */
export function checkOp(value: unknown, view: TensorView): ReduceOpName {
  const op = expectOneOf(value ?? 'sum', { name: 'op', choices: reduceOpNames });
  checkReduceDtype(op, view.dtype);
  return op;
}

/**
 * Reduces a tensor's data across `group` into `output` (or a new array): SUM, AVG, PRODUCT, MIN
 * and MAX as one engine allreduce; BAND, BOR and BXOR, which the engine lacks, as an allgather
 * followed by the same element-wise reduction on every rank, in rank order.
 *
 * @example
 * ```ts
 * const sum = await reduceAcross(view, { op: 'sum', group, name: group.nextName('all_reduce') });
 * ```
 */
export async function reduceAcross(
  view: TensorView,
  spec: { op: ReduceOpName; group: ProcessGroup; name: string; output?: HostArray },
): Promise<HostArray> {
  const { op, group, name } = spec;
  const processSet = group.processSet;
  const coreOp = coreOps[op];
  if (coreOp !== undefined) {
    return allreduce(view.data, { op: coreOp, name, ...(processSet && { processSet }), ...(spec.output && { output: spec.output }) });
  }
  const gathered = await allgather(view.data, { name, ...(processSet && { processSet }) });
  const n = view.data.length;
  const all = gathered.data as Int32Array;
  const chunks = Array.from({ length: group.size() }, (_, r) => all.subarray(r * n, (r + 1) * n) as HostArray);
  const reduced = reduceChunks(chunks, { op, dtype: view.dtype });
  if (spec.output === undefined) return reduced;
  (spec.output as Int32Array).set(reduced as Int32Array);
  return spec.output;
}
