import { allgather, allgatherObject, MismatchError, rank, type HostArray } from '@kolo/core';
import { dataTypeInfo, type OnnxElementType } from '../model/data-types.js';
import { elementCount, formatDims, type NamedTensor } from '../model/named-tensor.js';

/**
 * One output of the rows a rank ran: element type, dims of one row, and the rows' elements.
 *
 * @example
 * ```ts
 * const logits: RowBlock = { type: 'float32', rowDims: [10], data: new Float32Array(30) }; // 3 rows
 * ```
 */
export interface RowBlock {
  readonly type: OnnxElementType;
  readonly rowDims: readonly number[];
  readonly data: HostArray;
}

/**
 * Options of {@link gatherRows}.
 *
 * @example
 * ```ts
 * await gatherRows({ local, outputNames: ['logits'], rowsByRank, name: 'inference.0', keep: true });
 * ```
 */
export interface GatherRowsOptions {
  /** This rank's results by output name; undefined when it ran no rows. */
  readonly local: ReadonlyMap<string, RowBlock> | undefined;
  /** The outputs, in the same order on every rank. */
  readonly outputNames: readonly string[];
  /** The dataset rows each rank ran, in rank order (equal on every rank). */
  readonly rowsByRank: readonly (readonly number[])[];
  /** Request-name prefix, the same on every rank. */
  readonly name: string;
  /** Whether this rank wants the ordered result (the others only contribute). */
  readonly keep: boolean;
}

/**
 * Collects every rank's rows of every output and puts them back in dataset order: one metadata
 * exchange (so ranks that ran no rows know the row shape), then one allgather per output.
 * Resolves with the full outputs where `keep` is true, else undefined.
 *
 * @example
 * ```ts
 * const outputs = await gatherRows({ local, outputNames, rowsByRank, name: 'inference.0', keep: rank() === 0 });
 * ```
 */
export async function gatherRows(options: GatherRowsOptions): Promise<Map<string, NamedTensor> | undefined> {
  const { local, outputNames, rowsByRank, name } = options;
  const mine = local ? outputNames.map((n) => ({ type: local.get(n)!.type, rowDims: local.get(n)!.rowDims })) : null;
  const layouts = (await allgatherObject(mine, { name: `${name}.layout` })) as (typeof mine)[];
  const referenceRank = layouts.findIndex((l) => l !== null);
  const reference = layouts[referenceRank] ?? [];
  const text = (l: { type: string; rowDims: readonly number[] } | undefined) => (l ? `${l.type} ${formatDims(l.rowDims)}` : 'nothing');
  layouts.forEach((layout, r) => {
    const i = layout?.findIndex((entry, k) => text(entry) !== text(reference[k])) ?? -1;
    if (i < 0) return;
    throw new MismatchError(
      `Output '${outputNames[i]}' has rows of ${text(reference[i])} on rank ${referenceRank} but ${text(layout?.[i])} ` +
        `on rank ${r}; every rank must run the same model`,
      { rank: rank(), opName: name },
    );
  });
  const myRows = rowsByRank[rank()]?.length ?? 0;
  const gathered = await Promise.all(
    outputNames.map(async (out, i) => {
      const { type, rowDims } = reference[i]!;
      const data = local?.get(out)?.data ?? dataTypeInfo(type)!.create(0);
      const all = await allgather(data, { name: `${name}.${out}`, shape: [myRows, ...rowDims] });
      return { out, type, rowDims, data: all.data };
    }),
  );
  if (!options.keep) return undefined;
  const order = rowsByRank.flat();
  const result = new Map<string, NamedTensor>();
  for (const { out, type, rowDims, data } of gathered) {
    const rowLength = elementCount(rowDims);
    const ordered = dataTypeInfo(type)!.create(order.length * rowLength) as Float32Array;
    order.forEach((row, k) => ordered.set((data as Float32Array).subarray(k * rowLength, (k + 1) * rowLength), row * rowLength));
    result.set(out, { name: out, type, dims: [order.length, ...rowDims], data: ordered });
  }
  return result;
}
