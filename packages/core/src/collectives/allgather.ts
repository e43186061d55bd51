import { groupOf, type ProcessSet } from './process-set.js';
import type { HostArray } from '@kolo/native';
import { requireRunning, type Running } from '../runtime/runtime-state.js';
import { checkOptions } from '../validation/check-options.js';
import { invalidArgument } from '../validation/invalid-argument.js';
import { arrayNoun, dtypeOf, type DtypeName } from './dtype.js';
import { makeRequest } from './make-request.js';
import { requestName } from './request-names.js';
import { recurringPlan, rememberPlan } from './recurring-plans.js';
import { resultArray, resultSplits } from './result-arrays.js';
import { runPlanAsync, runPlanSync, type Plan } from './run-plan.js';
import type { SameKind } from './same-kind.js';
import { resolveShape } from './shape.js';

/**
 * Options of {@link allgather}.
 *
 * @example
 * ```ts
 * await allgather(rows, { name: 'preds', shape: [rows.length / 10, 10] });
 * ```
 */
export interface AllgatherOptions<T extends HostArray = HostArray> {
  /** Matches the request across ranks (the name as given); default `allgather.noname.<n>`. */
  readonly name?: string;
  /** Logical shape; the first dimension may differ per rank, the others must match. */
  readonly shape?: readonly number[];
  /**
   * Where the gathered rows go: an array of the input's type, not sharing its memory, whose
   * length is the gathered size (every rank's elements together). The engine writes into it
   * directly, and the result's `data` is this array. Default: a new array per call. An output
   * of another length fails the call on this rank with a RangeError once the ranks' sizes are
   * known; the other ranks' calls complete.
   */
  readonly output?: T | SameKind<T>;
  /** Runs over a process set from addProcessSet(); default every rank. */
  readonly processSet?: ProcessSet;
}

/**
 * A gathered array and its shape.
 *
 * @example
 * ```ts
 * const { data, shape }: ShapedResult<Float32Array> = await allgather(x);
 * ```
 */
export interface ShapedResult<T extends HostArray> {
  /** Every rank's rows, in rank order, in an array of the input's kind. */
  readonly data: SameKind<T>;
  /** The input's shape with the first dimension summed over the ranks. */
  readonly shape: number[];
}

/** The call's plan: the last one of `input` where this call repeats it, else a new one. */
function planAllgather(running: Running, input: unknown, options: unknown): Plan<ShapedResult<HostArray>> {
  return (
    recurringPlan<ShapedResult<HostArray>>('allgather', running, input, options as AllgatherOptions | undefined) ??
    newPlan(running, input, options)
  );
}

function newPlan(running: Running, input: unknown, options: unknown): Plan<ShapedResult<HostArray>> {
  const o = checkOptions(options as AllgatherOptions | undefined, {
    opName: 'allgather',
    allowed: ['name', 'shape', 'output', 'processSet'],
  });
  const dtype = dtypeOf(input, 'data');
  const data = input as HostArray;
  const shape = resolveShape(o.shape, { length: data.length, needsDim0: true });
  const output = o.output === undefined ? undefined : gatherOutput(o.output, data, dtype);
  const group = groupOf(running, o.processSet);
  const name = requestName(running.counters, { op: 'allgather', name: o.name, processSet: group.id });
  const request = makeRequest(running.binding, {
    type: 'allgather',
    processSet: group.id,
    name,
    dtype,
    shape,
    input: data,
    output,
  });
  const size = group.size;
  const rowShape = shape.slice(1);
  const rowElements = rowShape.reduce((a, b) => a * b, 1);
  // Made from each call's results (a new array without an output), so a repeat may reuse it.
  const plan: Plan<ShapedResult<HostArray>> = {
    requests: [request],
    grouped: false,
    finish: (results) => {
      // Gathered into the output, where a row has elements, the call is done without the ranks'
      // sizes: its rows follow from the output's length.
      const gathered = output !== undefined && rowElements > 0 && results[0]?.splits === undefined;
      const rows = gathered
        ? output.length / rowElements
        : resultSplits(results[0], { size, opName: name }).reduce((a, b) => a + b, 0);
      const outShape = [rows, ...rowShape];
      const length = rows * rowElements;
      if (output === undefined) {
        return { data: resultArray(results[0], { dtype, length, opName: name }), shape: outShape };
      }
      // The engine wrote into `output` exactly when its length is the gathered size.
      if (output.length !== length) {
        const what = `${arrayNoun(dtype)} of length ${length} (the gathered shape [${outShape.join(', ')}])`;
        throw invalidArgument({ what, name: `output of allgather '${name}'`, value: output, kind: 'range' });
      }
      return { data: output, shape: outShape };
    },
  };
  rememberPlan('allgather', running, data, options as AllgatherOptions | undefined, plan);
  return plan;
}

/** Checks an allgather's `output` before the call: the input's type, apart from its memory. */
function gatherOutput(output: unknown, data: HostArray, dtype: DtypeName): HostArray {
  if (dtypeOf(output, 'output') !== dtype) {
    throw invalidArgument({ what: `${arrayNoun(dtype)} (the type of data)`, name: 'output', value: output });
  }
  const out = output as HostArray;
  const overlaps =
    out.buffer === data.buffer &&
    out.byteOffset < data.byteOffset + data.byteLength &&
    data.byteOffset < out.byteOffset + out.byteLength;
  if (overlaps && out.byteLength > 0 && data.byteLength > 0) {
    throw invalidArgument({ what: 'an array that does not share memory with data', name: 'output', value: out, kind: 'range' });
  }
  return out;
}

/**
 * Concatenates every rank's `data` along the first dimension, in rank order. The first dimension
 * may differ per rank. Do not modify `data` until the promise settles.
 *
 * @example
 * ```ts
 * const { data, shape } = await allgather(new Float32Array([rank(), rank()]), { shape: [1, 2] });
 * // shape: [size(), 2]
 * ```
 */
export function allgather<T extends HostArray>(
  data: T,
  options?: AllgatherOptions<T>,
): Promise<ShapedResult<T>> {
  const running = requireRunning();
  const plan = planAllgather(running, data, options);
  return runPlanAsync(plan, { running }) as Promise<ShapedResult<T>>;
}

/**
 * Like {@link allgather} but **blocks the JS thread** until the result is ready.
 *
 * @example
 * ```ts
 * const { data } = allgatherSync(new Int32Array([rank()]));
 * ```
 */
export function allgatherSync<T extends HostArray>(
  data: T,
  options?: AllgatherOptions<T>,
): ShapedResult<T> {
  const running = requireRunning();
  return runPlanSync(planAllgather(running, data, options), {
    running,
  }) as ShapedResult<T>;
}
