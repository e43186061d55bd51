import type { ProcessSet } from './process-set.js';
import type { HostArray, NativeParts, NativeRequest } from '@kolo/native';
import { requireRunning, type Running } from '../runtime/runtime-state.js';
import { checkOptions } from '../validation/check-options.js';
import { invalidArgument } from '../validation/invalid-argument.js';
import { InternalError } from '../errors/internal-error.js';
import { reductionOf, type Reduction } from './allreduce-member.js';
import { dtypeOf, type DtypeName } from './dtype.js';
import { outputArray } from './result-arrays.js';
import { resolveShape } from './shape.js';
import { makeRequest } from './make-request.js';
import type { ReduceOpName } from './reduce-op.js';
import { groupMemberNames, requestName } from './request-names.js';
import { recurringGroupPlan, rememberGroupPlan } from './recurring-plans.js';
import { runPlanAsync, runPlanSync, type Plan } from './run-plan.js';
import type { SameKind } from './same-kind.js';

/**
 * Options of {@link groupedAllreduce}; one reduction for the whole group.
 *
 * @example
 * ```ts
 * await groupedAllreduce(grads, { name: 'step', op: 'average', outputs: grads });
 * ```
 */
export interface GroupedAllreduceOptions {
  /**
   * Base name (as given). The engine gets one request per dtype among the arrays (all of them
   * packed together), named `<base>_<i>of<k>` for k dtypes.
   */
  readonly name?: string;
  /** The reduction; default `average`. */
  readonly op?: ReduceOpName;
  /** Multiplies each input before the reduction. */
  readonly prescaleFactor?: number;
  /** Multiplies each reduced result. */
  readonly postscaleFactor?: number;
  /** Per-array logical shapes (entries may be undefined); default each `[length]`. */
  readonly shapes?: readonly (readonly number[] | undefined)[];
  /** Per-array outputs (entries may be undefined); an array itself means in place. */
  readonly outputs?: readonly (HostArray | undefined)[];
  /** Runs over a process set from addProcessSet(); default every rank. */
  readonly processSet?: ProcessSet;
}

const allowed = ['name', 'op', 'prescaleFactor', 'postscaleFactor', 'shapes', 'outputs', 'processSet'];

function perArray(value: unknown, count: number, name: string): readonly unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length !== count) {
    throw invalidArgument({ what: `an array of ${count} entries (one per array)`, name, value });
  }
  return value;
}

/** A group's arrays after validation, index for index, in call order. */
interface Members {
  readonly dtypes: DtypeName[];
  readonly shapes: (readonly number[])[];
  readonly inputs: HostArray[];
  readonly outputs: HostArray[];
}

/**
 * Validates every array with its shape and output (one pass, no object per array). Messages
 * name the array by its index (`arrays[3]`), but those names are built only for an array that
 * fails: two strings per array otherwise took a twentieth of a 200-array call.
 */
function validateMembers(arrays: readonly unknown[], shapes: readonly unknown[], outputs: readonly unknown[]): Members {
  const n = arrays.length;
  const members: Members = { dtypes: new Array(n), shapes: new Array(n), inputs: new Array(n), outputs: new Array(n) };
  for (let i = 0; i < n; i++) {
    try {
      validateMember(members, i, arrays[i], shapes[i], outputs[i], false);
    } catch {
      // The same checks again, failing the same way, now with the array's index in the message.
      validateMember(members, i, arrays[i], shapes[i], outputs[i], true);
      throw new InternalError(`groupedAllreduce: arrays[${i}] failed validation once but not twice`);
    }
  }
  return members;
}

/** `name`, or with `indexed` the name of its entry `i` (`outputs[3]`). */
function memberLabel(name: string, i: number, indexed: boolean): string {
  return indexed ? `${name}[${i}]` : name;
}

/** Validates array `i` into `members`; `indexed`: its options' names in messages carry `[i]`. */
function validateMember(members: Members, i: number, data: unknown, shape: unknown, output: unknown, indexed: boolean): void {
  const dtype = dtypeOf(data, memberLabel('arrays', i, indexed));
  const { length } = data as HostArray;
  members.dtypes[i] = dtype;
  members.inputs[i] = data as HostArray;
  members.shapes[i] = shape === undefined ? [length] : resolveShape(shape, { length, name: memberLabel('shapes', i, indexed) });
  members.outputs[i] = outputArray({ output, input: data, dtype, length, name: memberLabel('outputs', i, indexed) });
}

