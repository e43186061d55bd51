import type { Optimizer } from '@tensorflow/tfjs-core';
import type { DistributedOptimizer } from './distributed-optimizer.js';

/**
 * Marks DistributedOptimizer instances; `Symbol.for` makes it the same in every copy of this package.
 *
 * @example
 * ```ts
 * (optimizer as Record<symbol, unknown>)[distributedOptimizerBrand] === true; // a DistributedOptimizer
 * ```
 */
export const distributedOptimizerBrand: unique symbol = Symbol.for('kolo.adapter-tfjs.DistributedOptimizer');

/**
 * True for a {@link DistributedOptimizer} from any copy of this package. Use it instead of
 * `instanceof`: tfjs's `Optimizer` answers `instanceof` for any object with `minimize`,
 * `computeGradients` and `applyGradients`, and subclasses inherit that.
 *
 * @example
 * ```ts
 * const inner = isDistributedOptimizer(opt) ? opt.optimizer : opt;
 * ```
 */
export function isDistributedOptimizer(value: unknown): value is DistributedOptimizer {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[distributedOptimizerBrand] === true;
}

/**
 * The optimizer that holds the state: the wrapped one for a {@link DistributedOptimizer}, else
 * `optimizer` itself.
 *
 * @example
 * ```ts
 * unwrapOptimizer(new DistributedOptimizer(tf.train.sgd(0.1))).getClassName(); // 'SGD'
 * ```
 */
export function unwrapOptimizer(optimizer: Optimizer): Optimizer {
  return isDistributedOptimizer(optimizer) ? optimizer.optimizer : optimizer;
}
