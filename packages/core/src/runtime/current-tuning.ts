import { requireRunning } from './runtime-state.js';

/**
 * The fusion threshold and cycle time the engine applies now.
 *
 * @example
 * ```ts
 * const { fusionThresholdBytes, cycleTimeMs, searching }: TuningState = currentTuning();
 * ```
 */
export interface TuningState {
  /** Largest fused allreduce buffer in bytes. */
  readonly fusionThresholdBytes: number;
  /** Milliseconds between engine cycles once nothing is moving. */
  readonly cycleTimeMs: number;
  /** The autotuner (rank 0's) is still trying candidates; false once it kept the best, or when off. */
  readonly searching: boolean;
}

/**
 * The fusion threshold and cycle time in force on this rank. With `autotune` on they change as
 * rank 0 tries candidates, on every rank in the same engine cycle, until it keeps the best; other
 * ranks learn rank 0's state at their next engine cycle. Throws NotInitializedError before `init()`.
 *
 * @example
 * ```ts
 * await init({ autotune: true });
 * // ... train ...
 * if (!currentTuning().searching) console.log('autotuned:', currentTuning());
 * ```
 */
export function currentTuning(): TuningState {
  const { fusionThresholdBytes, cycleTimeMs, searching } = requireRunning().engine.tuning();
  return { fusionThresholdBytes, cycleTimeMs, searching };
}
