import { allgather, invalidArgument } from '@kolo/core';
import { runCollective, type CollectiveResult, type CommonOptions } from './collective.js';
import { scatterInto, viewList } from './tensor-lists.js';
import { deliver, viewTensor, type Tensor } from './tensor-io.js';

/**
 * torch's `all_gather`: fills `tensorList` (one tensor per rank of the group, pre-sized; sizes
 * may differ per rank) with every rank's `tensor`, in rank order. TypedArrays are filled in
 * place; tfjs tensors in the list are replaced by new ones. Resolves with the list.
 *
 * @example
 * ```ts
 * const out = [new Int32Array(1), new Int32Array(1)];
 * await dist.allGather(out, new Int32Array([dist.getRank()])); // out = [[0], [1]]
 * ```
 */
export function allGather<T extends Tensor, O extends CommonOptions = CommonOptions>(
  tensorList: T[],
  tensor: Tensor,
  options?: O,
): CollectiveResult<O, T[]> {
  const o: CommonOptions = options ?? {};
  return runCollective({
    opName: 'all_gather',
    group: o.group,
    asyncOp: o.asyncOp,
    fallback: () => tensorList,
    outputs: (list) => list,
    plan: (group) => {
      const view = viewTensor(tensor, 'tensor');
      const views = viewList(tensorList, { name: 'tensorList', length: group.size(), dtype: view.dtype });
      const mine = views[group.rank()]?.data.length;
      if (mine !== view.data.length) {
        const what = `tensorList[${group.rank()}] (this rank's slot) with the length of tensor, ${view.data.length}`;
        throw invalidArgument({ what, name: 'tensorList', value: `length ${String(mine)}`, kind: 'range' });
      }
      const name = group.nextName('all_gather');
      const processSet = group.processSet;
      return async () => {
        const gathered = await allgather(view.data, { name, ...(processSet && { processSet }) });
        const expected = views.reduce((n, v) => n + v.data.length, 0);
        if (gathered.data.length !== expected) {
          throw invalidArgument({ what: `tensors whose lengths match tensorList (${expected} elements in all)`, name: 'tensorList', value: `${gathered.data.length} gathered elements`, kind: 'range' });
        }
        return (await scatterInto(tensorList, views, gathered.data)) as T[];
      };
    },
  }) as CollectiveResult<O, T[]>;
}

/**
 * torch's `all_gather_into_tensor`: concatenates every rank's `input` (equal sizes) into
 * `output` (group size × input length), in rank order. Resolves with `output` (a new tensor
 * for tfjs).
 *
 * @example
 * ```ts
 * const out = new Float32Array(2 * dist.getWorldSize());
 * await dist.allGatherIntoTensor(out, new Float32Array([r, r]));
 * ```
 */
export function allGatherIntoTensor<T extends Tensor, O extends CommonOptions = CommonOptions>(
  output: T,
  input: Tensor,
  options?: O,
): CollectiveResult<O, T> {
  const o: CommonOptions = options ?? {};
  return runCollective({
    opName: 'all_gather_into_tensor',
    group: o.group,
    asyncOp: o.asyncOp,
    fallback: () => output,
    plan: (group) => {
      const inView = viewTensor(input, 'input');
      const outView = viewTensor(output, 'output');
      const want = inView.data.length * group.size();
      if (outView.data.length !== want || outView.dtype !== inView.dtype) {
        const what = `a ${inView.dtype} tensor of ${want} elements (group size × input length)`;
        throw invalidArgument({ what, name: 'output', value: `a ${outView.dtype} tensor of ${outView.data.length}`, kind: 'range' });
      }
      const name = group.nextName('all_gather_into_tensor');
      const processSet = group.processSet;
      return async () => {
        const gathered = await allgather(inView.data, { name, ...(processSet && { processSet }) });
        return deliver(output, outView, gathered.data);
      };
    },
  }) as CollectiveResult<O, T>;
}
