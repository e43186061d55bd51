import { KoloError } from '../errors/kolo-error.js';
import { init, type InitOptions } from '../runtime/init.js';
import { shutdown } from '../runtime/shutdown.js';
import { nextAssignment } from './assignment.js';
import type { ObjectState } from './object-state.js';

/** Options of {@link run}. */
export interface ElasticRunOptions {
  /** Passed to every re-`init()` besides the new topology (e.g. `timeoutMs`). Default none. */
  readonly initOptions?: Omit<InitOptions, 'rank' | 'size' | 'localRank' | 'localSize' | 'crossRank' | 'crossSize' | 'elasticGeneration'>;
  /** How long a survivor waits for kolorun to publish the next generation. Default 60 s. */
  readonly assignmentTimeoutMs?: number;
}

/** Failures that mean "a peer is gone": the job can go on without it. */
const recoverable = new Set(['KOLO_COMMUNICATION', 'KOLO_TIMEOUT']);

/** The elastic generation this process is in; kolorun's first one is 0. */
let currentGeneration = 0;

/**
 * The elastic generation this process last joined (0 until a membership change).
 *
 * @example
 * ```ts
 * console.log(`generation ${elastic.generation()}`);
 * ```
 */
export function generation(): number {
  return currentGeneration;
}

/**
 * Runs `trainFn(state)` under Horovod's elastic contract, in a job started by
 * `kolorun --min-np A --max-np B`. First every rank takes rank 0's state (`state.sync()`). When a
 * collective fails because a peer died (`CommunicationError` or `TimeoutError`), it rolls `state`
 * back to its last commit, shuts the engine down, waits for kolorun to publish the survivors' new
 * ranks, re-`init()`s with them, syncs the state from the new rank 0 and calls `trainFn` again.
 * Other errors reject at once. Call `init()` before, `shutdown()` after.
 *
 * @example
 * ```ts
 * const state = new elastic.ObjectState({ step: 0 });
 * await elastic.run(async (s) => {
 *   for (; s.values.step < 100; s.values.step += 1) { await allreduce(grads, { op: 'average' }); s.commit(); }
 * }, state);
 * ```
 */
export async function run<T extends object, R>(
  trainFn: (state: ObjectState<T>) => R | Promise<R>,
  state: ObjectState<T>,
  options: ElasticRunOptions = {},
): Promise<R> {
  const timeoutMs = options.assignmentTimeoutMs ?? 60_000;
  for (;;) {
    await state.sync();
    try {
      return await trainFn(state);
    } catch (error) {
      if (!KoloError.isInstance(error) || !recoverable.has(error.code)) throw error;
      state.restore();
      await shutdown();
      const next = await nextAssignment(currentGeneration, { timeoutMs }).catch((lookup: unknown) => {
        throw new AggregateError([error, lookup], `No elastic generation after ${currentGeneration} included this worker within ${timeoutMs} ms after: ${error.message}`);
      });
      currentGeneration = next.generation;
      await init({ ...options.initOptions, ...next.topology, elasticGeneration: next.generation });
    }
  }
}
