import type { ProcessSet } from './process-set.js';
import type { HostArray, NativeRequest } from '@kolo/native';
import { requireRunning, type Running } from '../runtime/runtime-state.js';
import { checkOptions } from '../validation/check-options.js';
import { invalidArgument } from '../validation/invalid-argument.js';
import { allreduceMember, reductionOf, type AllreduceMember, type Reduction } from './allreduce-member.js';
import { makeRequest } from './make-request.js';
import type { ReduceOpName } from './reduce-op.js';
import { groupMemberNames, requestName } from './request-names.js';
import { runPlanAsync, runSync, step, type Plan } from './run-plan.js';
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

function planGrouped(running: Running, arrays: unknown, options: unknown): Plan<HostArray[]> {
  const o = checkOptions(options as GroupedAllreduceOptions | undefined, {
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
  const members = (arrays as unknown[]).map((data, i) =>
    allreduceMember(running, {
      data,
      shape: shapes[i],
      output: outputs[i],
      reduction,
      labels: { data: `arrays[${i}]`, shape: `shapes[${i}]`, output: `outputs[${i}]` },
    }),
  );
  const base = requestName(running.counters, { op: 'grouped_allreduce', name: o.name, processSet: reduction.processSet });
  const packs = packByDtype(members);
  const names = groupMemberNames(base, packs.length);
  const requests = packs.map((pack, i) => packedRequest(running, pack, names[i] ?? base, reduction));
  return { requests, grouped: true, opName: base, finish: () => members.map((m) => m.output) };
}

/** The members by dtype, in order of first appearance, each list in call order. */
function packByDtype(members: readonly AllreduceMember[]): AllreduceMember[][] {
  const first = members[0] as AllreduceMember;
  if (members.every((m) => m.dtype === first.dtype)) return [members as AllreduceMember[]];
  const packs = new Map<string, AllreduceMember[]>();
  for (const m of members) {
    const pack = packs.get(m.dtype);
    if (pack === undefined) packs.set(m.dtype, [m]);
    else pack.push(m);
  }
  return [...packs.values()];
}

/**
 * One request for several arrays of one dtype (NativeRequest.parts): the engine negotiates,
 * caches and reduces them as one tensor, reading and writing each array where it lies.
 */
function packedRequest(running: Running, pack: readonly AllreduceMember[], name: string, reduction: Reduction): NativeRequest {
  const n = pack.length;
  const shapes = new Array<readonly number[]>(n);
  const inputs = new Array<HostArray>(n);
  const outputs = new Array<HostArray>(n);
  let total = 0;
  for (let i = 0; i < n; i++) {
    const m = pack[i] as AllreduceMember;
    shapes[i] = m.shape;
    inputs[i] = m.input;
    outputs[i] = m.output;
    total += m.input.length;
  }
  return makeRequest(running.binding, {
    type: 'allreduce',
    name,
    dtype: (pack[0] as AllreduceMember).dtype,
    shape: [total],
    ...reduction,
    parts: { shapes, inputs, outputs },
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
  return runSync(step(planGrouped(running, arrays, options)), { running }) as SameKind<T>[];
}
