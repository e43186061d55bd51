import { invalidArgument, type ProcessSet, type StoreServer } from '@kolo/core';
import type { BackendName } from './backend.js';
import { GroupMember, ProcessGroup } from './process-group.js';
import { notInitializedMessage, valueError } from './torch-errors.js';

/** Everything `initProcessGroup` sets up, until `destroyProcessGroup`. */
export interface WorldState {
  readonly world: ProcessGroup;
  readonly backend: BackendName;
  readonly timeoutMs: number;
  /** Live groups from `newGroup` (the world excluded). */
  readonly groups: Set<ProcessGroup>;
  /**
   * Kolo process sets by their ranks (`"0,2"`): the two-rank ones for send/recv and
   * monitoredBarrier, and those of `newGroup`. Groups with the same ranks share one (the engine
   * allows one set per list of ranks); every rank holds the same map, as every rank creates them.
   */
  readonly sets: Map<string, ProcessSet>;
  /** Per direction and tag: how many messages went that way, to name the next one. */
  readonly p2pCounters: Map<string, number>;
  /** The store this rank hosts for a `tcp://` (or hand-started `env://`) rendezvous. */
  readonly store: StoreServer | undefined;
  groupCount: number;
}

/** The process-wide torch.distributed state. */
export const groupState: { world?: WorldState; starting?: Promise<void> } = {};

/**
 * The default group's state, or torch's ValueError `Default process group has not been
 * initialized, please make sure to call init_process_group.`
 *
 * @example
 * ```ts
 * const { world, backend } = requireWorld();
 * ```
 */
export function requireWorld(): WorldState {
  const world = groupState.world;
  if (world === undefined) throw valueError(notInitializedMessage);
  return world;
}

/**
 * Resolves a `group` option: undefined is the world; a destroyed or foreign group throws
 * torch's `Invalid process group specified`.
 *
 * @example
 * ```ts
 * const group = resolveGroup(options.group);
 * ```
 */
export function resolveGroup(value: unknown): ProcessGroup {
  const state = requireWorld();
  if (value === undefined || value === null) return state.world;
  if (!(value instanceof ProcessGroup)) {
    throw invalidArgument({ what: 'a ProcessGroup from initProcessGroup or newGroup', name: 'group', value });
  }
  if (value === GroupMember.NON_GROUP_MEMBER || value === state.world) return value;
  if (!value.alive || !state.groups.has(value)) throw valueError('Invalid process group specified');
  return value;
}

/**
 * The key of a process set in {@link WorldState.sets}: its ranks, ascending, comma-separated.
 *
 * @example
 * ```ts
 * setKey([2, 0]); // '0,2'
 * ```
 */
export function setKey(ranks: readonly number[]): string {
  return [...ranks].sort((a, b) => a - b).join(',');
}
