import type { HostArray } from '@kolo/native';
import type { Running } from '../runtime/runtime-state.js';
import type { Plan } from './run-plan.js';

/**
 * The options of an allreduce that another call may repeat: what the plan was made from.
 * `output` is required: without it every call allocates its own result array.
 */
interface RecurringOptions {
  readonly name?: unknown;
  readonly op?: unknown;
  readonly prescaleFactor?: unknown;
  readonly postscaleFactor?: unknown;
  readonly shape?: unknown;
  readonly output?: unknown;
  readonly processSet?: unknown;
}

/** A validated plan and everything its validation read, to tell whether a call repeats it. */
interface Recurring {
  readonly running: Running;
  /** The options' enumerable keys in for-in order (a misspelt key added later is not one). */
  readonly keys: readonly string[];
  readonly name: unknown;
  readonly op: unknown;
  readonly prescale: unknown;
  readonly postscale: unknown;
  readonly output: HostArray;
  readonly processSet: unknown;
  readonly length: number;
  readonly outputLength: number;
  readonly plan: Plan<HostArray>;
}

/**
 * Each input array's last named allreduce plan, keyed by the array (weakly: a dropped array
 * takes its plan with it, and the plan's output with it).
 */
const plans = new WeakMap<object, Recurring>();

/** The options' enumerable keys, in for-in order, as checkOptions walks them. */
function keysOf(options: object): string[] {
  const keys: string[] = [];
  for (const key in options) keys.push(key);
  return keys;
}

/** True when `options` has exactly `keys`, in that order. */
function sameKeys(options: object, keys: readonly string[]): boolean {
  let i = 0;
  for (const key in options) {
    if (key !== keys[i]) return false;
    i += 1;
  }
  return i === keys.length;
}

/**
 * The plan of the last allreduce of `data` when this call repeats it exactly: a training loop
 * reduces the same arrays under the same names into the same outputs every step, and each
 * such call otherwise validates its arrays and options again and builds a new request (about
 * 0.15 µs per call: half of what 200 separate calls took in JS before anything was awaited,
 * 60 µs against 30). Repeats means: the same engine, the same output array, option keys and values
 * (compared by identity), and both arrays still of the length the plan was made for (a
 * detached buffer's view reads as length 0, so such a call is validated again and refused).
 * Undefined otherwise: the caller validates and, through {@link rememberPlan}, records.
 *
 * @example
 * ```ts
 * const plan = recurringPlan(running, data, options) ?? planAllreduce(running, data, options);
 * ```
 */
export function recurringPlan(running: Running, data: unknown, options: RecurringOptions | undefined): Plan<HostArray> | undefined {
  if (typeof options !== 'object' || options === null || typeof data !== 'object' || data === null) return undefined;
  const last = plans.get(data);
  if (last === undefined || last.running !== running) return undefined;
  if (
    options.output !== last.output ||
    options.name !== last.name ||
    options.op !== last.op ||
    options.prescaleFactor !== last.prescale ||
    options.postscaleFactor !== last.postscale ||
    options.processSet !== last.processSet ||
    options.shape !== undefined ||
    (data as HostArray).length !== last.length ||
    last.output.length !== last.outputLength ||
    !sameKeys(options, last.keys)
  ) {
    return undefined;
  }
  return last.plan;
}

/**
 * Records a plan that {@link recurringPlan} may hand back for a later call of the same `data`
 * and options. Only a named call into an output, without a shape (an array the caller may
 * change between calls), of a non-empty array (an empty view is checked for a detached buffer
 * every time): an unnamed call gets a new name each time, and without an output a new array.
 *
 * @example
 * ```ts
 * rememberPlan(running, data, options, plan);
 * ```
 */
export function rememberPlan(running: Running, data: HostArray, options: RecurringOptions | undefined, plan: Plan<HostArray>): void {
  if (options === undefined || options.name === undefined || options.shape !== undefined) return;
  const output = options.output as HostArray | undefined;
  if (output === undefined || data.length === 0) return;
  plans.set(data, {
    running,
    keys: keysOf(options),
    name: options.name,
    op: options.op,
    prescale: options.prescaleFactor,
    postscale: options.postscaleFactor,
    output,
    processSet: options.processSet,
    length: data.length,
    outputLength: output.length,
    plan,
  });
}
