import { invalidArgument, UnsupportedError } from '@kolo/core';
import type { NamedTensorMap, Optimizer, Scalar, Tensor as TfTensor, Variable } from '@tensorflow/tfjs-core';
import type { LayersModel, LayerVariable } from '@tensorflow/tfjs-layers';
import { resolveGroup } from '../group-state.js';
import { loadTf, type TfCore } from '../load-tf.js';
import type { ProcessGroup } from '../process-group.js';
import { runtimeError } from '../torch-errors.js';
import { assignBuckets } from './bucket-assignment.js';
import { resolveDdpOptions, type DistributedDataParallelOptions, type ResolvedDdpOptions } from './ddp-options.js';
import { joinUneven, type JoinOptions, type JoinState } from './ddp-join.js';
import { GradientStore } from './gradient-store.js';
import { synchronizeGradients } from './grad-reducer.js';
import { broadcastVariables, verifyModelAcrossRanks } from './state-sync.js';
import { unusedParametersMessage } from './unused-parameters.js';

/** The tf.Variable behind a layer weight (what `read()` returns). */
const variableOf = (p: LayerVariable): Variable => p.read() as Variable;
const numel = (shape: readonly (number | null)[]): number => shape.reduce((a: number, b) => a * (b ?? 1), 1);

/**
 * torch's `DistributedDataParallel` for a TensorFlow.js LayersModel. Construction verifies the
 * model across ranks and broadcasts rank 0's weights (`await ddp.ready`). `backward(lossFn)`
 * computes the gradients (`tf.variableGrads`), adds them to `ddp.grads`, and averages them
 * across the group in buckets (reverse parameter order, first bucket 1 MiB, then `bucketCapMb`),
 * each bucket's allreduce starting as soon as it is packed; inside `noSync` they only
 * accumulate. Apply them with `optimizer.applyGradients(ddp.grads)` (or `ddp.step(optimizer)`).
 *
 * @example
 * ```ts
 * const ddp = await DistributedDataParallel.create(model);
 * const loss = await ddp.backward(() => tf.losses.meanSquaredError(y, ddp.forward(x)) as tf.Scalar);
 * ddp.step(optimizer); // applyGradients(ddp.grads), then zeroGrad()
 * ```
 */
export class DistributedDataParallel {
  /** Resolves once rank 0's state is on every rank; every method waits for it. */
  readonly ready: Promise<void>;
  /** Parameter indices (registration order) per gradient bucket, in reduction order. */
  readonly bucketIndices: readonly (readonly number[])[];
  /** The options with their defaults filled in. */
  readonly options: ResolvedDdpOptions;
  private readonly group: ProcessGroup;
  private readonly params: readonly LayerVariable[];
  private tf: TfCore | undefined;
  private store: GradientStore | undefined;
  private syncEnabled = true;
  private busy = false;
  private joinState: JoinState | undefined;

  constructor(
    /** The wrapped model (torch's `ddp.module`). */
    readonly module: LayersModel,
    options?: DistributedDataParallelOptions,
  ) {
    this.options = resolveDdpOptions(options);
    this.group = resolveGroup(this.options.processGroup);
    if (this.group.rank() < 0) throw invalidArgument({ what: 'a process group this rank belongs to', name: 'processGroup', value: this.group.name });
    this.params = module.trainableWeights;
    if (this.params.length === 0) {
      throw runtimeError("DistributedDataParallel is not needed when a module doesn't have any parameter that requires a gradient.");
    }
    const odd = this.params.find((p) => p.dtype !== 'float32');
    if (odd !== undefined) throw new UnsupportedError(`DistributedDataParallel reduces float32 gradients only; ${odd.name} is ${odd.dtype}.`);
    const sizes = this.params.map((p, index) => ({ index, bytes: numel(p.shape) * 4, dtype: p.dtype }));
    this.bucketIndices = assignBuckets(sizes, { capBytes: this.options.bucketCapMb * 1024 * 1024 });
    const initName = this.group.nextName('ddp_init');
    this.ready = this.initialize(initName);
    this.ready.catch(() => undefined);
  }

  private async initialize(name: string): Promise<void> {
    this.tf = await loadTf();
    this.store = new GradientStore(this.tf);
    if (!this.options.initSync || this.group.size() === 1) return;
    await verifyModelAcrossRanks(this.params, this.group);
    await broadcastVariables(this.tf, this.module.weights, { group: this.group, name });
  }

  /**
   * Constructs and waits until rank 0's state has been broadcast.
   *
   * @example
   * ```ts
   * const ddp = await DistributedDataParallel.create(model, { bucketCapMb: 25 });
   * ```
   */
  static async create(model: LayersModel, options?: DistributedDataParallelOptions): Promise<DistributedDataParallel> {
    const ddp = new DistributedDataParallel(model, options);
    await ddp.ready;
    return ddp;
  }