/** The call's plan: the last one of these arrays where this call repeats it, else a new one. */
function planGrouped(running: Running, arrays: unknown, options: GroupedAllreduceOptions | undefined): Plan<HostArray[]> {
  return recurringGroupPlan(running, arrays, options) ?? newPlan(running, arrays, options);
}

function newPlan(running: Running, arrays: unknown, options: GroupedAllreduceOptions | undefined): Plan<HostArray[]> {
  const o = checkOptions(options, {
    opName: 'groupedAllreduce',
    allowed,
  });
  if (!Array.isArray(arrays) || arrays.length === 0) {
    throw invalidArgument({
      what: 'a non-empty array of TypedArrays',
      name: 'arrays',
      value: arrays,
    });
  }
  const shapes = perArray(o.shapes, arrays.length, 'shapes');
  const outputs = perArray(o.outputs, arrays.length, 'outputs');
  const reduction = reductionOf(running, o);
  const members = validateMembers(arrays, shapes, outputs);
  const base = requestName(running.counters, { op: 'grouped_allreduce', name: o.name, processSet: reduction.processSet });
  const packs = packByDtype(members);
  const names = groupMemberNames(base, packs.length);
  const requests = packs.map((parts, i) => packedRequest(running, parts, names[i] ?? base, reduction));
  // A copy for each call: the members' lists are the requests' own (their parts), which a plan
  // used again must still find as validated.
  const plan: Plan<HostArray[]> = { requests, grouped: true, opName: base, finish: () => members.outputs.slice() };
  rememberGroupPlan(running, members, options, plan);
  return plan;
}

/**
 * The members' arrays as one packed group per dtype, in order of first appearance, each in call
 * order (usually one: every array of one dtype, passed as they are).
 */
function packByDtype(members: Members): { dtype: DtypeName; parts: NativeParts }[] {
  const { dtypes, shapes, inputs, outputs } = members;
  const first = dtypes[0] as DtypeName;
  if (dtypes.every((d) => d === first)) return [{ dtype: first, parts: { shapes, inputs, outputs } }];
  const packs = new Map<DtypeName, { shapes: (readonly number[])[]; inputs: HostArray[]; outputs: HostArray[] }>();
  dtypes.forEach((dtype, i) => {
    let pack = packs.get(dtype);
    if (pack === undefined) packs.set(dtype, (pack = { shapes: [], inputs: [], outputs: [] }));
    pack.shapes.push(shapes[i] as readonly number[]);
    pack.inputs.push(inputs[i] as HostArray);
    pack.outputs.push(outputs[i] as HostArray);
  });
  return [...packs].map(([dtype, parts]) => ({ dtype, parts }));
}

/**
 * One request for several arrays of one dtype (NativeRequest.parts): the engine negotiates,
 * caches and reduces them as one tensor, reading and writing each array where it lies.
 */
function packedRequest(running: Running, pack: { dtype: DtypeName; parts: NativeParts }, name: string, reduction: Reduction): NativeRequest {
  let total = 0;
  for (const input of pack.parts.inputs) total += input.length;
  return makeRequest(running.binding, {
    type: 'allreduce',
    name,
    dtype: pack.dtype,
    shape: [total],
    ...reduction,
    parts: pack.parts,
  });
}

/**
 * Allreduces several arrays as one group: negotiated together and completed together (Horovod's
 * grouped allreduce). Resolves with one result per array, in order.
 *
 * @example
 * ```ts
 * const [w, b] = await groupedAllreduce([gradW, gradB], { name: 'layer1' });
 * ```
 */
export function groupedAllreduce<T extends HostArray>(
  arrays: readonly T[],
  options?: GroupedAllreduceOptions,
): Promise<SameKind<T>[]> {
  const running = requireRunning();
  const plan = planGrouped(running, arrays, options);
  return runPlanAsync(plan, { running }) as Promise<SameKind<T>[]>;
}

/**
 * Like {@link groupedAllreduce} but **blocks the JS thread** until every result is ready.
 *
 * @example
 * ```ts
 * const [w, b] = groupedAllreduceSync([gradW, gradB], { outputs: [gradW, gradB] });
 * ```
 */
export function groupedAllreduceSync<T extends HostArray>(
  arrays: readonly T[],
  options?: GroupedAllreduceOptions,
): SameKind<T>[] {
  const running = requireRunning();
  return runPlanSync(planGrouped(running, arrays, options), { running }) as SameKind<T>[];
}
