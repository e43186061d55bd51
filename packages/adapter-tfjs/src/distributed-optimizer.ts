import {
  AdadeltaOptimizer,
  AdagradOptimizer,
  AdamaxOptimizer,
  AdamOptimizer,
  dispose,
  MomentumOptimizer,
  Optimizer,
  RMSPropOptimizer,
  SGDOptimizer,
  type NamedTensorMap,
  type Scalar,
  type serialization,
  type Variable,
} from '@tensorflow/tfjs-core';
import { invalidArgument } from '@kolo/core';
import { GradientAccumulator } from './gradient-accumulator.js';
import { fuseGradients, gradientEntries, splitGradients, type GradientEntry, type NamedTensor } from './gradient-fusion.js';
import { resolveDistributedOptimizerOptions, type DistributedOptimizerOptions, type ResolvedDistributedOptimizerOptions } from './distributed-optimizer-options.js';
import { reduceFused, reduceFusedSync, type Reduction } from './reduce-fused.js';
import { distributedOptimizerBrand as brand, isDistributedOptimizer } from './unwrap-optimizer.js';

/**
 * tfjs's own optimizer classes, which use a gradient only inside `applyGradients` and keep no
 * tensor that shares its values: they may be handed views of the reduced buffer. Exactly these
 * classes, not subclasses, whose `applyGradients` may do otherwise.
 */
const viewSafeOptimizers: ReadonlySet<unknown> = new Set([
  SGDOptimizer,
  MomentumOptimizer,
  AdagradOptimizer,
  AdadeltaOptimizer,
  AdamOptimizer,
  AdamaxOptimizer,
  RMSPropOptimizer,
]);

/**
 * Wraps a tfjs optimizer (by composition) so that every update uses gradients averaged (or summed)
 * across all ranks: Horovod's `DistributedOptimizer`. All gradients are fused into one buffer and
 * reduced by ONE blocking allreduce inside `applyGradients`, so it works unchanged under
 * `model.fit`, `fitDataset` and `trainOnBatch`; {@link DistributedOptimizer.step} is the
 * non-blocking form for custom loops. Gradients travel by position, never by tfjs variable name;
 * a gradient that is null on a rank counts as zeros there, and stays null when it is null on all.
 *
 * @example
 * ```ts
 * await init();
 * const optimizer = new DistributedOptimizer(tf.train.adam(0.001 * size()));
 * model.compile({ optimizer, loss: 'categoricalCrossentropy' });
 * await model.fit(xs, ys, { callbacks: [new BroadcastGlobalVariablesCallback(0)] });
 * ```
 */
export class DistributedOptimizer extends Optimizer {
  /** The name tfjs serialization knows the optimizer by. @nocollapse */
  static readonly className = 'DistributedOptimizer';
  private readonly [brand] = true;
  /** The wrapped optimizer, which owns the state and performs the update. */
  readonly optimizer: Optimizer;
  /** The resolved options. */
  readonly options: ResolvedDistributedOptimizerOptions;
  private readonly accumulator: GradientAccumulator;
  /**
   * A fused gradient buffer no step holds, for the next step to fuse into. A step takes it, so
   * two `step()` calls in flight at once never share one.
   */
  private spare: Float32Array | undefined;
  /** Whether the wrapped optimizer may be handed views of the reduced buffer, not copies. */
  private readonly views: boolean;

  constructor(optimizer: Optimizer, options?: DistributedOptimizerOptions) {
    super();
    if (!(optimizer instanceof Optimizer) || isDistributedOptimizer(optimizer)) {
      throw invalidArgument({ what: 'a tfjs Optimizer that is not already distributed', name: 'optimizer', value: optimizer });
    }
    this.optimizer = optimizer;
    this.options = resolveDistributedOptimizerOptions(options);
    this.accumulator = new GradientAccumulator(this.options.backwardPassesPerStep);
    this.views = viewSafeOptimizers.has(Object.getPrototypeOf(optimizer)?.constructor);
  }

