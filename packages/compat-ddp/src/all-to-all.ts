import { alltoall, invalidArgument } from '@kolo/core';
import { runCollective, type CollectiveResult, type CommonOptions } from './collective.js';
import { concatViews, scatterInto, viewList } from './tensor-lists.js';
import { deliver, viewTensor, type Tensor } from './tensor-io.js';

/**
 * torch's `all_to_all`: `inputList[i]` goes to the i-th rank of the group, and `outputList[i]`
 * receives what the i-th rank sent here (lengths may differ; each output must match). Resolves
 * with `outputList` (TypedArrays filled in place, tfjs tensors replaced).
 *
 * @example
 * ```ts
 * const out = [new Int32Array(1), new Int32Array(1)];
 * await dist.allToAll(out, [new Int32Array([r * 10]), new Int32Array([r * 10 + 1])]);
 * ```
 */
export function allToAll<T extends Tensor, O extends CommonOptions = CommonOptions>(
  outputList: T[],
  inputList: Tensor[],
  options?: O,
): CollectiveResult<O, T[]> {
  const o: CommonOptions = options ?? {};
  return runCollective({
    opName: 'all_to_all',
    group: o.group,
    asyncOp: o.asyncOp,
    fallback: () => outputList,
    outputs: (list) => list,
    plan: (group) => {
      const ins = viewList(inputList, { name: 'inputList', length: group.size() });
      const dtype = ins[0]?.dtype ?? 'float32';
      const outs = viewList(outputList, { name: 'outputList', length: group.size(), dtype });
      const name = group.nextName('all_to_all');
      const processSet = group.processSet;
      return async () => {
        const splits = ins.map((v) => v.data.length);
        const got = await alltoall(concatViews(ins, dtype), { splits, name, ...(processSet && { processSet }) });
        const expected = outs.map((v) => v.data.length);
        if (got.receivedSplits.some((n, i) => n !== expected[i])) {
          throw invalidArgument({ what: `tensors of lengths [${expected.join(', ')}] from the ranks`, name: 'outputList', value: `lengths [${got.receivedSplits.join(', ')}]`, kind: 'range' });
        }
        return (await scatterInto(outputList, outs, got.data)) as T[];
      };
    },
  }) as CollectiveResult<O, T[]>;
}

/**
 * Options of {@link allToAllSingle}.
 *
 * @example
 * ```ts
 * await dist.allToAllSingle(out, input, { inputSplitSizes: [1, 3], outputSplitSizes: [1, 1] } satisfies AllToAllSingleOptions);
 * ```
 */
export interface AllToAllSingleOptions extends CommonOptions {
  /** Rows of `output` from each rank; default an even split. */
  readonly outputSplitSizes?: readonly number[];
  /** Rows of `input` to each rank; default an even split (the first dimension must divide by the group size). */
  readonly inputSplitSizes?: readonly number[];
}

/**
 * torch's `all_to_all_single`: splits `input`'s first dimension by `inputSplitSizes` (rows for
 * a tfjs tensor, elements for a TypedArray), sends piece i to the i-th rank of the group and
 * concatenates what arrives into `output`, in rank order.
 *
 * @example
 * ```ts
 * const out = new Float32Array(dist.getWorldSize());
 * await dist.allToAllSingle(out, Float32Array.from({ length: out.length }, (_, i) => r * 10 + i));
 * ```
 */
export function allToAllSingle<T extends Tensor, O extends AllToAllSingleOptions = AllToAllSingleOptions>(
  output: T,
  input: Tensor,
  options?: O,
): CollectiveResult<O, T> {
  const o: AllToAllSingleOptions = options ?? {};
  return runCollective({
    opName: 'all_to_all_single',
    group: o.group,
    asyncOp: o.asyncOp,
    fallback: () => output,
    plan: (group) => {
      const inView = viewTensor(input, 'input');
      const outView = viewTensor(output, 'output');
      const name = group.nextName('all_to_all_single');
      const processSet = group.processSet;
      const splits = o.inputSplitSizes === undefined || o.inputSplitSizes.length === 0 ? undefined : [...o.inputSplitSizes];
      return async () => {
        const got = await alltoall(inView.data, { shape: [...inView.shape], name, ...(splits && { splits }), ...(processSet && { processSet }) });
        const wanted = o.outputSplitSizes;
        const badSplits = wanted !== undefined && wanted.length > 0 && got.receivedSplits.some((n, i) => n !== wanted[i]);
        if (badSplits || got.data.length !== outView.data.length) {
          const what = `output of ${outView.data.length} elements${wanted ? ` in rows [${wanted.join(', ')}]` : ''}`;
          throw invalidArgument({ what, name: 'output', value: `${got.data.length} elements in rows [${got.receivedSplits.join(', ')}]`, kind: 'range' });
        }
        return deliver(output, outView, got.data);
      };
    },
  }) as CollectiveResult<O, T>;
}
