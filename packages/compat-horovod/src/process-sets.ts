import * as core from '@kolo/core';
import { horovodCall } from './horovod-errors.js';

/**
 * A registered subset of ranks (core's class): `ranks` (global, ascending), `id`, `rank()` (this
 * process's position, -1 outside), `size()`, `includes(globalRank)`. Get one from
 * {@link addProcessSet}; pass it as a collective's `process_set`/`processSet` option.
 *
 * @example
 * ```ts
 * const evens = await hvd.add_process_set([0, 2]);
 * if (evens.includes(hvd.rank())) await hvd.allreduce(x, { process_set: evens });
 * ```
 */
export const ProcessSet = core.ProcessSet;
export type ProcessSet = core.ProcessSet;

/**
 * Horovod's `global_process_set`: every rank (id 0). Its `ranks` are filled in by `hvd.init()`;
 * passing it is the same as passing no process set.
 *
 * @example
 * ```ts
 * await hvd.allreduce(x, { process_set: hvd.global_process_set });
 * ```
 */
// A live binding: init() replaces it once the job's size is known.
export let globalProcessSet: ProcessSet = new core.ProcessSet(0, []);

/**
 * Points {@link globalProcessSet} at ranks 0 … size-1 of the running engine.
 *
 * @example
 * ```ts
 * refreshGlobalProcessSet(4); // globalProcessSet.ranks → [0, 1, 2, 3]
 * ```
 */
export function refreshGlobalProcessSet(size: number): void {
  globalProcessSet = new core.ProcessSet(
    0,
    Array.from({ length: size }, (_, r) => r),
  );
}

/**
 * Registers a process set on every rank (Horovod's dynamic `add_process_set`): every rank calls
 * it with the same ranks, members or not, and gets the registered set. Accepts global ranks or
 * a ProcessSet whose ranks to use.
 *
 * @example
 * ```ts
 * const pair = await hvd.addProcessSet([0, 1]);
 * ```
 */
export function addProcessSet(ranks: readonly number[] | ProcessSet): Promise<ProcessSet> {
  return horovodCall(() =>
    core.addProcessSet(Array.isArray(ranks) ? ranks : (ranks as ProcessSet).ranks),
  );
}

/**
 * Removes a process set on every rank (every rank calls it); resolves with true, as Horovod's
 * `remove_process_set`. Later collectives on it fail. The global set cannot be removed.
 *
 * @example
 * ```ts
 * await hvd.removeProcessSet(pair);
 * ```
 */
export function removeProcessSet(processSet: ProcessSet): Promise<boolean> {
  return horovodCall(() => core.removeProcessSet(processSet).then(() => true));
}

/**
 * The `processSet` option of collectives (alias `process_set`, Horovod's keyword): run over
 * that set's members only; default the global set. Roots stay global ranks.
 *
 * @example
 * ```ts
 * const options: ProcessSetOption = { process_set: evens };
 * ```
 */
export interface ProcessSetOption {
  /** The set to run over (alias `process_set`); default every rank. */
  readonly processSet?: ProcessSet;
  /** Horovod's spelling of `processSet`. */
  readonly process_set?: ProcessSet;
}
