import { invalidArgument } from '../validation/invalid-argument.js';
import { requireRunning, type Running } from '../runtime/runtime-state.js';
import { expectInteger } from '../validation/checks.js';
import { makeRequest } from './make-request.js';
import { requestName } from './request-names.js';
import { runAsync, step } from './run-plan.js';

const marker = Symbol.for('kolo.processSet');

/**
 * A registered subset of ranks that collectives can run over (Horovod's process sets). Pass it
 * as the `processSet` option; ranks and roots stay global ranks.
 *
 * @example
 * ```ts
 * const evens = await addProcessSet([0, 2]);
 * if (evens.includes(rank())) await allreduce(x, { processSet: evens });
 * ```
 */
export class ProcessSet {
  /** Recognises instances from any copy of `@kolo/core`. */
  readonly [marker] = true;
  /** @param id the engine's id (0 is every rank). @param ranks the global ranks, ascending. */
  constructor(
    readonly id: number,
    readonly ranks: readonly number[],
  ) {}

  /** True when `globalRank` is a member. */
  includes(globalRank: number): boolean {
    return this.ranks.includes(globalRank);
  }

  /** This process's position in the set, or -1 when it is not a member. */
  rank(): number {
    return this.ranks.indexOf(requireRunning().config.engine.rank);
  }

  /** The number of members. */
  size(): number {
    return this.ranks.length;
  }
}

/** The set a collective runs over: its id, and this rank's position in it and its size. */
export interface Group {
  /** The process set's engine id; 0 is every rank. */
  readonly id: number;
  /** This process's position in the set. */
  readonly rank: number;
  /** The number of members. */
  readonly size: number;
}

/**
 * Resolves a collective's `processSet` option (default: every rank).
 *
 * @example
 * ```ts
 * const { size } = groupOf(running, options.processSet);
 * ```
 */
export function groupOf(running: Running, processSet: unknown): Group {
  const { rank, size } = running.config.engine;
  if (processSet === undefined) return { id: 0, rank, size };
  const candidate = processSet as Partial<ProcessSet> | undefined;
  if (!(processSet instanceof Object) || candidate?.[marker] !== true || !Array.isArray(candidate.ranks) || !Number.isSafeInteger(candidate.id)) {
    throw invalidArgument({ what: 'a ProcessSet from addProcessSet()', name: 'processSet', value: processSet });
  }
  const set = processSet as ProcessSet;
  return { id: set.id, rank: set.ranks.indexOf(rank), size: set.ranks.length };
}

/**
 * Registers a process set. Every rank must call it with the same ranks (in any order), members
 * or not; it resolves on every rank once all have, with the set's engine id.
 *
 * @example
 * ```ts
 * const pairs = await addProcessSet([0, 1]);
 * ```
 */
export async function addProcessSet(ranks: readonly number[]): Promise<ProcessSet> {
  const stack = new Error();
  const running = requireRunning();
  const { size } = running.config.engine;
  if (!Array.isArray(ranks) || ranks.length === 0) {
    throw invalidArgument({ what: 'a non-empty array of ranks', name: 'ranks', value: ranks });
  }
  const sorted = [...new Set(ranks.map((r, i) => expectInteger(r, { name: `ranks[${i}]`, min: 0, max: size - 1 })))].sort((a, b) => a - b);
  if (sorted.length !== ranks.length) {
    throw invalidArgument({ what: 'distinct ranks', name: 'ranks', value: ranks });
  }
  const name = requestName(running.counters, { op: 'add_process_set' });
  const request = makeRequest(running.binding, { type: 'addProcessSet', name, splits: sorted });
  const id = await runAsync(step({ requests: [request], grouped: false, finish: (r) => r[0]?.splits?.[0] ?? -1 }), { running, stack });
  return new ProcessSet(id, sorted);
}

/**
 * Removes a process set on every rank (every rank must call it). Collectives on it fail afterwards.
 *
 * @example
 * ```ts
 * await removeProcessSet(pairs);
 * ```
 */
export async function removeProcessSet(processSet: ProcessSet): Promise<void> {
  const stack = new Error();
  const running = requireRunning();
  const { id } = groupOf(running, processSet);
  const name = requestName(running.counters, { op: 'remove_process_set' });
  const request = makeRequest(running.binding, { type: 'removeProcessSet', name, root: id });
  await runAsync(step({ requests: [request], grouped: false, finish: () => undefined }), { running, stack });
}