  /** The wrapped optimizer's update count (it counts applied steps, not backward passes). */
  override get iterations(): number {
    return this.optimizer.iterations;
  }

  /**
   * Reduces the gradients across ranks (blocking) and, once every `backwardPassesPerStep` calls,
   * applies them with the wrapped optimizer. Every rank must call it the same number of times
   * with the same variables in the same order.
   *
   * @example
   * ```ts
   * optimizer.minimize(() => loss(model.predict(xs), ys)); // minimize calls applyGradients
   * ```
   */
  override applyGradients(variableGradients: NamedTensorMap | NamedTensor[]): void {
    const entries = gradientEntries(variableGradients);
    const ready = this.accumulate(entries);
    if (ready !== undefined) this.applyReduced(entries, reduceFusedSync(ready, this.reduction()));
  }

  /**
   * One training step for custom loops without blocking the event loop: computes the gradients of
   * `lossFn`, awaits their allreduce and applies them. Resolves with the local loss (dispose it).
   *
   * @example
   * ```ts
   * const loss = await optimizer.step(() => tf.losses.meanSquaredError(ys, model.predict(xs)));
   * loss.dispose();
   * ```
   */
  async step(lossFn: () => Scalar, options: { readonly varList?: Variable[] } = {}): Promise<Scalar> {
    const { value, grads } = this.computeGradients(lossFn, options.varList);
    let entries: GradientEntry[];
    let ready: Float32Array | undefined;
    try {
      const listed = options.varList?.map((v) => ({ name: v.name, tensor: grads[v.name] as NamedTensor['tensor'] }));
      entries = gradientEntries(listed ?? grads);
      ready = this.accumulate(entries);
    } finally {
      dispose(grads);
    }
    if (ready !== undefined) this.applyReduced(entries, await reduceFused(ready, this.reduction()));
    return value;
  }

  /** Delegates to the wrapped optimizer: `[iter, ...slots]` by position. */
  override getWeights(): Promise<NamedTensor[]> {
    return this.optimizer.getWeights();
  }

  /** Delegates to the wrapped optimizer and drops any partially accumulated step. */
  override setWeights(weightValues: NamedTensor[]): Promise<void> {
    this.accumulator.reset();
    return this.optimizer.setWeights(weightValues);
  }

  /** The wrapped optimizer's config, so a saved model's training config names a plain optimizer. */
  override getConfig(): serialization.ConfigDict {
    return this.optimizer.getConfig();
  }

  /** The wrapped optimizer's class name (e.g. `Adam`), for the same reason. */
  override getClassName(): string {
    return this.optimizer.getClassName();
  }

  /** Disposes the wrapped optimizer's state. */
  override dispose(): void {
    this.optimizer.dispose();
  }

  private reduction(): Reduction {
    const { name, op, compression, gradientPredivideFactor, backwardPassesPerStep } = this.options;
    return { name, op, compression, predivide: gradientPredivideFactor, localScale: 1 / backwardPassesPerStep };
  }

  /**
   * Fuses one pass's gradients (into the spare buffer when there is one) and adds it to the step.
   * Returns the step's buffer when this pass completes it.
   */
  private accumulate(entries: readonly GradientEntry[]): Float32Array | undefined {
    const fused = fuseGradients(entries, this.spare);
    this.spare = undefined;
    const ready = this.accumulator.add(fused);
    // Copied or added into the accumulator's own sum: free again.
    if (ready !== fused) this.spare = fused;
    return ready;
  }

  /** Applies the reduced step; its buffer is then free for the next step. */
  private applyReduced(entries: readonly GradientEntry[], reduced: Float32Array): void {
    const named = splitGradients(entries, reduced, this.views);
    try {
      this.optimizer.applyGradients(named);
    } finally {
      dispose(named.map((g) => g.tensor).filter((t) => t !== null));
    }
    this.spare = reduced;
  }
}
