import type { HostArray } from '@kolo/native';
import { requireRunning, type Running } from '../runtime/runtime-state.js';
import { checkOptions } from '../validation/check-options.js';
import { allreduceMember, reductionOf } from './allreduce-member.js';
import type { ReduceOpName } from './reduce-op.js';
import { requestName } from './request-names.js';
import { recurringPlan, rememberPlan } from './recurring-plans.js';
import { runPlanAsync, runPlanSync, type Plan } from './run-plan.js';
import type { SameKind } from './same-kind.js';
import type { ProcessSet } from './process-set.js';

/**
 * Options of {@link allreduce}.
 *
 * @example
 * ```ts
 * const options: AllreduceOptions<Float32Array> = { name: 'grad', op: 'sum', output: grad };
 * ```
 */
export interface AllreduceOptions<T extends HostArray = HostArray> {
  /** Matches the request across ranks (the name as given); default `allreduce.noname.<n>`. */
  readonly name?: string;
  /** The reduction; default `average`, as Horovod (integer dtypes truncate toward zero). */
  readonly op?: ReduceOpName;
  /** Multiplies each input before the reduction (e.g. to avoid float16 overflow). */
  readonly prescaleFactor?: number;
  /** Multiplies the reduced result. */
  readonly postscaleFactor?: number;
  /** Logical shape, checked against the other ranks; default `[data.length]`. */
  readonly shape?: readonly number[];
  /** Where the result goes (same type and length); pass `data` itself to reduce in place. */
  readonly output?: T | SameKind<T>;
  /** Runs over a process set from addProcessSet(); default every rank. */
  readonly processSet?: ProcessSet;
}

/** The keys of {@link AllreduceOptions}, for misspelling checks. */
const allreduceOptionKeys = ['name', 'op', 'prescaleFactor', 'postscaleFactor', 'shape', 'output', 'processSet'];

const labels = { data: 'data', shape: 'shape', output: 'output' } as const;

/** The call's plan: the last one of `data` where this call repeats it, else a new one. */
function planAllreduce(running: Running, data: unknown, options: AllreduceOptions | undefined): Plan<HostArray> {
  return recurringPlan<HostArray>('allreduce', running, data, options) ?? newPlan(running, data, options);
}

function newPlan(running: Running, data: unknown, options: AllreduceOptions | undefined): Plan<HostArray> {
  const o = checkOptions(options, {
    opName: 'allreduce',
    allowed: allreduceOptionKeys,
  });
  const reduction = reductionOf(running, o);
  const member = allreduceMember(running, {
    data,
    shape: o.shape,
    output: o.output,
    reduction,
    labels,
  });
  const name = requestName(running.counters, { op: 'allreduce', name: o.name, processSet: reduction.processSet });
  const plan: Plan<HostArray> = { requests: [member.request(name)], grouped: false, finish: () => member.output };
  rememberPlan('allreduce', running, data as HostArray, options, plan);
  return plan;
}

/**
 * Reduces `data` across all ranks (default: average) and resolves with the result, a new array
 * of the same type unless `output` is given. Do not modify `data` (or `output`) until the promise
 * settles: the engine reads and writes them in the background.
 *
 * @example
 * ```ts
 * const mean = await allreduce(new Float32Array([rank()]), { name: 'r' });
 * ```
 */
export function allreduce<T extends HostArray>(
  data: T,
  options?: AllreduceOptions<T>,
): Promise<SameKind<T>> {
  const running = requireRunning();
  const plan = planAllreduce(running, data, options);
  return runPlanAsync(plan, { running }) as Promise<SameKind<T>>;
}

/**
 * Like {@link allreduce} but **blocks the JS thread** until the result is ready. For code that
 * must stay synchronous, such as tfjs's `optimizer.applyGradients` inside `model.fit`.
 *
 * @example
 * ```ts
 * allreduceSync(grads, { name: 'grads', output: grads }); // in place, blocking
 * ```
 */
export function allreduceSync<T extends HostArray>(
  data: T,
  options?: AllreduceOptions<T>,
): SameKind<T> {
  const running = requireRunning();
  return runPlanSync(planAllreduce(running, data, options), { running }) as SameKind<T>;
}
