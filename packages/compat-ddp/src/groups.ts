import { addProcessSet, expectInteger, invalidArgument, type ProcessSet } from '@kolo/core';
import { normalizeBackend, type BackendName } from './backend.js';
import { requireWorld, resolveGroup, setKey, type WorldState } from './group-state.js';
import { GroupMember, ProcessGroup } from './process-group.js';
import { valueError } from './torch-errors.js';

/**
 * Options of {@link newGroup}.
 *
 * @example
 * ```ts
 * await dist.newGroup([0, 1], { backend: 'gloo' });
 * ```
 */
export interface NewGroupOptions {
  /** Accepted for ports; the engine's timeout from `initProcessGroup` applies. */
  readonly timeoutMs?: number;
  /** Must be the world's backend (every group runs on the one engine). */
  readonly backend?: BackendName;
}

function checkRanks(ranks: unknown, worldSize: number): number[] {
  if (!Array.isArray(ranks)) throw invalidArgument({ what: 'an array of global ranks', name: 'ranks', value: ranks });
  if (ranks.length > worldSize) {
    throw valueError("the new group's world size should be less or equal to the world size set by init_process_group");
  }
  for (const r of ranks) {
    if (!Number.isInteger(r) || r < 0 || r >= worldSize) {
      throw valueError("The new group's rank should be within the world_size set by init_process_group");
    }
  }
  const sorted = [...new Set(ranks as number[])].sort((a, b) => a - b);
  if (sorted.length !== ranks.length) throw invalidArgument({ what: 'distinct ranks', name: 'ranks', value: ranks });
  return sorted;
}

/** The Kolo process set of `ranks`: none for the whole world, else a shared or new one. */
async function processSetFor(state: WorldState, ranks: number[]): Promise<ProcessSet | undefined> {
  if (ranks.length === state.world.size()) return undefined;
  const key = setKey(ranks);
  const known = state.sets.get(key);
  if (known !== undefined) return known;
  const created = await addProcessSet(ranks);
  state.sets.set(key, created);
  return created;
}

/**
 * torch's `new_group`: a group of some ranks (default all). **Every** rank must call it, in the
 * same order, members or not (it registers a Kolo process set). Members get the group;
 * the others get `GroupMember.NON_GROUP_MEMBER`.
 *
 * @example
 * ```ts
 * const pair = await dist.newGroup([0, 1]);
 * if (dist.getRank(pair) >= 0) await dist.allReduce(t, { group: pair });
 * ```
 */
export async function newGroup(ranks?: readonly number[], options: NewGroupOptions = {}): Promise<ProcessGroup> {
  const state = requireWorld();
  const size = state.world.size();
  const sorted = checkRanks(ranks ?? Array.from({ length: size }, (_, r) => r), size);
  if (options.backend !== undefined && normalizeBackend(options.backend) !== state.backend) {
    throw invalidArgument({ what: `the world's backend '${state.backend}'`, name: 'backend', value: options.backend, kind: 'range' });
  }
  const set = await processSetFor(state, sorted);
  const name = `group${++state.groupCount}`;
  const me = state.world.rank();
  if (!sorted.includes(me)) return GroupMember.NON_GROUP_MEMBER;
  const group = new ProcessGroup(name, sorted, me, state.backend, set);
  state.groups.add(group);
  return group;
}

/**
 * torch's `get_rank`: this process's rank in `group` (default the world), or -1 when it is not
 * a member.
 *
 * @example
 * ```ts
 * if (dist.getRank() === 0) console.log('rank 0 logs');
 * ```
 */
export function getRank(group?: ProcessGroup): number {
  return resolveGroup(group).rank();
}

/**
 * torch's `get_world_size`: the number of ranks in `group` (default the world), or -1 when this
 * process is not a member.
 *
 * @example
 * ```ts
 * const lr = 0.01 * dist.getWorldSize();
 * ```
 */
export function getWorldSize(group?: ProcessGroup): number {
  const g = resolveGroup(group);
  return g.rank() < 0 ? -1 : g.size();
}

/**
 * torch's `get_backend`: the backend of `group` (default the world), e.g. `gloo`.
 *
 * @example
 * ```ts
 * dist.getBackend(); // 'gloo'
 * ```
 */
export function getBackend(group?: ProcessGroup): BackendName {
  const g = resolveGroup(group);
  if (g === GroupMember.NON_GROUP_MEMBER) throw valueError('Invalid process group specified');
  return g.backend;
}

/**
 * torch's `get_process_group_ranks`: the global ranks of `group`, ascending.
 *
 * @example
 * ```ts
 * dist.getProcessGroupRanks(pair); // [0, 1]
 * ```
 */
export function getProcessGroupRanks(group: ProcessGroup): number[] {
  return [...resolveGroup(group).ranks];
}

/**
 * torch's `get_group_rank`: the rank in `group` of global rank `globalRank`.
 *
 * @example
 * ```ts
 * dist.getGroupRank(evens, 2); // 1 for the group [0, 2]
 * ```
 */
export function getGroupRank(group: ProcessGroup, globalRank: number): number {
  const g = resolveGroup(group);
  const index = g.ranks.indexOf(expectInteger(globalRank, { name: 'globalRank', min: 0 }));
  if (index < 0) throw valueError(`Global rank ${globalRank} is not part of group ${g.name}`);
  return index;
}

/**
 * torch's `get_global_rank`: the global rank of rank `groupRank` of `group`.
 *
 * @example
 * ```ts
 * dist.getGlobalRank(evens, 1); // 2 for the group [0, 2]
 * ```
 */
export function getGlobalRank(group: ProcessGroup, groupRank: number): number {
  const g = resolveGroup(group);
  const global = g.ranks[expectInteger(groupRank, { name: 'groupRank', min: 0 })];
  if (global === undefined) throw valueError(`Group rank ${groupRank} is not part of group ${g.name}`);
  return global;
}
