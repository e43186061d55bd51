import * as tf from '@tensorflow/tfjs-core';
import { invalidArgument } from '@kolo/core';
import type { OptimizerName } from '../create-optimizer.js';
import type { Optimizer } from '../optimizer.js';
import { Trainer as ArrayTrainer } from '../trainer.js';
import type { TrainerOptions } from '../trainer-plan.js';
import { variableOf, type LayerVariableLike } from './tensor-io.js';

/**
 * A trainable tfjs weight: a tf.Variable or a LayerVariable (`model.trainableWeights`).
 *
 * @example
 * ```ts
 * const params: TfjsParam[] = model.trainableWeights;
 * ```
 */
export type TfjsParam = tf.Variable | LayerVariableLike;

function variablesOf(params: unknown): tf.Variable[] {
  const list = Array.isArray(params) ? params : typeof params === 'object' && params !== null ? Object.keys(params).sort().map((k) => (params as Record<string, unknown>)[k]) : [params];
  const variables = list.map((p, i) => {
    const v = variableOf(p);
    if (v === undefined || v.dtype !== 'float32') throw invalidArgument({ what: 'a float32 tf.Variable or LayerVariable', name: `params[${i}]`, value: p });
    return v;
  });
  return [...new Set(variables)];
}

/**
 * gluon.Trainer for tfjs weights. `backward(lossFn)` computes the gradients of the loss (sum it
 * over the batch, as gluon's `loss.backward()` does) for every parameter; `step(batchSize)`
 * rescales by `1 / batchSize`, sums over workers through the kvstore and updates the variables.
 * `allreduceGrads()` and `update(batchSize)` split the step when `updateOnKvstore` is false.
 *
 * @example
 * ```ts
 * const trainer = new Trainer(model.trainableWeights, 'sgd', { kvstore: store, optimizerParams: { learningRate: 0.1 } });
 * trainer.backward(() => tf.losses.softmaxCrossEntropy(y, model.predict(x), undefined, undefined, tf.Reduction.SUM));
 * await trainer.step(batchSize * store.numWorkers);
 * ```
 */
export class Trainer extends ArrayTrainer {
  /** The tf.Variables, in parameter order. */
  readonly variables: tf.Variable[];

  constructor(params: readonly TfjsParam[] | Readonly<Record<string, TfjsParam>>, optimizer: Optimizer | OptimizerName, options: TrainerOptions = {}) {
    const variables = variablesOf(params);
    super(
      variables.map((v) => Float32Array.from(v.dataSync() as Float32Array)),
      optimizer,
      options,
    );
    this.variables = variables;
  }

  /**
   * Computes the gradient of `lossFn()` (a scalar) for every parameter into `grads`; returns the
   * loss. A parameter the loss does not depend on gets a zero gradient.
   *
   * @example
   * ```ts
   * const loss = trainer.backward(() => model.predict(x).sub(y).square().sum() as tf.Scalar);
   * ```
   */
  backward(lossFn: () => tf.Scalar): number {
    const { value, grads } = tf.variableGrads(lossFn, this.variables);
    this.variables.forEach((v, i) => {
      const grad = grads[v.name];
      const target = this.grads[i] as Float32Array;
      if (grad === undefined) target.fill(0);
      else target.set(grad.dataSync() as Float32Array);
    });
    const loss = value.dataSync()[0] ?? NaN;
    tf.dispose([value, ...Object.values(grads)]);
    return loss;
  }

  protected override readWeights(): void {
    this.variables.forEach((v, i) => (this.params[i] as Float32Array).set(v.dataSync() as Float32Array));
  }

  protected override writeWeights(): void {
    tf.tidy(() => this.variables.forEach((v, i) => v.assign(tf.tensor((this.params[i] as Float32Array).slice(), v.shape, 'float32'))));
  }
}
