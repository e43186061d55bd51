import * as core from '@kolo/core';
import type { HostArray } from '@kolo/core';
import type { PushOp } from './local-reduce.js';

/**
 * What a store needs from the workers around it. Arrays are reduced or received in place.
 *
 * @example
 * ```ts
 * await comm.allreduce(grad, { name: 'kv.push.3', op: 'sum' });
 * ```
 */
export interface Comm {
  /** This worker's rank; 0 in one process. */
  readonly rank: number;
  /** Number of workers; 1 in one process. */
  readonly numWorkers: number;
  /** Rank among the workers on this host. */
  readonly localRank: number;
  /** Reduces `data` across workers, in place. */
  allreduce(data: HostArray, spec: { readonly name: string; readonly op: PushOp }): Promise<void>;
  /** Overwrites `data` with rank 0's, in place. */
  broadcast(data: HostArray, name: string): Promise<void>;
  /** Resolves when every worker has reached the barrier of this name. */
  barrier(name: string): Promise<void>;
}

/**
 * The workers of one process: nothing to exchange (`local` and `device` stores).
 *
 * @example
 * ```ts
 * await localComm.allreduce(grad, { name: 'kv.push.0', op: 'sum' }); // grad unchanged
 * ```
 */
export const localComm: Comm = {
  rank: 0,
  numWorkers: 1,
  localRank: 0,
  allreduce: () => Promise.resolve(),
  broadcast: () => Promise.resolve(),
  barrier: () => Promise.resolve(),
};

/**
 * Every worker of the Kolo job, through `@kolo/core` (which must be initialized).
 *
 * @example
 * ```ts
 * await core.init();
 * const comm = koloComm();
 * ```
 */
export function koloComm(): Comm {
  return {
    get rank() {
      return core.rank();
    },
    get numWorkers() {
      return core.size();
    },
    get localRank() {
      return core.localRank();
    },
    allreduce: async (data, spec) => {
      await core.allreduce(data, { name: spec.name, op: spec.op, output: data });
    },
    broadcast: async (data, name) => {
      await core.broadcast(data, { root: 0, name, output: data });
    },
    barrier: (name) => core.barrier({ name }),
  };
}
