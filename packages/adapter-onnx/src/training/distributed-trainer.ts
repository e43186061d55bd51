import { readFile } from 'node:fs/promises';
import { allreduce } from '@kolo/core';
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { checkFeeds } from '../inference/check-feeds.js';
import { sessionOptionsFor } from '../inference/session-options.js';
import type { NamedTensor } from '../model/named-tensor.js';
import { OnnxModel } from '../model/onnx-model.js';
import { loadOrt } from '../ort/load-ort.js';
import { FlatWeights } from './flat-weights.js';
import { shareInitialWeights } from './initial-weights.js';
import type { FlatOptimizer } from './optimizers/flat-optimizer.js';
import { createOptimizer } from './optimizers/create-optimizer.js';
import { describeTrainingGraph, type TrainingGraph } from './training-graph.js';
import { checkTrainerOptions, type DistributedTrainerOptions } from './trainer-options.js';
import { saveInferenceModel, type SaveInferenceModelOptions } from './save-inference-model.js';
import { fuseStepOutputs } from './fuse-step-outputs.js';

/**
 * What one training step reports.
 *
 * @example
 * ```ts
 * const { loss }: StepResult = await trainer.step({ x, y });
 * ```
 */
export interface StepResult {
  /** The loss averaged over all ranks (the global batch's loss when batches are equal). */
  readonly loss: number;
}

/**
 * Data-parallel training of an exported ONNX training-step graph (weights are graph inputs; the
 * outputs are the loss and `grad.<weight>` per weight). Each step runs the graph on this rank's
 * batch, averages the loss and all gradients in one allreduce, and applies SGD, Momentum or Adam
 * in TypeScript to one flat float32 weight buffer. All ranks start from the weights of
 * `broadcastFrom`, so they stay identical. Every rank calls `create` and `step` in the same order.
 *
 * @example
 * ```ts
 * await init();
 * const trainer = await DistributedTrainer.create({
 *   trainingModel: 'mlp.train.onnx', initialWeights: 'mlp.infer.onnx', optimizer: { type: 'adam', learningRate: 1e-3 },
 * });
 * const { loss } = await trainer.step({ x, y }); // this rank's batch
 * await trainer.saveInferenceModel({ template: 'mlp.infer.onnx', path: 'trained.onnx' }); // written by rank 0
 * ```
 */
export class DistributedTrainer {
  private readonly reduced: Float32Array;
  private readonly weightFeeds: Record<string, Tensor> = {};

  private constructor(
    private readonly session: InferenceSession,
    private readonly graph: TrainingGraph,
    private readonly flat: FlatWeights,
    /** The optimizer; change `optimizer.learningRate` between steps for a schedule. */
    readonly optimizer: FlatOptimizer,
    private readonly name: string,
    ort: Awaited<ReturnType<typeof loadOrt>>,
  ) {
    this.reduced = new Float32Array(flat.buffer.length + 1);
    for (const w of graph.weights) this.weightFeeds[w.name] = new ort.Tensor('float32', flat.view(w.name), [...w.dims]);
  }

  /**
   * Opens the training graph on every rank; rank `broadcastFrom` (default 0) loads the initial
   * weights and broadcasts them, so only it needs `initialWeights`. A collective.
   *
   * @example
   * ```ts
   * const trainer = await DistributedTrainer.create({ trainingModel, initialWeights, optimizer: { type: 'sgd', learningRate: 0.1 } });
   * ```
   */
  static async create(options: DistributedTrainerOptions): Promise<DistributedTrainer> {
    const o = checkTrainerOptions(options);
    const optimizer = createOptimizer(o.optimizer);
    const ort = await loadOrt();
    const bytes = typeof o.trainingModel === 'string' ? new Uint8Array(await readFile(o.trainingModel)) : o.trainingModel;
    const graph = describeTrainingGraph(OnnxModel.fromBytes(bytes), o);
    const flat = new FlatWeights(graph.weights);
    await shareInitialWeights({ source: o.initialWeights, flat, root: o.broadcastFrom, name: o.name });
    const session = await ort.InferenceSession.create(bytes, sessionOptionsFor(o));
    return new DistributedTrainer(session, graph, flat, optimizer, o.name, ort);
  }

  /** The inputs `step` needs per batch (every graph input that is not a weight). */
  get dataInputNames(): readonly string[] {
    return this.graph.dataInputs;
  }

  /** The weight names, in graph-input order. */
  get weightNames(): string[] {
    return this.graph.weights.map((w) => w.name);
  }

  /**
   * Copies of the current weights (identical on every rank), in graph-input order.
   *
   * @example
   * ```ts
   * const [w1] = trainer.weights();
   * ```
   */
  weights(): NamedTensor[] {
    return this.flat.tensors();
  }

  /**
   * One training step on this rank's batch: forward and backward in onnxruntime, one allreduce
   * (average) of the loss and every gradient, then the optimizer update. For the same result as
   * one worker on the whole batch, the loss must be a mean over the batch and every rank must
   * use the same batch size. A collective.
   *
   * @example
   * ```ts
   * const { loss } = await trainer.step({ x: new Tensor('float32', xs, [32, 784]), y: new Tensor('float32', ys, [32, 10]) });
   * ```
   */
  async step(feeds: Record<string, Tensor>): Promise<StepResult> {
    checkFeeds(feeds, this.graph.dataInputs);
    const fetches = [this.graph.loss, ...this.graph.weights.map((w) => w.gradient)];
    const results = await this.session.run({ ...feeds, ...this.weightFeeds }, fetches);
    fuseStepOutputs({ results: results as Record<string, Tensor>, graph: this.graph, into: this.reduced });
    await allreduce(this.reduced, { name: `${this.name}.gradients`, op: 'average', output: this.reduced });
    const weightCount = this.flat.buffer.length;
    this.optimizer.apply(this.flat.buffer, this.reduced.subarray(0, weightCount));
    return { loss: this.reduced[weightCount]! };
  }

  /**
   * On `root` (default 0), writes the current weights into the initializers of the same names of
   * an inference model and resolves with its bytes, also saving them to `path` when given. Other
   * ranks resolve with undefined at once. Not a collective.
   *
   * @example
   * ```ts
   * await trainer.saveInferenceModel({ template: 'mlp.infer.onnx', path: 'mlp.trained.onnx' });
   * ```
   */
  saveInferenceModel(options: SaveInferenceModelOptions): Promise<Uint8Array | undefined> {
    return saveInferenceModel(this.flat.tensors(), options);
  }

  /**
   * Releases the onnxruntime session.
   *
   * @example
   * ```ts
   * await trainer.release();
   * ```
   */
  release(): Promise<void> {
    return this.session.release();
  }
}
