import { checkOptions, expectFiniteNumber } from '@kolo/core';
import type { FlatOptimizer } from './flat-optimizer.js';

/**
 * Options of {@link Momentum}.
 *
 * @example
 * ```ts
 * new Momentum({ learningRate: 0.05, momentum: 0.9, nesterov: true } satisfies MomentumOptions);
 * ```
 */
export interface MomentumOptions {
  /** Step size. */
  readonly learningRate: number;
  /** Decay of the velocity; default 0.9. */
  readonly momentum?: number;
  /** Use Nesterov's look-ahead update; default false. */
  readonly nesterov?: boolean;
}

/**
 * SGD with momentum, as torch's `SGD(momentum=m, dampening=0)`: `v = m v + g`, then
 * `p -= lr * v`, or `p -= lr * (g + m v)` with `nesterov`.
 *
 * @example
 * ```ts
 * const opt = new Momentum({ learningRate: 1, momentum: 0.5 });
 * const p = Float32Array.of(0);
 * opt.apply(p, Float32Array.of(1)); // v = 1,   p = -1
 * opt.apply(p, Float32Array.of(1)); // v = 1.5, p = -2.5
 * ```
 */
export class Momentum implements FlatOptimizer {
  learningRate: number;
  /** How much of the previous velocity each step keeps. */
  readonly momentum: number;
  /** Nesterov momentum: the step looks ahead along the velocity. */
  readonly nesterov: boolean;
  steps = 0;
  private velocity: Float32Array | undefined;

  constructor(options: MomentumOptions) {
    const o = checkOptions(options, { opName: 'Momentum', allowed: ['learningRate', 'momentum', 'nesterov'] });
    this.learningRate = expectFiniteNumber(o.learningRate, 'learningRate');
    this.momentum = expectFiniteNumber(o.momentum ?? 0.9, 'momentum');
    this.nesterov = o.nesterov ?? false;
  }

  apply(params: Float32Array, grads: Float32Array): void {
    const v = (this.velocity ??= new Float32Array(params.length));
    const { learningRate: lr, momentum: m } = this;
    for (let i = 0; i < params.length; i++) {
      const g = grads[i]!;
      v[i] = m * v[i]! + g;
      params[i] = params[i]! - lr * (this.nesterov ? g + m * v[i]! : v[i]!);
    }
    this.steps++;
  }
}
