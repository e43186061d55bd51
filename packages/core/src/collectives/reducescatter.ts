import { groupOf, type ProcessSet } from './process-set.js';
import type { HostArray } from '@kolo/native';
import { requireRunning, type Running } from '../runtime/runtime-state.js';
import { checkOptions } from '../validation/check-options.js';
import { expectFiniteNumber } from '../validation/checks.js';
import type { ShapedResult } from './allgather.js';
import { dtypeOf } from './dtype.js';
import { makeRequest } from './make-request.js';
import { reduceOpId } from './reduce-op.js';
import { requestName } from './request-names.js';
import { resultArray } from './result-arrays.js';
import { runPlanAsync, runPlanSync, type Plan } from './run-plan.js';
import { resolveShape } from './shape.js';

/**
 * Options of {@link reducescatter}.
 *
 * @example
 * ```ts
 * await reducescatter(grads, { op: 'sum', shape: [8, 16], name: 'shard' });
 * ```
 */
export interface ReducescatterOptions {
  /** `average` (default, as Horovod) or `sum`; the only reductions Horovod's reducescatter allows. */
  readonly op?: 'average' | 'sum';
  /** Logical shape, identical on every rank; the first dimension is split across ranks. */
  readonly shape?: readonly number[];
  /** Matches the request across ranks (the name as given); default `reducescatter.noname.<n>`. */
  readonly name?: string;
  /** Multiplies each input before the reduction. */
  readonly prescaleFactor?: number;
  /** Multiplies the reduced result. */
  readonly postscaleFactor?: number;
  /** Runs over a process set from addProcessSet(); default every rank. */
  readonly processSet?: ProcessSet;
}

/**
 * Rows of the first dimension rank `rank` receives: `[start, start + count)`, where the first
 * `rows % size` ranks get one extra row (Horovod's split).
 *
 * @example
 * ```ts
 * scatterRows({ rows: 5, size: 3, rank: 2 }); // { start: 4, count: 1 }
 * ```
 */
export function scatterRows(spec: { rows: number; size: number; rank: number }): {
  /** The first row this rank receives. */
  start: number;
  /** How many rows it receives. */
  count: number;
} {
  const base = Math.floor(spec.rows / spec.size);
  const extra = spec.rows % spec.size;
  const count = base + (spec.rank < extra ? 1 : 0);
  return { start: spec.rank * base + Math.min(spec.rank, extra), count };
}

function planReducescatter(
  running: Running,
  input: unknown,
  options: unknown,
): Plan<ShapedResult<HostArray>> {
  const o = checkOptions(options as ReducescatterOptions | undefined, {
    opName: 'reducescatter',
    allowed: ['op', 'shape', 'name', 'prescaleFactor', 'postscaleFactor', 'processSet'],
  });
  const dtype = dtypeOf(input, 'data');
  const data = input as HostArray;
  const shape = resolveShape(o.shape, { length: data.length, needsDim0: true });
  const reduceOp = reduceOpId(running.binding, { op: o.op, allowed: ['average', 'sum'] });
  const prescale = expectFiniteNumber(o.prescaleFactor ?? 1, 'prescaleFactor');
  const postscale = expectFiniteNumber(o.postscaleFactor ?? 1, 'postscaleFactor');
  const group = groupOf(running, o.processSet);
  const name = requestName(running.counters, { op: 'reducescatter', name: o.name, processSet: group.id });
  const fields = {
    type: 'reducescatter',
    name,
    dtype,
    shape,
    reduceOp,
    prescale,
    postscale,
    input: data,
    processSet: group.id,
  } as const;
  const { size, rank } = group;
  const outShape = [scatterRows({ rows: shape[0] ?? 0, size, rank }).count, ...shape.slice(1)];
  const length = outShape.reduce((a, b) => a * b, 1);
  return {
    requests: [makeRequest(running.binding, fields)],
    grouped: false,
    finish: (results) => ({
      data: resultArray(results[0], { dtype, length, opName: name }),
      shape: outShape,
    }),
  };
}

/**
 * Reduces `data` across ranks (default: average) and gives each rank its block of rows of the
 * result: rank r gets rows `[start_r, start_r + n_r)`, the first `shape[0] % size` ranks one row
 * more (see {@link scatterRows}). Do not modify `data` until the promise settles.
 *
 * @example
 * ```ts
 * const { data, shape } = await reducescatter(grads, { shape: [6, 4], op: 'sum' });
 * ```
 */
export function reducescatter<T extends HostArray>(
  data: T,
  options?: ReducescatterOptions,
): Promise<ShapedResult<T>> {
  const running = requireRunning();
  const plan = planReducescatter(running, data, options);
  return runPlanAsync(plan, { running }) as Promise<ShapedResult<T>>;
}

/**
 * Like {@link reducescatter} but **blocks the JS thread** until the block has arrived.
 *
 * @example
 * ```ts
 * const { data } = reducescatterSync(grads, { op: 'sum' });
 * ```
 */
export function reducescatterSync<T extends HostArray>(
  data: T,
  options?: ReducescatterOptions,
): ShapedResult<T> {
  const running = requireRunning();
  return runPlanSync(planReducescatter(running, data, options), {
    running,
  }) as ShapedResult<T>;
}
