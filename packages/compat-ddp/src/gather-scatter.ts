import { alltoall, invalidArgument, type HostArray } from '@kolo/core';
import { runCollective, type CollectiveResult, type CommonOptions } from './collective.js';
import { groupRankOf } from './src-dst.js';
import { concatViews, scatterInto, viewList } from './tensor-lists.js';
import { allocate, deliver, viewTensor, type Tensor } from './tensor-io.js';
import { valueError } from './torch-errors.js';

/**
 * Options of {@link gather}.
 *
 * @example
 * ```ts
 * await dist.gather(t, { dst: 0, gatherList: rank === 0 ? list : undefined } satisfies GatherOptions);
 * ```
 */
export interface GatherOptions<T extends Tensor = Tensor> extends CommonOptions {
  /** One tensor per rank of the group, on `dst` only. */
  readonly gatherList?: T[];
  /** The global rank that receives; default 0. */
  readonly dst?: number;
}

const rows = (n: number, at: number, size: number): number[] => Array.from({ length: size }, (_, i) => (i === at ? n : 0));

/**
 * torch's `gather`: rank `dst` receives every rank's `tensor` into `gatherList`, in rank order.
 * It is one alltoall in which every rank sends only to `dst`. Resolves with `gatherList` on
 * `dst` and undefined elsewhere.
 *
 * @example
 * ```ts
 * const list = dist.getRank() === 0 ? [new Int32Array(1), new Int32Array(1)] : undefined;
 * await dist.gather(new Int32Array([dist.getRank()]), { dst: 0, gatherList: list });
 * ```
 */
export function gather<T extends Tensor, O extends GatherOptions<T> = GatherOptions<T>>(
  tensor: Tensor,
  options?: O,
): CollectiveResult<O, T[] | undefined> {
  const o: GatherOptions<T> = options ?? {};
  return runCollective<T[] | undefined>({
    opName: 'gather',
    group: o.group,
    asyncOp: o.asyncOp,
    fallback: () => o.gatherList,
    outputs: (list) => list ?? [],
    plan: (group) => {
      const view = viewTensor(tensor, 'tensor');
      const dst = groupRankOf(group, o.dst ?? 0, 'dst');
      const isDst = dst === group.rank();
      if (isDst && o.gatherList === undefined) throw valueError('Argument ``gather_list`` must be specified on destination rank.');
      if (!isDst && o.gatherList !== undefined) throw valueError('Argument ``gather_list`` must NOT be specified on non-destination ranks.');
      const views = isDst ? viewList(o.gatherList, { name: 'gatherList', length: group.size(), dtype: view.dtype }) : [];
      const name = group.nextName('gather');
      const processSet = group.processSet;
      return async () => {
        const splits = rows(view.data.length, dst, group.size());
        const got = await alltoall(view.data, { splits, name, ...(processSet && { processSet }) });
        if (!isDst) return undefined;
        checkSplits(got.receivedSplits, views.map((v) => v.data.length), 'gatherList');
        return (await scatterInto(o.gatherList as T[], views, got.data)) as T[];
      };
    },
  }) as CollectiveResult<O, T[] | undefined>;
}

function checkSplits(received: readonly number[], expected: readonly number[], name: string): void {
  if (received.some((n, i) => n !== expected[i])) {
    throw invalidArgument({ what: `tensors of lengths [${expected.join(', ')}] from the ranks`, name, value: `lengths [${received.join(', ')}]`, kind: 'range' });
  }
}

/**
 * Options of {@link scatter}.
 *
 * @example
 * ```ts
 * await dist.scatter(out, { src: 0, scatterList: rank === 0 ? parts : undefined } satisfies ScatterOptions);
 * ```
 */
export interface ScatterOptions extends CommonOptions {
  /** One tensor per rank of the group, on `src` only. */
  readonly scatterList?: Tensor[];
  /** The global rank that sends; default 0. */
  readonly src?: number;
}

/**
 * torch's `scatter`: rank `src` sends `scatterList[i]` to the i-th rank of the group, which
 * receives it into `tensor` (in place, or a new tfjs tensor). One alltoall in which only `src`
 * sends.
 *
 * @example
 * ```ts
 * const mine = new Float32Array(2);
 * await dist.scatter(mine, { src: 0, scatterList: rank === 0 ? [a, b] : undefined });
 * ```
 */
export function scatter<T extends Tensor, O extends ScatterOptions = ScatterOptions>(tensor: T, options?: O): CollectiveResult<O, T> {
  const o: ScatterOptions = options ?? {};
  return runCollective({
    opName: 'scatter',
    group: o.group,
    asyncOp: o.asyncOp,
    fallback: () => tensor,
    plan: (group) => {
      const view = viewTensor(tensor, 'tensor');
      const src = groupRankOf(group, o.src ?? 0, 'src');
      const isSrc = src === group.rank();
      if (isSrc && o.scatterList === undefined) throw valueError('Argument ``scatter_list`` must be specified on source rank.');
      if (!isSrc && o.scatterList !== undefined) throw valueError('Argument ``scatter_list`` must NOT be specified on non-source ranks.');
      const views = isSrc ? viewList(o.scatterList, { name: 'scatterList', length: group.size(), dtype: view.dtype }) : [];
      const name = group.nextName('scatter');
      const processSet = group.processSet;
      return async () => {
        const data: HostArray = isSrc ? concatViews(views, view.dtype) : allocate(view.dtype, 0);
        const splits = isSrc ? views.map((v) => v.data.length) : rows(0, 0, group.size());
        const got = await alltoall(data, { splits, name, ...(processSet && { processSet }) });
        checkSplits([got.data.length], [view.data.length], 'tensor');
        return deliver(tensor, view, got.data);
      };
    },
  }) as CollectiveResult<O, T>;
}
