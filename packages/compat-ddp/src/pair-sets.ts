import { addProcessSet, UnsupportedError, type ProcessSet } from '@kolo/core';
import { setKey, type WorldState } from './group-state.js';

/**
 * Largest world for which `initProcessGroup` prepares point-to-point messaging: one two-rank
 * process set per pair of ranks (n(n-1)/2 of them, each its own transport context).
 */
export const p2pMaxWorldSize = 16;

/**
 * Registers a two-rank process set for every pair of ranks (every rank does, in the same order,
 * as process sets require). send/recv and monitoredBarrier run on them.
 *
 * @example
 * ```ts
 * await createPairSets(state); // state.sets now has '0,1', '0,2', '1,2' on three ranks
 * ```
 */
export async function createPairSets(state: WorldState): Promise<void> {
  const size = state.world.size();
  if (size < 2 || size > p2pMaxWorldSize) return;
  if (size === 2) return; // the pair is the world itself
  const pairs: [number, number][] = [];
  for (let a = 0; a < size; a++) for (let b = a + 1; b < size; b++) pairs.push([a, b]);
  const sets = await Promise.all(pairs.map((pair) => addProcessSet(pair)));
  pairs.forEach((pair, i) => state.sets.set(setKey(pair), sets[i] as ProcessSet));
}

/**
 * The process set of ranks `a` and `b` (undefined when they are the whole world: a world of
 * two), or an UnsupportedError naming the limit.
 *
 * @example
 * ```ts
 * const pair = pairSet(state, { a: 0, b: 2, opName: 'send' });
 * ```
 */
export function pairSet(state: WorldState, spec: { a: number; b: number; opName: string }): ProcessSet | undefined {
  if (state.world.size() === 2) return undefined;
  const set = state.sets.get(setKey([spec.a, spec.b]));
  if (set === undefined) {
    throw new UnsupportedError(
      `${spec.opName} needs point-to-point messaging, which Kolo prepares (one two-rank process ` +
        `set per pair of ranks) only for worlds of 2 to ${p2pMaxWorldSize} ranks; this one has ` +
        `${state.world.size()}. Use collectives (e.g. allToAllSingle with zero splits) instead.`,
      { opName: spec.opName },
    );
  }
  return set;
}
