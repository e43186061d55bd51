import type { HostArray, NativeRequest } from '@kolo/native';
import type { Running } from '../runtime/runtime-state.js';
import { expectFiniteNumber } from '../validation/checks.js';
import { dtypeOf } from './dtype.js';
import { makeRequest } from './make-request.js';
import { reduceOpId, type ReduceOpName } from './reduce-op.js';
import { outputArray } from './result-arrays.js';
import { resolveShape } from './shape.js';
import { groupOf } from './process-set.js';

/** Validated reduction settings shared by allreduce and groupedAllreduce. */
export interface Reduction {
  readonly reduceOp: number;
  readonly prescale: number;
  readonly postscale: number;
  /** Engine id of the process set. */
  readonly processSet: number;
}

/**
 * Validates `op`, `prescaleFactor`, `postscaleFactor` and `processSet`.
 *
 * @example
 * ```ts
 * reductionOf(running, { op: 'sum', postscaleFactor: 0.5 });
 * ```
 */
export function reductionOf(
  running: Running,
  options: {
    readonly op?: ReduceOpName;
    readonly prescaleFactor?: number;
    readonly postscaleFactor?: number;
    readonly processSet?: unknown;
  },
): Reduction {
  return {
    reduceOp: reduceOpId(running.binding, { op: options.op }),
    processSet: groupOf(running, options.processSet).id,
    prescale: expectFiniteNumber(options.prescaleFactor ?? 1, 'prescaleFactor'),
    postscale: expectFiniteNumber(options.postscaleFactor ?? 1, 'postscaleFactor'),
  };
}

/** One validated allreduce input: its result array, and its request once it has a name. */
export interface AllreduceMember {
  readonly output: HostArray;
  request(name: string): NativeRequest;
}

/**
 * Validates one array with its shape and output. `labels` name the arguments in messages.
 * Naming comes after validation, so a failed call
 * never consumes an unnamed-request counter.
 *
 * @example
 * ```ts
 * const member = allreduceMember(running, { data, shape, output, reduction, labels });
 * const request = member.request('allreduce.w');
 * ```
 */
export function allreduceMember(
  running: Running,
  spec: {
    readonly data: unknown;
    readonly shape: unknown;
    readonly output: unknown;
    readonly reduction: Reduction;
    readonly labels: { readonly data: string; readonly shape: string; readonly output: string };
  },
): AllreduceMember {
  const { labels } = spec;
  const dtype = dtypeOf(spec.data, labels.data);
  const data = spec.data as HostArray;
  const shape = resolveShape(spec.shape, { length: data.length, name: labels.shape });
  const output = outputArray({ output: spec.output, input: data, dtype, length: data.length, name: labels.output });
  const { reduceOp, prescale, postscale, processSet } = spec.reduction;
  return {
    output,
    request: (name) =>
      makeRequest(running.binding, {
        type: 'allreduce',
        name,
        dtype,
        shape,
        reduceOp,
        prescale,
        postscale,
        processSet,
        input: data,
        output,
      }),
  };
}
