import { expectOneOf, invalidArgument } from '@kolo/core';
import { Adam, type AdamOptions } from './adam.js';
import type { FlatOptimizer } from './flat-optimizer.js';
import { Momentum, type MomentumOptions } from './momentum.js';
import { Sgd, type SgdOptions } from './sgd.js';

/**
 * The optimizer a trainer applies, by `type`, with that optimizer's options.
 *
 * @example
 * ```ts
 * const spec: OptimizerSpec = { type: 'adam', learningRate: 1e-3 };
 * ```
 */
export type OptimizerSpec =
  | ({
      /** Plain gradient descent ({@link Sgd}). */
      readonly type: 'sgd';
    } & SgdOptions)
  | ({
      /** Gradient descent with momentum ({@link Momentum}). */
      readonly type: 'momentum';
    } & MomentumOptions)
  | ({
      /** Adam ({@link Adam}). */
      readonly type: 'adam';
    } & AdamOptions);

/**
 * Builds the optimizer a spec describes.
 *
 * @example
 * ```ts
 * const opt = createOptimizer({ type: 'momentum', learningRate: 0.05, momentum: 0.9 });
 * ```
 */
export function createOptimizer(spec: OptimizerSpec): FlatOptimizer {
  if (spec === null || typeof spec !== 'object') {
    throw invalidArgument({ what: "an optimizer spec such as { type: 'sgd', learningRate: 0.1 }", name: 'optimizer', value: spec });
  }
  const { type, ...options } = spec;
  switch (expectOneOf(type, { name: 'optimizer.type', choices: ['sgd', 'momentum', 'adam'] as const })) {
    case 'sgd':
      return new Sgd(options as SgdOptions);
    case 'momentum':
      return new Momentum(options as MomentumOptions);
    case 'adam':
      return new Adam(options as AdamOptions);
  }
}
