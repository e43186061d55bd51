import { allgatherObject, MismatchError, rank } from '@kolo/core';
import { formatDims, type NamedTensor } from '../model/named-tensor.js';

/**
 * What to call the check in messages and on the wire.
 *
 * @example
 * ```ts
 * await checkSameLayout(weights, { opName: 'broadcastInitializers', name: 'initializers.layout' } satisfies SameLayoutOptions);
 * ```
 */
export interface SameLayoutOptions {
  /** The public call, e.g. `broadcastInitializers`. */
  readonly opName: string;
  /** Request name of the metadata exchange; the same on every rank. */
  readonly name: string;
}

const describe = (t: Pick<NamedTensor, 'name' | 'type' | 'dims'>): string => `'${t.name}' ${t.type} ${formatDims(t.dims)}`;

/**
 * Exchanges the names, types and dims of `tensors` and rejects with a MismatchError on every
 * rank, naming the first rank and tensor that differ from rank 0, when they are not identical.
 * Collectives on tensors that exist on only some ranks would otherwise wait until the timeout.
 *
 * @example
 * ```ts
 * await checkSameLayout(model.initializers(), { opName: 'averageInitializers', name: 'avg.layout' });
 * ```
 */
export async function checkSameLayout(tensors: readonly NamedTensor[], options: SameLayoutOptions): Promise<void> {
  const mine = tensors.map((t) => describe(t));
  const all = (await allgatherObject(mine, { name: options.name })) as string[][];
  const reference = all[0] ?? [];
  all.forEach((layout, r) => {
    const count = Math.max(layout.length, reference.length);
    for (let i = 0; i < count; i++) {
      if (layout[i] === reference[i]) continue;
      throw new MismatchError(
        `${options.opName} needs the same tensors on every rank: tensor ${i} is ${reference[i] ?? 'missing'} on rank 0 ` +
          `but ${layout[i] ?? 'missing'} on rank ${r}`,
        { rank: rank(), opName: options.name },
      );
    }
  });
}
