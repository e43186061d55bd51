import * as core from '@kolo/core';
import { clearHandles } from './handles.js';
import { horovodCall } from './horovod-errors.js';
import { forgetHomogeneity, learnHomogeneity } from './homogeneity.js';
import { refreshGlobalProcessSet } from './process-sets.js';

/**
 * Options of {@link init}: core's, e.g. `cycleTimeMs`, `fusionThresholdBytes`, `timeoutMs`
 * (each also read from `HOROVOD_CYCLE_TIME`, `HOROVOD_FUSION_THRESHOLD`, … when not given).
 *
 * @example
 * ```ts
 * const options: InitOptions = { fusionThresholdBytes: 64 << 20 };
 * ```
 */
export type InitOptions = core.InitOptions;

/**
 * Starts Kolo's engine with the topology kolorun, horovodrun, mpirun or torchrun gave this
 * process, and learns whether the job is homogeneous (one small collective, so every rank must
 * call it). Calling it again while running is a no-op, as in Horovod; after `shutdown()` it
 * starts a new engine.
 *
 * @example
 * ```ts
 * await hvd.init();
 * console.log(`rank ${hvd.rank()} of ${hvd.size()}`);
 * ```
 */
export async function init(options?: InitOptions): Promise<void> {
  await horovodCall(() => core.init(options));
  clearHandles();
  refreshGlobalProcessSet(core.size());
  await learnHomogeneity();
}

/**
 * Stops the engine on every rank (pending collectives fail with a ShutDownError) and forgets
 * outstanding handles; `init()` may be called again afterwards.
 *
 * @example
 * ```ts
 * await hvd.shutdown();
 * hvd.isInitialized(); // false
 * ```
 */
export async function shutdown(): Promise<void> {
  clearHandles();
  forgetHomogeneity();
  await core.shutdown();
}

/**
 * True while the engine runs (between `init()` and `shutdown()`).
 *
 * @example
 * ```ts
 * if (!hvd.isInitialized()) await hvd.init();
 * ```
 */
export function isInitialized(): boolean {
  return core.isInitialized();
}
