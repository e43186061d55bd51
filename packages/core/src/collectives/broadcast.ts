import { groupOf, type ProcessSet } from './process-set.js';
import type { HostArray } from '@kolo/native';
import { requireRunning, type Running } from '../runtime/runtime-state.js';
import { checkOptions } from '../validation/check-options.js';
import { expectInteger } from '../validation/checks.js';
import { dtypeOf } from './dtype.js';
import { makeRequest } from './make-request.js';
import { requestName } from './request-names.js';
import { recurringPlan, rememberPlan } from './recurring-plans.js';
import { outputArray } from './result-arrays.js';
import { runPlanAsync, runPlanSync, type Plan } from './run-plan.js';
import type { SameKind } from './same-kind.js';
import { resolveShape } from './shape.js';

/**
 * Options of {@link broadcast}.
 *
 * @example
 * ```ts
 * await broadcast(weights, { root: 0, name: 'w', output: weights });
 * ```
 */
export interface BroadcastOptions<T extends HostArray = HostArray> {
  /** The rank whose data everyone receives, in [0, size()). */
  readonly root: number;
  /** Matches the request across ranks (the name as given); default `broadcast.noname.<n>`. */
  readonly name?: string;
  /** Logical shape, checked against the other ranks; default `[data.length]`. */
  readonly shape?: readonly number[];
  /** Where the result goes; pass `data` itself to receive in place. */
  readonly output?: T | SameKind<T>;
  /** Runs over a process set from addProcessSet(); default every rank. */
  readonly processSet?: ProcessSet;
}

/** The call's plan: the last one of `input` where this call repeats it, else a new one. */
function planBroadcast(running: Running, input: unknown, options: unknown): Plan<HostArray> {
  return recurringPlan<HostArray>('broadcast', running, input, options as BroadcastOptions | undefined) ?? newPlan(running, input, options);
}

function newPlan(running: Running, input: unknown, options: unknown): Plan<HostArray> {
  const o = checkOptions(options as BroadcastOptions | undefined, {
    opName: 'broadcast',
    allowed: ['root', 'name', 'shape', 'output', 'processSet'],
  });
  const processSet = groupOf(running, o.processSet).id;
  const size = running.config.engine.size;
  const root = expectInteger(o.root, { name: 'root', min: 0, max: size - 1 });
  const dtype = dtypeOf(input, 'data');
  const data = input as HostArray;
  const shape = resolveShape(o.shape, { length: data.length });
  const output = outputArray({ output: o.output, input: data, dtype, length: data.length });
  const name = requestName(running.counters, { op: 'broadcast', name: o.name, processSet });
  const fields = { type: 'broadcast', name, dtype, shape, root, input: data, output, processSet } as const;
  const plan: Plan<HostArray> = { requests: [makeRequest(running.binding, fields)], grouped: false, finish: () => output };
  rememberPlan('broadcast', running, data, options as BroadcastOptions | undefined, plan);
  return plan;
}

/**
 * Sends `root`'s `data` to every rank. Every rank passes an array of the same type and length;
 * the result is a new array unless `output` is given (`output: data` receives in place). Do not
 * modify `data` or `output` until the promise settles.
 *
 * @example
 * ```ts
 * const weights = await broadcast(localWeights, { root: 0, name: 'weights' });
 * ```
 */
export function broadcast<T extends HostArray>(
  data: T,
  options: BroadcastOptions<T>,
): Promise<SameKind<T>> {
  const running = requireRunning();
  const plan = planBroadcast(running, data, options);
  return runPlanAsync(plan, { running }) as Promise<SameKind<T>>;
}

/**
 * Like {@link broadcast} but **blocks the JS thread** until the data has arrived.
 *
 * @example
 * ```ts
 * broadcastSync(weights, { root: 0, output: weights });
 * ```
 */
export function broadcastSync<T extends HostArray>(
  data: T,
  options: BroadcastOptions<T>,
): SameKind<T> {
  const running = requireRunning();
  return runPlanSync(planBroadcast(running, data, options), { running }) as SameKind<T>;
}
