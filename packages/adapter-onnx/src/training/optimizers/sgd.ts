import { checkOptions, expectFiniteNumber } from '@kolo/core';
import type { FlatOptimizer } from './flat-optimizer.js';

/**
 * Options of {@link Sgd}.
 *
 * @example
 * ```ts
 * new Sgd({ learningRate: 0.1 } satisfies SgdOptions);
 * ```
 */
export interface SgdOptions {
  /** Step size. */
  readonly learningRate: number;
}

/**
 * Plain stochastic gradient descent: `p -= learningRate * g`.
 *
 * @example
 * ```ts
 * const params = Float32Array.of(1, 2);
 * new Sgd({ learningRate: 0.5 }).apply(params, Float32Array.of(2, 4)); // params: [0, 0]
 * ```
 */
export class Sgd implements FlatOptimizer {
  learningRate: number;
  steps = 0;

  constructor(options: SgdOptions) {
    const o = checkOptions(options, { opName: 'Sgd', allowed: ['learningRate'] });
    this.learningRate = expectFiniteNumber(o.learningRate, 'learningRate');
  }

  apply(params: Float32Array, grads: Float32Array): void {
    const lr = this.learningRate;
    for (let i = 0; i < params.length; i++) params[i] = params[i]! - lr * grads[i]!;
    this.steps++;
  }
}
