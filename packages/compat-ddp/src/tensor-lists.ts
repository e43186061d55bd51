import { invalidArgument, type DtypeName, type HostArray } from '@kolo/core';
import { allocate, deliver, viewTensor, type Tensor, type TensorView } from './tensor-io.js';
import { valueError } from './torch-errors.js';

/**
 * Views every tensor of a list argument, checking its length and that all share one dtype
 * (torch's `Invalid usage of tensors with different dtypesFound <a> and  <b>`, sic).
 *
 * @example
 * ```ts
 * const views = viewList(outputs, { name: 'tensorList', length: group.size(), dtype: 'float32' });
 * ```
 */
export function viewList(value: unknown, spec: { name: string; length: number; dtype?: string }): TensorView[] {
  if (!Array.isArray(value) || value.length !== spec.length) {
    throw invalidArgument({ what: `an array of ${spec.length} tensors (one per rank of the group)`, name: spec.name, value });
  }
  const views = value.map((t, i) => viewTensor(t, `${spec.name}[${i}]`));
  const first = spec.dtype ?? views[0]?.dtype;
  for (const v of views) {
    if (v.dtype !== first) throw valueError(`Invalid usage of tensors with different dtypesFound ${String(first)} and  ${v.dtype}`);
  }
  return views;
}

/**
 * Concatenates the data of several views into one array of their dtype.
 *
 * @example
 * ```ts
 * concatViews(views, 'int32'); // Int32Array of all their elements
 * ```
 */
export function concatViews(views: readonly TensorView[], dtype: DtypeName): HostArray {
  const total = views.reduce((n, v) => n + v.data.length, 0);
  const out = allocate(dtype, total) as Int32Array;
  let offset = 0;
  for (const v of views) {
    out.set(v.data as Int32Array, offset);
    offset += v.data.length;
  }
  return out as HostArray;
}

/**
 * Splits `data` into consecutive pieces of the lengths of `views` and delivers each into its
 * list entry (in place for TypedArrays, replacing tfjs tensors in the list with new ones).
 *
 * @example
 * ```ts
 * await scatterInto(list, views, gathered);
 * ```
 */
export async function scatterInto(list: Tensor[], views: readonly TensorView[], data: HostArray): Promise<Tensor[]> {
  let offset = 0;
  for (let i = 0; i < views.length; i++) {
    const view = views[i] as TensorView;
    const piece = (data as Int32Array).subarray(offset, offset + view.data.length) as HostArray;
    offset += view.data.length;
    list[i] = await deliver(list[i] as Tensor, view, piece);
  }
  return list;
}
