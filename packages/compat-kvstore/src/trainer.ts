import { expectFiniteNumber, invalidArgument } from '@kolo/core';
import { toOptimizer, type OptimizerName } from './create-optimizer.js';
import type { GradientCompressionParams } from './gradient-compression.js';
import { misuse } from './misuse.js';
import type { FloatArray, Optimizer } from './optimizer.js';
import { loadStates, saveStates } from './optimizer-states.js';
import { readOptions } from './options.js';
import { paramList, planTrainer, type TrainerOptions, type TrainerPlan, type TrainerStore } from './trainer-plan.js';
import { setUpStore, pushpullAll } from './trainer-store.js';
import { OptimizerUpdater } from './updater.js';

/**
 * gluon.Trainer on Float32Array parameters: `step(batchSize)` rescales gradients by
 * `1 / batchSize`, sums them over workers through the kvstore and updates the weights (in the
 * store with `updateOnKvstore`, else locally). Fill `grads[i]` with the gradient of `params[i]`
 * (summed over the batch) before each step. The kvstore sums: pass the global batch size.
 *
 * @example
 * ```ts
 * const trainer = new Trainer([w], 'sgd', { kvstore: 'dist_sync_kolo', optimizerParams: { learningRate: 0.1 } });
 * trainer.grads[0].set(gradOfW);
 * await trainer.step(batchSize * trainer.numWorkers);
 * ```
 */
export class Trainer {
  /** The parameters, updated in place (shared arrays listed once). */
  readonly params: FloatArray[];
  /** One gradient buffer per parameter. */
  readonly grads: FloatArray[];
  /** The optimizer (also the store's with `updateOnKvstore`). */
  readonly optimizer: Optimizer;
  private readonly plan: TrainerPlan;
  private readonly scale: number;
  private readonly local: OptimizerUpdater;
  private readonly compression: GradientCompressionParams | undefined;
  private store: TrainerStore | undefined;
  private ready: Promise<void> | undefined;

  constructor(params: readonly FloatArray[] | Readonly<Record<string, FloatArray>>, optimizer: Optimizer | OptimizerName, options: TrainerOptions = {}) {
    this.params = paramList(params);
    this.grads = this.params.map((p) => new (p.constructor as new (n: number) => FloatArray)(p.length));
    const o = readOptions(options, 'Trainer', ['kvstore', 'updateOnKvstore', 'compressionParams', 'optimizerParams']);
    this.optimizer = toOptimizer(optimizer, o.optimizerParams, 'optimizer');
    this.plan = planTrainer(o.kvstore, o.updateOnKvstore);
    this.compression = o.compressionParams as GradientCompressionParams | undefined;
    this.scale = this.optimizer.rescaleGrad;
    this.local = new OptimizerUpdater(this.optimizer);
  }

  /** Whether the store runs the optimizer. */
  get updateOnKvstore(): boolean {
    return this.plan.updateOnKvstore;
  }
  /** The store once set up (first step), or undefined without one. */
  get kvstore(): TrainerStore | undefined {
    return this.store;
  }
  /** Workers whose gradients are summed (1 before set-up or without a store). */
  get numWorkers(): number {
    return this.store?.numWorkers ?? 1;
  }
  /** The optimizer's learning rate. */
  get learningRate(): number {
    return this.optimizer.learningRate;
  }
  /** Sets the optimizer's learning rate (gluon's `set_learning_rate`). */
  setLearningRate(lr: number): void {
    this.optimizer.learningRate = expectFiniteNumber(lr, 'lr');
  }

  /** Sets up the store now (gluon does it on the first step): compression, optimizer, rank 0's weights. */
  setup(): Promise<void> {
    this.ready ??= this.initStore();
    return this.ready;
  }

  /** Rescales by `1 / batchSize`, reduces gradients and updates the weights. */
  step(batchSize: number): Promise<void> {
    this.rescale(batchSize);
    return this.setup().then(() => this.stepNow());
  }

  private async stepNow(): Promise<void> {
    this.readWeights();
    if (this.store !== undefined && this.plan.updateOnKvstore) {
      await pushpullAll(this.store, this.grads, this.params);
    } else {
      await this.reduce();
      this.params.forEach((w, i) => this.local.update(i, this.grads[i] as FloatArray, w));
    }
    this.writeWeights();
  }

  /** Sums gradients over workers in place (only without `updateOnKvstore`). */
  allreduceGrads(): Promise<void> {
    this.requireLocalUpdate('allreduceGrads');
    return this.setup().then(() => this.reduce());
  }

  /** Rescales by `1 / batchSize` and updates the weights locally (only without `updateOnKvstore`). */
  update(batchSize: number): Promise<void> {
    this.requireLocalUpdate('update');
    this.rescale(batchSize);
    return this.setup().then(() => {
      this.readWeights();
      this.params.forEach((w, i) => this.local.update(i, this.grads[i] as FloatArray, w));
      this.writeWeights();
    });
  }

  /** Saves the optimizer states (from the store with `updateOnKvstore`). */
  async saveStates(fname: string): Promise<void> {
    await this.setup();
    const onStore = this.plan.updateOnKvstore ? this.store : undefined;
    await (onStore?.saveOptimizerStates(fname, { dumpOptimizer: true }) ?? saveStates(fname, this.local, { dumpOptimizer: true }));
  }
  /** Loads states written by {@link Trainer.saveStates}. */
  async loadStates(fname: string): Promise<void> {
    await this.setup();
    const onStore = this.plan.updateOnKvstore ? this.store : undefined;
    await (onStore?.loadOptimizerStates(fname) ?? loadStates(fname, this.local));
  }

  /** Copies framework weights into `params` before they are read (a no-op for TypedArrays). */
  protected readWeights(): void {}
  /** Copies `params` back into framework weights after an update (a no-op for TypedArrays). */
  protected writeWeights(): void {}

  private rescale(batchSize: number): void {
    const n = expectFiniteNumber(batchSize, 'batchSize');
    if (n <= 0) throw invalidArgument({ what: 'a number > 0', name: 'batchSize', value: n, kind: 'range' });
    this.optimizer.rescaleGrad = this.scale / n;
  }

  private requireLocalUpdate(method: string): void {
    if (!this.plan.updateOnKvstore) return;
    throw misuse(`${method}() when parameters are updated on kvstore is not supported. Try setting updateOnKvstore to false when creating the Trainer.`);
  }

  private async reduce(): Promise<void> {
    if (this.store !== undefined) await pushpullAll(this.store, this.grads);
  }

  private async initStore(): Promise<void> {
    this.readWeights();
    this.store = await setUpStore(this.plan, { optimizer: this.optimizer, compression: this.compression, params: this.params });
    this.writeWeights();
  }
}
