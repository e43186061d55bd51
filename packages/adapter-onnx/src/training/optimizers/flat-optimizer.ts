/**
 * An optimizer that updates one flat float32 parameter buffer from a gradient buffer of the same
 * length. Kolo's trainer keeps every weight in one buffer, so one call updates the whole model.
 *
 * @example
 * ```ts
 * const sgd: FlatOptimizer = new Sgd({ learningRate: 0.1 });
 * sgd.apply(params, grads);
 * ```
 */
export interface FlatOptimizer {
  /** The step size; may be changed between steps (a schedule). */
  learningRate: number;
  /** How many times {@link FlatOptimizer.apply} has run. */
  readonly steps: number;
  /** Updates `params` in place from `grads` (same length). */
  apply(params: Float32Array, grads: Float32Array): void;
}
