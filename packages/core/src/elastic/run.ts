import { KoloError } from '../errors/kolo-error.js';
import { rank } from '../runtime/topology.js';
import { init, type InitOptions } from '../runtime/init.js';
import { shutdown } from '../runtime/shutdown.js';
import { nextAssignment } from './assignment.js';
import { stopWatchingHostUpdates, watchHostUpdates } from './host-updates.js';
import { HostsUpdatedInterrupt } from './hosts-updated-interrupt.js';
import { lateJoinOptions } from './late-join.js';
import type { ElasticState } from './elastic-state.js';

/** Options of {@link run}. */
export interface ElasticRunOptions {
  /** Passed to every re-`init()` besides the new topology (e.g. `timeoutMs`). Default none. */
  readonly initOptions?: Omit<InitOptions, 'rank' | 'size' | 'localRank' | 'localSize' | 'crossRank' | 'crossSize' | 'elasticGeneration'>;
  /** How long a survivor waits for kolorun to publish the next generation. Default 60 s. */
  readonly assignmentTimeoutMs?: number;
}

/** Failures that mean "a peer is gone": the job can go on without it. */
const recoverable = new Set(['KOLO_COMMUNICATION', 'KOLO_TIMEOUT']);
const isRecoverable = (error: unknown): error is KoloError => KoloError.isInstance(error) && recoverable.has(error.code);

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
 * `kolorun --min-np A --max-np B [--host-discovery-script S]`. First every rank takes rank 0's
 * state (`state.sync()`). When a collective fails because a peer died (`CommunicationError` or
 * `TimeoutError`), it rolls `state` back to its last commit; when kolorun added workers,
 * `state.commit()` throws {@link HostsUpdatedInterrupt} on every rank. Either way it shuts the
 * engine down, waits for kolorun's next generation, re-`init()`s with its ranks, syncs the state
 * from the new rank 0 and calls `trainFn` again. Other errors reject at once. Call `init()`
 * before, `shutdown()` after.
 *
 * @example
 * ```ts
 * const state = new elastic.ObjectState({ step: 0 });
 * await elastic.run(async (s) => {
 *   for (; s.values.step < 100; s.values.step += 1) { await allreduce(grads, { op: 'average' }); s.commit(); }
 * }, state);
 * ```
 */
export async function run<S extends ElasticState, R>(
  trainFn: (state: S) => R | Promise<R>,
  state: S,
  options: ElasticRunOptions = {},
): Promise<R> {
  currentGeneration = Math.max(currentGeneration, lateJoinOptions({}, process.env).elasticGeneration ?? 0);
  for (;;) {
    try {
      await state.sync();
      await watchHostUpdates(currentGeneration, { markReady: rank() === 0 });
      return await trainFn(state);
    } catch (error) {
      if (!isRecoverable(error) && !HostsUpdatedInterrupt.isInstance(error)) throw error;
      // After an interrupt the state was just committed; after a failure roll back to that commit.
      state.restore();
      await stopWatchingHostUpdates();
      await shutdown();
      await rejoin(error, options);
    } finally {
      await stopWatchingHostUpdates();
    }
  }
}

/** Waits for this worker's next generation and joins it; a rendezvous that fails waits for the one after. */
async function rejoin(cause: Error, options: ElasticRunOptions): Promise<void> {
  const timeoutMs = options.assignmentTimeoutMs ?? 60_000;
  for (;;) {
    const next = await nextAssignment(currentGeneration, { timeoutMs }).catch((lookup: unknown) => {
      throw new AggregateError([cause, lookup], `No elastic generation after ${currentGeneration} included this worker within ${timeoutMs} ms after: ${cause.message}`);
    });
    currentGeneration = next.generation;
    try {
      return await init({ ...options.initOptions, ...next.topology, elasticGeneration: next.generation });
    } catch (error) {
      if (!isRecoverable(error)) throw error;
    }
  }
}
