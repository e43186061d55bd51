import { groupOf, type ProcessSet } from './process-set.js';
import { requireRunning, type Running } from '../runtime/runtime-state.js';
import { checkOptions } from '../validation/check-options.js';
import { makeRequest } from './make-request.js';
import { requestName } from './request-names.js';
import { runPlanAsync, runPlanSync, type Plan } from './run-plan.js';

/**
 * Options of {@link barrier}.
 *
 * @example
 * ```ts
 * await barrier({ name: 'after-checkpoint' });
 * ```
 */
export interface BarrierOptions {
  /** Matches the barrier across ranks (the name as given); default `barrier.noname.<n>`. */
  readonly name?: string;
  /** Runs over a process set from addProcessSet(); default every rank. */
  readonly processSet?: ProcessSet;
}

function planBarrier(running: Running, options: unknown): Plan<void> {
  const o = checkOptions(options as BarrierOptions | undefined, {
    opName: 'barrier',
    allowed: ['name', 'processSet'],
  });
  const processSet = groupOf(running, o.processSet).id;
  const name = requestName(running.counters, { op: 'barrier', name: o.name, processSet });
  const request = makeRequest(running.binding, { type: 'barrier', name, processSet });
  return { requests: [request], grouped: false, finish: () => undefined };
}

/**
 * Resolves once every rank has reached the barrier with the same name.
 *
 * @example
 * ```ts
 * if (rank() === 0) await writeCheckpoint();
 * await barrier({ name: 'checkpoint' });
 * ```
 */
export function barrier(options?: BarrierOptions): Promise<void> {
  const running = requireRunning();
  return runPlanAsync(planBarrier(running, options), { running });
}

/**
 * Like {@link barrier} but **blocks the JS thread** until every rank has arrived.
 *
 * @example
 * ```ts
 * barrierSync();
 * ```
 */
export function barrierSync(options?: BarrierOptions): void {
  const running = requireRunning();
  runPlanSync(planBarrier(running, options), { running });
}
