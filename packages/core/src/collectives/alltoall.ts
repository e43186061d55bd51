import { groupOf, type ProcessSet } from './process-set.js';
import type { HostArray } from '@kolo/native';
import { requireRunning, type Running } from '../runtime/runtime-state.js';
import { checkOptions } from '../validation/check-options.js';
import { invalidArgument } from '../validation/invalid-argument.js';
import { dtypeOf } from './dtype.js';
import { makeRequest } from './make-request.js';
import { requestName } from './request-names.js';
import { resultArray, resultSplits } from './result-arrays.js';
import { runPlanAsync, runPlanSync, type Plan } from './run-plan.js';
import type { SameKind } from './same-kind.js';
import { resolveShape } from './shape.js';

/**
 * Options of {@link alltoall}.
 *
 * @example
 * ```ts
 * await alltoall(rows, { splits: [2, 0, 1], shape: [3, 4], name: 'tokens' });
 * ```
 */
export interface AlltoallOptions {
  /**
   * Rows of the first dimension sent to each rank (one entry per rank, summing to `shape[0]`);
   * default an even split.
   */
  readonly splits?: readonly number[];
  /** Logical shape; dimensions after the first must match on every rank. */
  readonly shape?: readonly number[];
  /** Matches the request across ranks (the name as given); default `alltoall.noname.<n>`. */
  readonly name?: string;
  /** Runs over a process set from addProcessSet(); default every rank. */
  readonly processSet?: ProcessSet;
}

/**
 * What {@link alltoall} yields: the rows received, their shape, and how many came from each rank.
 *
 * @example
 * ```ts
 * const { data, shape, receivedSplits } = await alltoall(rows, { splits });
 * ```
 */
export interface AlltoallResult<T extends HostArray> {
  /** The rows received, in rank order, in an array of the input's kind. */
  readonly data: SameKind<T>;
  /** The input's shape with the first dimension set to the rows received. */
  readonly shape: number[];
  /** How many rows came from each rank. */
  readonly receivedSplits: number[];
}

function checkSplits(value: unknown, spec: { size: number; rows: number }): number[] {
  if (value === undefined) {
    if (spec.rows % spec.size !== 0) {
      const what = `a first dimension divisible by ${spec.size} (the number of ranks) when splits is not given`;
      throw invalidArgument({ what, name: 'shape', value: spec.rows, kind: 'range' });
    }
    return [];
  }
  const ok =
    Array.isArray(value) && value.every((s) => Number.isSafeInteger(s) && (s as number) >= 0);
  if (!ok || value.length !== spec.size) {
    const what = `an array of ${spec.size} non-negative integers (one per rank)`;
    throw invalidArgument({ what, name: 'splits', value });
  }
  if (value.reduce((a: number, b: number) => a + b, 0) !== spec.rows) {
    const what = `splits summing to ${spec.rows} (the first dimension)`;
    throw invalidArgument({ what, name: 'splits', value, kind: 'range' });
  }
  return [...(value as number[])];
}

function planAlltoall(
  running: Running,
  input: unknown,
  options: unknown,
): Plan<AlltoallResult<HostArray>> {
  const o = checkOptions(options as AlltoallOptions | undefined, {
    opName: 'alltoall',
    allowed: ['splits', 'shape', 'name', 'processSet'],
  });
  const dtype = dtypeOf(input, 'data');
  const data = input as HostArray;
  const shape = resolveShape(o.shape, { length: data.length, needsDim0: true });
  const group = groupOf(running, o.processSet);
  const size = group.size;
  const splits = checkSplits(o.splits, { size, rows: shape[0] ?? 0 });
  const name = requestName(running.counters, { op: 'alltoall', name: o.name, processSet: group.id });
  const fields = { type: 'alltoall', name, dtype, shape, splits, input: data, processSet: group.id } as const;
  return {
    requests: [makeRequest(running.binding, fields)],
    grouped: false,
    finish: (results) => {
      const receivedSplits = resultSplits(results[0], { size, opName: name });
      const outShape = [receivedSplits.reduce((a, b) => a + b, 0), ...shape.slice(1)];
      const length = outShape.reduce((a, b) => a * b, 1);
      const out = resultArray(results[0], { dtype, length, opName: name });
      return { data: out, shape: outShape, receivedSplits };
    },
  };
}

/**
 * Sends `splits[r]` consecutive rows of `data` to each rank r and receives the rows every rank
 * sent here, concatenated in rank order. Do not modify `data` until the promise settles.
 *
 * @example
 * ```ts
 * const { data, receivedSplits } = await alltoall(rows, { splits: [1, 3], shape: [4, 8] });
 * ```
 */
export function alltoall<T extends HostArray>(
  data: T,
  options?: AlltoallOptions,
): Promise<AlltoallResult<T>> {
  const running = requireRunning();
  const plan = planAlltoall(running, data, options);
  return runPlanAsync(plan, { running }) as Promise<AlltoallResult<T>>;
}

/**
 * Like {@link alltoall} but **blocks the JS thread** until the rows have arrived.
 *
 * @example
 * ```ts
 * const { data } = alltoallSync(new Float32Array(size()));
 * ```
 */
export function alltoallSync<T extends HostArray>(
  data: T,
  options?: AlltoallOptions,
): AlltoallResult<T> {
  const running = requireRunning();
  return runPlanSync(planAlltoall(running, data, options), {
    running,
  }) as AlltoallResult<T>;
}
