import { deserialize, serialize } from 'node:v8';
import { allgather, broadcast as coreBroadcast, invalidArgument } from '@kolo/core';
import { runCollective } from './collective.js';
import type { ProcessGroup } from './process-group.js';
import { groupRankOf } from './src-dst.js';

const bytesOf = (value: unknown): Uint8Array => new Uint8Array(serialize(value));
const valueOf = (bytes: Uint8Array): unknown => deserialize(bytes);

/**
 * Options of {@link broadcastObjectList}.
 *
 * @example
 * ```ts
 * await dist.broadcastObjectList(list, { src: 0 } satisfies BroadcastObjectListOptions);
 * ```
 */
export interface BroadcastObjectListOptions {
  /** The global rank whose objects everyone receives; default 0. */
  readonly src?: number;
  /** The process group to broadcast within; default the world. */
  readonly group?: ProcessGroup;
}

/**
 * torch's `broadcast_object_list`: every rank passes a list of the same length; afterwards every
 * entry holds a copy of `src`'s entry (the list is changed in place). Objects travel with
 * Node's structured serialization (`v8.serialize`: Maps, Sets, Dates, TypedArrays, BigInts,
 * cycles), Node's counterpart of pickle: sizes first (int64), then the bytes.
 *
 * @example
 * ```ts
 * const list = dist.getRank() === 0 ? [{ lr: 0.1 }, 'resnet'] : [null, null];
 * await dist.broadcastObjectList(list, { src: 0 });
 * ```
 */
export function broadcastObjectList(objectList: unknown[], options: BroadcastObjectListOptions = {}): Promise<unknown[]> {
  return runCollective<unknown[]>({
    opName: 'broadcast_object_list',
    group: options.group,
    asyncOp: false,
    fallback: () => objectList,
    plan: (group) => {
      if (!Array.isArray(objectList)) throw invalidArgument({ what: 'an array', name: 'objectList', value: objectList });
      const src = options.src ?? 0;
      const isSrc = group.ranks[groupRankOf(group, src, 'src')] === group.ranks[group.rank()];
      const name = group.nextName('broadcast_object_list');
      const processSet = group.processSet;
      const common = { root: src, ...(processSet && { processSet }) };
      return async () => {
        const payloads = isSrc ? objectList.map(bytesOf) : [];
        const sizes = BigInt64Array.from(isSrc ? payloads.map((p) => BigInt(p.length)) : objectList.map(() => 0n));
        await coreBroadcast(sizes, { ...common, name: `${name}.sizes`, output: sizes });
        const lengths = Array.from(sizes, Number);
        const data = new Uint8Array(lengths.reduce((a, b) => a + b, 0));
        if (isSrc) payloads.reduce((offset, p) => (data.set(p, offset), offset + p.length), 0);
        await coreBroadcast(data, { ...common, name: `${name}.data`, output: data });
        if (!isSrc) lengths.reduce((offset, n, i) => ((objectList[i] = valueOf(data.subarray(offset, offset + n))), offset + n), 0);
        return objectList;
      };
    },
  }) as Promise<unknown[]>;
}

/**
 * torch's `all_gather_object`: fills `objectList` (pre-sized to the group size) with every
 * rank's `obj`, in rank order, using Node's structured serialization.
 *
 * @example
 * ```ts
 * const all = new Array(dist.getWorldSize()).fill(null);
 * await dist.allGatherObject(all, { rank: dist.getRank(), loss });
 * ```
 */
export function allGatherObject(objectList: unknown[], obj: unknown, options: { readonly group?: ProcessGroup } = {}): Promise<unknown[]> {
  return runCollective<unknown[]>({
    opName: 'all_gather_object',
    group: options.group,
    asyncOp: false,
    fallback: () => objectList,
    plan: (group) => {
      if (!Array.isArray(objectList) || objectList.length !== group.size()) {
        throw invalidArgument({ what: `an array of ${group.size()} entries (the group size)`, name: 'objectList', value: objectList });
      }
      const payload = bytesOf(obj);
      const name = group.nextName('all_gather_object');
      const processSet = group.processSet;
      return async () => {
        const sizes = await allgather(BigInt64Array.of(BigInt(payload.length)), { name: `${name}.sizes`, ...(processSet && { processSet }) });
        const data = await allgather(payload, { name: `${name}.data`, ...(processSet && { processSet }) });
        let offset = 0;
        Array.from(sizes.data, Number).forEach((n, i) => {
          objectList[i] = valueOf((data.data as Uint8Array).subarray(offset, offset + n));
          offset += n;
        });
        return objectList;
      };
    },
  }) as Promise<unknown[]>;
}
