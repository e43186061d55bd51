import type { HostArray } from '@kolo/native';
import type { Running } from '../runtime/runtime-state.js';
import type { Plan } from './run-plan.js';

/**
 * What a call's options may hold that its plan depends on: the reduction's fields, a
 * broadcast's root, and the output (allreduce, broadcast, allgather) or outputs
 * (groupedAllreduce) with shape (compared by value) or shapes, which a repeated group must leave
 * out.
 */
interface RecurringOptions {
  readonly name?: unknown;
  readonly root?: unknown;
  readonly op?: unknown;
  readonly prescaleFactor?: unknown;
  readonly postscaleFactor?: unknown;
  readonly processSet?: unknown;
  readonly output?: unknown;
  readonly shape?: unknown;
  readonly outputs?: unknown;
  readonly shapes?: unknown;
}

/** A validated plan and everything its validation read, to tell whether a call repeats it. */
interface Recurring<T> {
  readonly running: Running;
  /** The options' enumerable keys in for-in order (a misspelt key added later is not one). */
  readonly keys: readonly string[];
  readonly name: unknown;
  readonly root: unknown;
  readonly op: unknown;
  readonly prescale: unknown;
  readonly postscale: unknown;
  readonly processSet: unknown;
  /** A copy of the shape option's dimensions, when it had one. */
  readonly shape: readonly number[] | undefined;
  /** The input arrays (one for allreduce), then their outputs, index for index. */
  readonly inputs: readonly HostArray[];
  readonly outputs: readonly HostArray[];
  /** Every input's length, then every output's, when the plan was made. */
  readonly lengths: readonly number[];
  readonly plan: Plan<T>;
}

/** The collectives whose calls of one array may repeat a plan (see {@link recurringPlan}). */
export type RecurringKind = 'allreduce' | 'broadcast' | 'allgather';

/**
 * Each input array's last few named plans of each kind (a loop may gather one array under two
 * names, or into two outputs: each call then finds its own), most recently used first, and each first
 * array's last named grouped plan, keyed by the array (weakly: a dropped array takes its plans
 * with it, and the plans' outputs).
 */
const plansPerArray = 4;
const plans: Record<RecurringKind, WeakMap<object, Recurring<unknown>[]>> = {
  allreduce: new WeakMap(),
  broadcast: new WeakMap(),
  allgather: new WeakMap(),
};
const groupPlans = new WeakMap<object, Recurring<HostArray[]>>();

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

/** True when `shape` is an array of the dimensions `last` holds (both absent counts). */
function sameShape(shape: unknown, last: readonly number[] | undefined): boolean {
  if (shape === undefined || last === undefined) return shape === last;
  if (!Array.isArray(shape) || shape.length !== last.length) return false;
  for (let i = 0; i < last.length; i++) if (shape[i] !== last[i]) return false;
  return true;
}

/**
 * True when `options` holds what `last` was made from: the same keys, reduction fields, root and
 * shape (by value: the caller may edit its shape array between calls).
 */
function sameOptions(options: RecurringOptions, last: Recurring<unknown>): boolean {
  return (
    options.name === last.name &&
    options.root === last.root &&
    options.op === last.op &&
    options.prescaleFactor === last.prescale &&
    options.postscaleFactor === last.postscale &&
    options.processSet === last.processSet &&
    sameShape(options.shape, last.shape) &&
    sameKeys(options, last.keys)
  );
}

/** True when a call with `options` is the one `last` was made for: the same output and options. */
function sameCall(options: RecurringOptions, last: Recurring<unknown>): boolean {
  return options.output === last.outputs[0] && sameOptions(options, last);
}

/** True when every array of `last` still has the length its plan was made for. */
function sameLengths(last: Recurring<unknown>): boolean {
  const { inputs, outputs, lengths } = last;
  for (let i = 0; i < inputs.length; i++) {
    if ((inputs[i] as HostArray).length !== lengths[i]) return false;
  }
  for (let i = 0; i < outputs.length; i++) {
    if ((outputs[i] as HostArray).length !== lengths[inputs.length + i]) return false;
  }
  return true;
}

/** What {@link sameOptions} and {@link sameLengths} later compare a call with, and the plan. */
function record<T>(running: Running, options: RecurringOptions, arrays: { inputs: readonly HostArray[]; outputs: readonly HostArray[] }, plan: Plan<T>): Recurring<T> {
  return {
    running,
    keys: keysOf(options),
    name: options.name,
    root: options.root,
    op: options.op,
    prescale: options.prescaleFactor,
    postscale: options.postscaleFactor,
    processSet: options.processSet,
    shape: Array.isArray(options.shape) ? [...(options.shape as readonly number[])] : undefined,
    inputs: arrays.inputs,
    outputs: arrays.outputs,
    lengths: [...arrays.inputs, ...arrays.outputs].map((a) => a.length),
    plan,
  };
}

/**
 * `last`'s plan, handed back for a call that repeats it, with the `intact` check that lets the
 * request queue hand a whole repeated turn over again (see RequestQueue): given on the first
 * repeat, so a turn of plans made once (new arrays every step) is never remembered there.
 */
function repeated<T>(last: Recurring<T>): Plan<T> {
  const plan = last.plan;
  plan.intact ??= () => sameLengths(last);
  return plan;
}

