import { alltoall, invalidArgument, type HostArray } from '@kolo/core';
import { runCollective, type CollectiveResult } from './collective.js';
import { reduceChunks } from './local-reduce.js';
import type { ProcessGroup } from './process-group.js';
import type { AllReduceOptions } from './all-reduce.js';
import { checkOp } from './reduce-all.js';
import type { ReduceOpName } from './reduce-op.js';
import { concatViews, viewList } from './tensor-lists.js';
import { deliver, viewTensor, type Tensor, type TensorView } from './tensor-io.js';

/** Sends chunk i to rank i, then reduces the chunks this rank received, in rank order. */
async function exchangeAndReduce(
  data: HostArray,
  spec: { splits: number[]; out: TensorView; op: ReduceOpName; group: ProcessGroup; name: string },
): Promise<HostArray> {
  const { group, out } = spec;
  const processSet = group.processSet;
  const got = await alltoall(data, { splits: spec.splits, name: spec.name, ...(processSet && { processSet }) });
  const n = out.data.length;
  if (got.receivedSplits.some((k) => k !== n)) {
    const what = `every rank to send this rank ${n} elements (the length of output)`;
    throw invalidArgument({ what, name: 'output', value: `[${got.receivedSplits.join(', ')}]`, kind: 'range' });
  }
  const all = got.data as Int32Array;
  const chunks = got.receivedSplits.map((_, r) => all.subarray(r * n, (r + 1) * n) as HostArray);
  return reduceChunks(chunks, { op: spec.op, dtype: out.dtype });
}

/**
 * torch's `reduce_scatter`: rank i receives the reduction (default SUM) of every rank's
 * `inputList[i]`, into `output` (in place, or a new tfjs tensor). One alltoall, then the
 * element-wise reduction in rank order, so every ReduceOp works (AVG and the bitwise ones too).
 *
 * @example
 * ```ts
 * const out = new Float32Array(1);
 * await dist.reduceScatter(out, [new Float32Array([1]), new Float32Array([2])]); // rank 1: out = [2 * worldSize]
 * ```
 */
export function reduceScatter<T extends Tensor, O extends AllReduceOptions = AllReduceOptions>(
  output: T,
  inputList: Tensor[],
  options?: O,
): CollectiveResult<O, T> {
  const o: AllReduceOptions = options ?? {};
  return runCollective({
    opName: 'reduce_scatter',
    group: o.group,
    asyncOp: o.asyncOp,
    fallback: () => output,
    plan: (group) => {
      const out = viewTensor(output, 'output');
      const op = checkOp(o.op, out);
      const views = viewList(inputList, { name: 'inputList', length: group.size(), dtype: out.dtype });
      const name = group.nextName('reduce_scatter');
      return async () => {
        const data = concatViews(views, out.dtype);
        const splits = views.map((v) => v.data.length);
        return deliver(output, out, await exchangeAndReduce(data, { splits, out, op, group, name }));
      };
    },
  }) as CollectiveResult<O, T>;
}

/**
 * torch's `reduce_scatter_tensor`: `input` holds group-size equal chunks; rank i receives the
 * reduction (default SUM) of every rank's chunk i into `output`.
 *
 * @example
 * ```ts
 * const out = new Int32Array(2);
 * await dist.reduceScatterTensor(out, new Int32Array(2 * dist.getWorldSize()).fill(1)); // out = [W, W]
 * ```
 */
export function reduceScatterTensor<T extends Tensor, O extends AllReduceOptions = AllReduceOptions>(
  output: T,
  input: Tensor,
  options?: O,
): CollectiveResult<O, T> {
  const o: AllReduceOptions = options ?? {};
  return runCollective({
    opName: 'reduce_scatter_tensor',
    group: o.group,
    asyncOp: o.asyncOp,
    fallback: () => output,
    plan: (group) => {
      const out = viewTensor(output, 'output');
      const inView = viewTensor(input, 'input');
      const op = checkOp(o.op, out);
      const n = out.data.length;
      if (inView.data.length !== n * group.size() || inView.dtype !== out.dtype) {
        const what = `a ${out.dtype} tensor of ${n * group.size()} elements (group size × output length)`;
        throw invalidArgument({ what, name: 'input', value: `a ${inView.dtype} tensor of ${inView.data.length}`, kind: 'range' });
      }
      const name = group.nextName('reduce_scatter_tensor');
      return async () => {
        const splits = Array.from({ length: group.size() }, () => n);
        return deliver(output, out, await exchangeAndReduce(inView.data, { splits, out, op, group, name }));
      };
    },
  }) as CollectiveResult<O, T>;
}
