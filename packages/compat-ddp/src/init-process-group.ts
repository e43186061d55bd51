import * as core from '@kolo/core';
import { defaultTimeoutMs, normalizeBackend, transportOf, type BackendName } from './backend.js';
import { groupState, resolveGroup, type WorldState } from './group-state.js';
import { parseInitMethod } from './init-method.js';
import { createPairSets } from './pair-sets.js';
import { GroupMember, ProcessGroup } from './process-group.js';
import { startRendezvous } from './rendezvous-start.js';
import { valueError } from './torch-errors.js';

/**
 * Options of {@link initProcessGroup}, with torch's defaults.
 *
 * @example
 * ```ts
 * await initProcessGroup({ backend: 'gloo', initMethod: 'tcp://10.0.0.1:23456', rank: 0, worldSize: 2 });
 * ```
 */
export interface InitProcessGroupOptions {
  /** `gloo` (default), `mpi` or `nccl` (refused: no CUDA tensors here); case-insensitive. */
  readonly backend?: BackendName | Uppercase<BackendName>;
  /** `env://` (default), `tcp://host:port` or `file:///path/to/shared/dir`. */
  readonly initMethod?: string;
  /** Number of processes; -1 (default) reads `WORLD_SIZE` or the URL's `world_size`. */
  readonly worldSize?: number;
  /** This process's rank; -1 (default) reads `RANK` or the URL's `rank`. */
  readonly rank?: number;
  /** How long rendezvous and collectives may wait for peers; default 30 min (NCCL: 10 min), as torch. */
  readonly timeoutMs?: number;
}

const allowed = ['backend', 'initMethod', 'worldSize', 'rank', 'timeoutMs'];

/**
 * torch's `init_process_group`: meets the other ranks and starts Kolo's engine. `env://` reads
 * `MASTER_ADDR`, `MASTER_PORT`, `RANK` and `WORLD_SIZE` (torch's messages when one is missing),
 * or the environment of kolorun, torchrun, horovodrun or mpirun; `tcp://` has rank 0 host the
 * store at host:port; `file://` uses a shared directory. A second call throws torch's
 * `trying to initialize the default process group twice!`.
 *
 * @example
 * ```ts
 * import * as dist from '@kolo/compat-ddp';
 * await dist.initProcessGroup({ backend: 'gloo' });
 * console.log(dist.getRank(), dist.getWorldSize());
 * ```
 */
export function initProcessGroup(options: InitProcessGroupOptions = {}): Promise<void> {
  const o = core.checkOptions(options, { opName: 'initProcessGroup', allowed });
  if (groupState.world !== undefined || groupState.starting !== undefined) {
    throw valueError('trying to initialize the default process group twice!');
  }
  const backend = normalizeBackend(o.backend);
  const transport = transportOf(backend);
  const timeoutMs = core.expectInteger(o.timeoutMs ?? defaultTimeoutMs[backend], { name: 'timeoutMs', min: 1 });
  const given = {
    rank: core.expectInteger(o.rank ?? -1, { name: 'rank', min: -1 }),
    worldSize: core.expectInteger(o.worldSize ?? -1, { name: 'worldSize', min: -1 }),
  };
  const plan = parseInitMethod(o.initMethod ?? 'env://', given, process.env);
  const start = async (): Promise<void> => {
    const { init, store } = await startRendezvous(plan, process.env);
    try {
      await core.init({ ...init, timeoutMs, ...(o.backend !== undefined && { transport }) });
      const size = core.size();
      const world = new ProcessGroup('world', Array.from({ length: size }, (_, r) => r), core.rank(), backend, undefined);
      const state: WorldState = { world, backend, timeoutMs, groups: new Set(), sets: new Map(), p2pCounters: new Map(), store, groupCount: 0 };
      await createPairSets(state);
      groupState.world = state;
      GroupMember.WORLD = world;
    } catch (error) {
      await core.shutdown();
      await store?.close();
      throw error;
    }
  };
  groupState.starting = start().finally(() => (groupState.starting = undefined));
  return groupState.starting;
}

/**
 * torch's `destroy_process_group`: without a group (or with the world) it shuts the engine
 * down, closes a store this rank hosted and forgets every group, so `initProcessGroup` may run
 * again; with a group from `newGroup` it forgets that group (collectives on it then throw
 * `Invalid process group specified`); with `GroupMember.NON_GROUP_MEMBER` it does nothing.
 *
 * @example
 * ```ts
 * try { await train(); } finally { await dist.destroyProcessGroup(); }
 * ```
 */
export async function destroyProcessGroup(group?: ProcessGroup): Promise<void> {
  const state = groupState.world;
  if (group === GroupMember.NON_GROUP_MEMBER) return;
  if (group !== undefined && group !== state?.world) {
    resolveGroup(group);
    group.alive = false;
    state?.groups.delete(group);
    return;
  }
  if (state === undefined) return;
  groupState.world = undefined;
  GroupMember.WORLD = null;
  state.world.alive = false;
  for (const g of state.groups) g.alive = false;
  await core.shutdown();
  await state.store?.close();
}

/**
 * torch's `is_initialized`: true between a resolved `initProcessGroup` and
 * `destroyProcessGroup()`.
 *
 * @example
 * ```ts
 * if (!dist.isInitialized()) await dist.initProcessGroup();
 * ```
 */
export function isInitialized(): boolean {
  return groupState.world !== undefined;
}
