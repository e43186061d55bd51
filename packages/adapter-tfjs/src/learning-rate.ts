import { keep, scalar, type Optimizer, type Tensor } from '@tensorflow/tfjs-core';
import { expectFiniteNumber, invalidArgument } from '@kolo/core';
import { unwrapOptimizer } from './unwrap-optimizer.js';

/** The fields tfjs optimizers keep their hyper-parameters in (protected in the typings). */
interface OptimizerFields {
  learningRate?: number;
  setLearningRate?: (lr: number) => void;
  momentum?: number;
  setMomentum?: (m: number) => void;
  m?: Tensor;
}

function fieldsOf(optimizer: Optimizer): OptimizerFields {
  return unwrapOptimizer(optimizer) as unknown as OptimizerFields;
}

/**
 * The learning rate of a tfjs optimizer (or of the one a DistributedOptimizer wraps).
 *
 * @example
 * ```ts
 * getLearningRate(tf.train.adam(0.01)); // 0.01
 * ```
 */
export function getLearningRate(optimizer: Optimizer): number {
  const lr = fieldsOf(optimizer).learningRate;
  if (typeof lr !== 'number') {
    throw invalidArgument({ what: 'a tfjs optimizer with a learning rate', name: 'optimizer', value: optimizer });
  }
  return lr;
}

/**
 * Changes the learning rate of any built-in tfjs optimizer at run time. SGD and Momentum cache
 * `-lr` in a scalar, which their own `setLearningRate` refreshes; the others read the field on
 * every update.
 *
 * @example
 * ```ts
 * setLearningRate(model.optimizer, 0.05);
 * ```
 */
export function setLearningRate(optimizer: Optimizer, learningRate: number): void {
  expectFiniteNumber(learningRate, 'learningRate');
  const fields = fieldsOf(optimizer);
  getLearningRate(optimizer);
  if (typeof fields.setLearningRate === 'function') fields.setLearningRate(learningRate);
  else fields.learningRate = learningRate;
}

/**
 * The momentum of a Momentum or RMSProp optimizer, or undefined for optimizers without one.
 *
 * @example
 * ```ts
 * getMomentum(tf.train.momentum(0.1, 0.9)); // 0.9
 * ```
 */
export function getMomentum(optimizer: Optimizer): number | undefined {
  const m = fieldsOf(optimizer).momentum;
  return typeof m === 'number' ? m : undefined;
}

/**
 * Sets the momentum of a Momentum or RMSProp optimizer. tfjs's `MomentumOptimizer.setMomentum`
 * leaves the scalar its update reads unchanged, so this replaces that scalar too.
 *
 * @example
 * ```ts
 * setMomentum(opt, 0.95);
 * ```
 */
export function setMomentum(optimizer: Optimizer, momentum: number): void {
  expectFiniteNumber(momentum, 'momentum');
  const fields = fieldsOf(optimizer);
  if (getMomentum(optimizer) === undefined) {
    throw invalidArgument({ what: 'a tfjs optimizer with a momentum', name: 'optimizer', value: optimizer });
  }
  fields.momentum = momentum;
  if (fields.m !== undefined && typeof fields.m.dispose === 'function') {
    fields.m.dispose();
    fields.m = keep(scalar(momentum));
  }
}
