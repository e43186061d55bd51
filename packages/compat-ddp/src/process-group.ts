import type { ProcessSet } from '@kolo/core';
import type { BackendName } from './backend.js';

/**
 * A torch process group: the world (from `initProcessGroup`) or a subset from `newGroup`. Ranks
 * passed to collectives (`src`, `dst`) are global ranks even with a group, as in torch.
 *
 * @example
 * ```ts
 * const evens = await dist.newGroup([0, 2]);
 * if (evens !== dist.GroupMember.NON_GROUP_MEMBER) await dist.allReduce(t, { group: evens });
 * ```
 */
export class ProcessGroup {
  /** Per-group sequence of collectives: every member issues them in the same order (torch's rule). */
  sequence = 0;
  /** False after `destroyProcessGroup(group)`. */
  alive = true;

  /**
   * @param name the group's name, part of every request name on the wire.
   * @param ranks the global ranks, ascending.
   * @param globalRank this process's global rank (-1 for the non-member sentinel).
   * @param backend the backend it runs on.
   * @param processSet the Kolo process set behind it; undefined for the world.
   */
  constructor(
    readonly name: string,
    readonly ranks: readonly number[],
    private readonly globalRank: number,
    readonly backend: BackendName,
    readonly processSet: ProcessSet | undefined,
  ) {}

  /** This process's rank in the group (-1 when not a member). */
  rank(): number {
    return this.ranks.indexOf(this.globalRank);
  }

  /** Number of ranks in the group. */
  size(): number {
    return this.ranks.length;
  }

  /** The next request name of a collective on this group, e.g. `torch.world.7.all_reduce`. */
  nextName(op: string): string {
    return `torch.${this.name}.${this.sequence++}.${op}`;
  }
}

/**
 * torch's `GroupMember`: `WORLD` is the default group (null before `initProcessGroup`) and
 * `NON_GROUP_MEMBER` is what `newGroup` returns on ranks outside the new group. Collectives on
 * `NON_GROUP_MEMBER` warn and do nothing, as in torch.
 *
 * @example
 * ```ts
 * const g = await dist.newGroup([0, 1]);
 * if (g === dist.GroupMember.NON_GROUP_MEMBER) return;
 * ```
 */
export const GroupMember: {
  /** The default group of every rank once initProcessGroup resolved; null before. */
  WORLD: ProcessGroup | null;
  /** What newGroup returns on ranks outside the new group. */
  readonly NON_GROUP_MEMBER: ProcessGroup;
} = {
  WORLD: null,
  NON_GROUP_MEMBER: Object.freeze(new ProcessGroup('non_group_member', [], -1, 'gloo', undefined)) as ProcessGroup,
};