/**
 * The plan of the last `kind` call of `data` when this call repeats it exactly: a training loop
 * reduces the same arrays under the same names into the same outputs every step, and each
 * such call otherwise validates its arrays and options again and builds a new request (about
 * 0.15 µs per call: half of what 200 separate calls took in JS before anything was awaited,
 * 60 µs against 30; a 4 KiB allgather or broadcast spent 2–3 µs a call validating and 1 µs in
 * the binding reading its request). Repeats means: the same engine, the same output array
 * (or none, for an allgather, whose results are new arrays each call), option keys and
 * values (compared by identity; a shape by its dimensions), and both arrays still of the
 * length the plan was made for (a detached buffer's view reads as length 0, so such a call is
 * validated again and refused). Undefined otherwise: the caller validates and, through
 * {@link rememberPlan}, records.
 *
 * @example
 * ```ts
 * const plan = recurringPlan('allreduce', running, data, options) ?? newPlan(running, data, options);
 * ```
 */
export function recurringPlan<T>(kind: RecurringKind, running: Running, data: unknown, options: RecurringOptions | undefined): Plan<T> | undefined {
  if (typeof options !== 'object' || options === null || typeof data !== 'object' || data === null) return undefined;
  const recorded = plans[kind].get(data);
  if (recorded === undefined) return undefined;
  for (let i = 0; i < recorded.length; i++) {
    const last = recorded[i] as Recurring<T>;
    if (last.running !== running || !sameCall(options, last)) continue;
    if (i > 0) {
      // Most recently used first: a fifth plan then replaces the one unused for longest.
      recorded.splice(i, 1);
      recorded.unshift(last as Recurring<unknown>);
    }
    return sameLengths(last) ? repeated(last) : undefined;
  }
  return undefined;
}

/**
 * Records a plan that {@link recurringPlan} may hand back for a later `kind` call of the same
 * `data` and options. Only a named call (an unnamed call gets a new name each time) of a
 * non-empty array (an empty view is checked for a detached buffer every time), into an output
 * where the plan's value is that output (allreduce, broadcast: without one, each call needs a
 * new array); an allgather's plan makes its value from each call's results.
 *
 * @example
 * ```ts
 * rememberPlan('allreduce', running, data, options, plan);
 * ```
 */
export function rememberPlan<T>(kind: RecurringKind, running: Running, data: HostArray, options: RecurringOptions | undefined, plan: Plan<T>): void {
  if (options === undefined || options.name === undefined) return;
  const output = options.output as HostArray | undefined;
  if ((output === undefined && kind !== 'allgather') || data.length === 0) return;
  const made = record(running, options, { inputs: [data], outputs: output === undefined ? [] : [output] }, plan) as Recurring<unknown>;
  const recorded = plans[kind].get(data);
  if (recorded === undefined) {
    plans[kind].set(data, [made]);
    return;
  }
  // In place of a plan of the same output and options (made again: an array changed length, or
  // another engine), else of the least recently used.
  const same = recorded.findIndex((r) => sameCall(options, r));
  if (same >= 0) recorded.splice(same, 1);
  else if (recorded.length >= plansPerArray) recorded.pop();
  recorded.unshift(made);
}

/**
 * {@link recurringPlan} for groupedAllreduce: the last grouped plan whose first array is
 * `arrays[0]`, when this call passes the same arrays (each by identity, in order, though the
 * list itself may be new), the same outputs, no shapes, and the same options. Validating each
 * array and output took about 0.1 µs per array, 20 µs of a group of 200. The plan must hand each
 * call a new result list (its `finish` copies): the recorded lists, which its requests read,
 * stay the engine's own.
 *
 * @example
 * ```ts
 * const plan = recurringGroupPlan(running, arrays, options) ?? newPlan(running, arrays, options);
 * ```
 */
export function recurringGroupPlan(running: Running, arrays: unknown, options: RecurringOptions | undefined): Plan<HostArray[]> | undefined {
  if (typeof options !== 'object' || options === null || !Array.isArray(arrays) || arrays.length === 0) return undefined;
  const first: unknown = arrays[0];
  if (typeof first !== 'object' || first === null) return undefined;
  const last = groupPlans.get(first);
  if (last === undefined || last.running !== running || options.shapes !== undefined) return undefined;
  const outputs = options.outputs;
  const { inputs } = last;
  if (!Array.isArray(outputs) || arrays.length !== inputs.length || outputs.length !== inputs.length) return undefined;
  for (let i = 0; i < inputs.length; i++) {
    if (arrays[i] !== inputs[i] || outputs[i] !== last.outputs[i]) return undefined;
  }
  return sameOptions(options, last) && sameLengths(last) ? repeated(last) : undefined;
}

/**
 * Records a grouped plan for {@link recurringGroupPlan}: only a named call that gives every
 * array an output and no shapes, of non-empty arrays. `group` holds the validated arrays in
 * lists of the plan's own, which no caller sees.
 *
 * @example
 * ```ts
 * rememberGroupPlan(running, members, options, plan); // members: { inputs, outputs }
 * ```
 */
export function rememberGroupPlan(
  running: Running,
  group: { readonly inputs: readonly HostArray[]; readonly outputs: readonly HostArray[] },
  options: RecurringOptions | undefined,
  plan: Plan<HostArray[]>,
): void {
  if (options === undefined || options.name === undefined || options.shapes !== undefined) return;
  const given = options.outputs;
  if (!Array.isArray(given) || given.some((o) => o === undefined)) return;
  if (group.inputs.some((a) => a.length === 0)) return;
  const first = group.inputs[0];
  if (first === undefined) return;
  groupPlans.set(first, record(running, options, group, plan));
}
