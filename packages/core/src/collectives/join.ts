import { InternalError } from '../errors/internal-error.js';
import { requireRunning, type Running } from '../runtime/runtime-state.js';
import { makeRequest } from './make-request.js';
import { requestName } from './request-names.js';
import { runPlanAsync, runPlanSync, type Plan } from './run-plan.js';

function planJoin(running: Running): Plan<number> {
  const name = requestName(running.counters, { op: 'join' });
  return {
    requests: [makeRequest(running.binding, { type: 'join', name })],
    grouped: false,
    finish: (results) => {
      const last = results[0]?.lastJoinedRank;
      if (typeof last !== 'number') {
        throw new InternalError(
          `${name}: the engine returned no last rank. This is a bug in Kolo; please report it.`,
        );
      }
      return last;
    },
  };
}

/**
 * Marks this rank as done (for uneven data: a rank that ran out of batches joins while the others
 * go on; its allreduces contribute zeros, while averages still divide by the full size) and
 * resolves when every rank has joined, with the rank that joined last (the same on every rank).
 *
 * @example
 * ```ts
 * for (const batch of myBatches) await step(batch);
 * const last = await join();
 * ```
 */
export function join(): Promise<number> {
  const running = requireRunning();
  return runPlanAsync(planJoin(running), { running });
}

/**
 * Like {@link join} but **blocks the JS thread** until every rank has joined.
 *
 * @example
 * ```ts
 * const last = joinSync();
 * ```
 */
export function joinSync(): number {
  const running = requireRunning();
  return runPlanSync(planJoin(running), { running });
}
