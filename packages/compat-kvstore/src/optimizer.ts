/**
 * Weights and gradients an optimizer updates: float32 or float64.
 *
 * @example
 * ```ts
 * const weight: FloatArray = new Float32Array([0.5, -0.25]);
 * ```
 */
export type FloatArray = Float32Array | Float64Array;

/**
 * An optimizer's memory for one key: an update count and arrays shaped like the weight
 * (momentum, Adam's moments). Saved by `saveOptimizerStates`.
 *
 * @example
 * ```ts
 * const state: OptimizerState = { step: 0, slots: [new Float32Array(4)] };
 * ```
 */
export interface OptimizerState {
  /** Updates applied so far. */
  step: number;
  /** Per-element state arrays, same type and length as the weight. */
  readonly slots: FloatArray[];
}

/**
 * An MXNet-style optimizer: the update rule a KVStore applies to each pushed gradient
 * (`setOptimizer`) and a Trainer applies locally. Every worker holds the same optimizer and the
 * same summed gradient, so weights stay identical without a parameter server.
 *
 * @example
 * ```ts
 * const opt: Optimizer = new SGD({ learningRate: 0.1, momentum: 0.9 });
 * const state = opt.createState(weight);
 * opt.update(weight, grad, state);
 * ```
 */
export interface Optimizer {
  /** Registry name, e.g. `sgd`. */
  readonly name: string;
  /** Step size; may be changed between updates (a schedule, `trainer.setLearningRate`). */
  learningRate: number;
  /** Multiplies every gradient first; Trainer sets it to `scale / batchSize` each step. */
  rescaleGrad: number;
  /** Fresh state for a weight. */
  createState(weight: FloatArray): OptimizerState;
  /** Updates `weight` in place from `grad` (not modified) and `state`. */
  update(weight: FloatArray, grad: FloatArray, state: OptimizerState): void;
  /** The hyper-parameters, by camelCase name, as saved with `dumpOptimizer`. */
  hyperParams(): Record<string, number>;
}

/**
 * MXNet's gradient preprocessing: `rescaleGrad * grad`, clipped to `[-clip, clip]` when `clip`
 * is given.
 *
 * @example
 * ```ts
 * scaledGrad(4, { rescaleGrad: 0.5, clipGradient: 1 }); // 1
 * ```
 */
export function scaledGrad(grad: number, spec: { readonly rescaleGrad: number; readonly clipGradient: number | undefined }): number {
  const g = spec.rescaleGrad * grad;
  if (spec.clipGradient === undefined) return g;
  return Math.min(spec.clipGradient, Math.max(-spec.clipGradient, g));
}
