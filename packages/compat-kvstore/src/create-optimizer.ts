import { expectOneOf, invalidArgument } from '@kolo/core';
import { Adam, type AdamParams } from './adam.js';
import type { Optimizer } from './optimizer.js';
import { SGD, type SGDParams } from './sgd.js';

/**
 * Optimizer names `createOptimizer` knows (MXNet's registry names).
 *
 * @example
 * ```ts
 * const name: OptimizerName = 'sgd';
 * ```
 */
export type OptimizerName = 'sgd' | 'adam';

/**
 * Builds an optimizer by name, as `mx.optimizer.create(name, **params)`.
 *
 * @example
 * ```ts
 * const opt = createOptimizer('sgd', { learningRate: 0.1, momentum: 0.9 });
 * ```
 */
export function createOptimizer(name: OptimizerName, params: SGDParams | AdamParams = {}): Optimizer {
  const which = expectOneOf(typeof name === 'string' ? name.toLowerCase() : name, { name: 'optimizer', choices: ['sgd', 'adam'] as const });
  return which === 'sgd' ? new SGD(params) : new Adam(params);
}

/**
 * True when `value` has the shape of an {@link Optimizer}.
 *
 * @example
 * ```ts
 * isOptimizer(new SGD()); // true
 * ```
 */
export function isOptimizer(value: unknown): value is Optimizer {
  const o = value as Partial<Optimizer> | null;
  return typeof o === 'object' && o !== null && typeof o.update === 'function' && typeof o.createState === 'function';
}

/**
 * An optimizer given as an object or by name (with `params`); throws a TypeError otherwise.
 *
 * @example
 * ```ts
 * toOptimizer('adam', { learningRate: 0.01 }, 'optimizer'); // Adam
 * ```
 */
export function toOptimizer(value: unknown, params: unknown, name: string): Optimizer {
  if (typeof value === 'string') return createOptimizer(value as OptimizerName, params as SGDParams);
  if (!isOptimizer(value)) throw invalidArgument({ what: "an Optimizer (e.g. new SGD()) or 'sgd' or 'adam'", name, value });
  if (params !== undefined) throw invalidArgument({ what: 'no optimizerParams with an Optimizer object', name: 'optimizerParams', value: params });
  return value;
}
