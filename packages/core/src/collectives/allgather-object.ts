import { requireRunning, type Running } from '../runtime/runtime-state.js';
import { checkOptions } from '../validation/check-options.js';
import { decodeJson, encodeJson } from './json-bytes.js';
import { makeRequest } from './make-request.js';
import { requestName } from './request-names.js';
import { resultArray, resultSplits } from './result-arrays.js';
import { runPlanAsync, runPlanSync, type Plan } from './run-plan.js';

/**
 * Options of {@link allgatherObject}.
 *
 * @example
 * ```ts
 * await allgatherObject(stats, { name: 'epoch-stats' });
 * ```
 */
export interface AllgatherObjectOptions {
  /** Matches the request across ranks (the name as given); default `allgather_object.noname.<n>`. */
  readonly name?: string;
}

function planAllgatherObject(running: Running, obj: unknown, options: unknown): Plan<unknown[]> {
  const o = checkOptions(options as AllgatherObjectOptions | undefined, {
    opName: 'allgatherObject',
    allowed: ['name'],
  });
  const bytes = encodeJson(obj, 'obj');
  const name = requestName(running.counters, { op: 'allgather_object', name: o.name });
  const fields = {
    type: 'allgather',
    name,
    dtype: 'uint8',
    shape: [bytes.length],
    input: bytes,
  } as const;
  const size = running.config.engine.size;
  return {
    requests: [makeRequest(running.binding, fields)],
    grouped: false,
    finish: (results) => {
      const lengths = resultSplits(results[0], { size, opName: name });
      const total = lengths.reduce((a, b) => a + b, 0);
      const all = resultArray(results[0], {
        dtype: 'uint8',
        length: total,
        opName: name,
      }) as Uint8Array;
      let offset = 0;
      return lengths.map((n) => decodeJson(all.subarray(offset, (offset += n))));
    },
  };
}

/**
 * Gathers one JSON-serializable value from every rank and resolves with them in rank order.
 * One allgather of the JSON bytes: the per-rank byte counts come back with the result.
 *
 * @example
 * ```ts
 * const losses = await allgatherObject({ rank: rank(), loss }); // [{ rank: 0, … }, …]
 * ```
 */
export function allgatherObject<T = unknown>(
  obj: T,
  options?: AllgatherObjectOptions,
): Promise<T[]> {
  const running = requireRunning();
  const plan = planAllgatherObject(running, obj, options);
  return runPlanAsync(plan, { running }) as Promise<T[]>;
}

/**
 * Like {@link allgatherObject} but **blocks the JS thread** until every value has arrived.
 *
 * @example
 * ```ts
 * const hosts = allgatherObjectSync(os.hostname());
 * ```
 */
export function allgatherObjectSync<T = unknown>(obj: T, options?: AllgatherObjectOptions): T[] {
  const running = requireRunning();
  return runPlanSync(planAllgatherObject(running, obj, options), { running }) as T[];
}
