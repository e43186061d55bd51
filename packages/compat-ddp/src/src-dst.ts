import { invalidArgument } from '@kolo/core';
import type { ProcessGroup } from './process-group.js';
import { valueError } from './torch-errors.js';

/**
 * The group rank of a global rank given as `src`/`dst` (torch takes global ranks even with a
 * group), or torch's `Global rank R is not part of group G`.
 *
 * @example
 * ```ts
 * groupRankOf(evens, 2, 'dst'); // 1 for the group [0, 2]
 * ```
 */
export function groupRankOf(group: ProcessGroup, globalRank: unknown, name: string): number {
  if (!Number.isInteger(globalRank) || (globalRank as number) < 0) {
    throw invalidArgument({ what: 'a global rank (a non-negative integer)', name, value: globalRank });
  }
  const index = group.ranks.indexOf(globalRank as number);
  if (index < 0) throw valueError(`Global rank ${String(globalRank)} is not part of group ${group.name}`);
  return index;
}
