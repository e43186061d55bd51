import { requireRunning, type Running } from '../runtime/runtime-state.js';
import { checkOptions } from '../validation/check-options.js';
import { expectInteger } from '../validation/checks.js';
import { decodeJson, encodeJson } from './json-bytes.js';
import { makeRequest } from './make-request.js';
import { requestName } from './request-names.js';
import { runAsync, runSync, step, type Plan, type Steps } from './run-plan.js';

/**
 * Options of {@link broadcastObject}.
 *
 * @example
 * ```ts
 * await broadcastObject(state, { root: 0, name: 'state' });
 * ```
 */
export interface BroadcastObjectOptions {
  /** The rank whose object everyone receives. */
  readonly root: number;
  /** Base name (the name as given); default `broadcast_object.noname.<n>`. */
  readonly name?: string;
}

function inPlaceBroadcast(
  running: Running,
  name: string,
  data: Int32Array | Uint8Array,
  root: number,
): Plan<void> {
  const dtype = data instanceof Int32Array ? 'int32' : 'uint8';
  const fields = {
    type: 'broadcast',
    name,
    dtype,
    shape: [data.length],
    root,
    input: data,
    output: data,
  } as const;
  return {
    requests: [makeRequest(running.binding, fields)],
    grouped: false,
    finish: () => undefined,
  };
}

function* broadcastObjectSteps(running: Running, obj: unknown, options: unknown): Steps<unknown> {
  const o = checkOptions(options as BroadcastObjectOptions | undefined, {
    opName: 'broadcastObject',
    allowed: ['root', 'name'],
  });
  const { rank, size } = running.config.engine;
  const root = expectInteger(o.root, { name: 'root', min: 0, max: size - 1 });
  const payload = rank === root ? encodeJson(obj, 'obj') : undefined;
  const base = requestName(running.counters, { op: 'broadcast_object', name: o.name });
  const length = new Int32Array([payload?.length ?? 0]);
  yield* step(inPlaceBroadcast(running, `${base}.length`, length, root));
  const bytes = payload ?? new Uint8Array(length[0] ?? 0);
  yield* step(inPlaceBroadcast(running, `${base}.data`, bytes, root));
  return decodeJson(bytes);
}

/**
 * Sends a JSON-serializable value from `root` to every rank (its length, then its bytes).
 * Every rank, root included, resolves with a copy parsed from the same JSON, so all ranks hold
 * equal values. Non-root ranks may pass anything as `obj` (it is ignored).
 *
 * @example
 * ```ts
 * const state = await broadcastObject(rank() === 0 ? { epoch, lr } : undefined, { root: 0 });
 * ```
 */
export function broadcastObject<T = unknown>(obj: T, options: BroadcastObjectOptions): Promise<T> {
  const running = requireRunning();
  return runAsync(broadcastObjectSteps(running, obj, options), { running }) as Promise<T>;
}

/**
 * Like {@link broadcastObject} but **blocks the JS thread** until the value has arrived.
 *
 * @example
 * ```ts
 * const config = broadcastObjectSync(rank() === 0 ? loadConfig() : null, { root: 0 });
 * ```
 */
export function broadcastObjectSync<T = unknown>(obj: T, options: BroadcastObjectOptions): T {
  const running = requireRunning();
  return runSync(broadcastObjectSteps(running, obj, options), { running }) as T;
}