  /** The model's output in training mode (`module.apply(x, { training: true })`); call it inside `backward`'s loss function. */
  forward(inputs: TfTensor | TfTensor[]): TfTensor {
    return this.module.apply(inputs, { training: true }) as TfTensor;
  }

  /** The accumulated (and, after a synchronizing backward, averaged) gradients by variable name, for `optimizer.applyGradients`. */
  get grads(): NamedTensorMap {
    const out: NamedTensorMap = {};
    for (const [i, g] of this.store?.entries() ?? []) out[variableOf(this.params[i] as LayerVariable).name] = g;
    return out;
  }

  /** Disposes the accumulated gradients (torch's `zero_grad(set_to_none=True)`). */
  zeroGrad(): void {
    this.store?.replace();
  }

  /** `optimizer.applyGradients(this.grads)`, then {@link DistributedDataParallel.zeroGrad}. */
  step(optimizer: Optimizer): void {
    optimizer.applyGradients(this.grads);
    this.zeroGrad();
  }

  /**
   * Computes the gradients of `lossFn` (which must return a scalar), adds them to `grads` and,
   * outside `noSync`, averages the accumulated gradients across the group. Resolves with the
   * loss. A parameter without a gradient throws torch's `Expected to have finished reduction in
   * the prior iteration …` unless `findUnusedParameters` (torch reports it one iteration later).
   *
   * @example
   * ```ts
   * const loss = await ddp.backward(() => tf.losses.softmaxCrossEntropy(labels, ddp.forward(images)) as tf.Scalar);
   * ```
   */
  async backward(lossFn: () => Scalar): Promise<number> {
    await this.ready;
    if (this.busy) throw new Error('DistributedDataParallel.backward called again before the previous one finished; await each backward.');
    this.busy = true;
    try {
      const tf = this.tf as TfCore;
      const active = this.joinState === undefined ? this.group.size() : await this.joinState.countActive();
      const buffers = this.module.nonTrainableWeights;
      if (this.options.broadcastBuffers && buffers.length > 0 && this.group.size() > 1 && active === this.group.size()) {
        await broadcastVariables(tf, buffers, { group: this.group, name: this.group.nextName('ddp_buffers') });
      }
      const vars = this.params.map(variableOf);
      const { value, grads } = tf.variableGrads(lossFn, vars);
      const missing = vars.flatMap((v, i) => (grads[v.name] === undefined ? [i] : []));
      if (missing.length > 0 && !this.options.findUnusedParameters) {
        tf.dispose([value, ...Object.values(grads)]);
        throw runtimeError(unusedParametersMessage({ rank: this.group.rank(), indices: missing }));
      }
      vars.forEach((v, i) => this.store?.add(i, grads[v.name]));
      if (this.syncEnabled) await this.synchronize(active);
      const loss = (await value.data())[0] as number;
      value.dispose();
      return loss;
    } finally {
      this.busy = false;
    }
  }

  /**
   * torch's `no_sync()`: inside `fn`, `backward` only accumulates gradients locally; the first
   * synchronizing `backward` after it averages everything accumulated.
   *
   * @example
   * ```ts
   * await ddp.noSync(() => ddp.backward(microBatch1Loss));
   * await ddp.backward(microBatch2Loss); // averages the sum of both micro-batches' gradients
   * ```
   */
  async noSync<T>(fn: () => T | Promise<T>): Promise<T> {
    const previous = this.syncEnabled;
    this.syncEnabled = false;
    try {
      return await fn();
    } finally {
      this.syncEnabled = previous;
    }
  }

  /**
   * torch's `join()` for uneven inputs: run this rank's training loop in `fn`; when it returns,
   * this rank keeps answering the others' gradient allreduces with zeros until every rank has
   * joined, and then every rank takes the model of the rank that joined last. Gradients are
   * divided by the initial world size (or, with `divideByInitialWorldSize: false`, by the ranks
   * still training). World group only; buffers are not broadcast while some rank has joined.
   *
   * @example
   * ```ts
   * await ddp.join(async () => { for (const batch of myBatches) { await ddp.backward(lossOf(batch)); ddp.step(opt); } });
   * ```
   */
  async join<T>(fn: () => T | Promise<T>, options: JoinOptions = {}): Promise<T> {
    await this.ready;
    return joinUneven(fn, {
      group: this.group,
      options,
      set: (state) => (this.joinState = state),
      syncFinal: (root, name) => broadcastVariables(this.tf as TfCore, this.module.weights, { group: this.group, name, root }),
    });
  }

  private async synchronize(active: number): Promise<void> {
    if (this.group.size() === 1) return;
    const divisor = this.joinState?.divideByInitialWorldSize === false ? active : this.group.size();
    await synchronizeGradients(this.tf as TfCore, this.store as GradientStore, {
      params: this.params,
      buckets: this.bucketIndices,
      group: this.group,
      divisor,
      findUnused: this.options.findUnusedParameters,
    });
  }
}
