import { checkOptions, expectFiniteNumber } from '@kolo/core';
import type { FlatOptimizer } from './flat-optimizer.js';

/**
 * Options of {@link Adam}, with torch's defaults.
 *
 * @example
 * ```ts
 * new Adam({ learningRate: 1e-3, beta1: 0.9, beta2: 0.999, epsilon: 1e-8 } satisfies AdamOptions);
 * ```
 */
export interface AdamOptions {
  /** Step size. */
  readonly learningRate: number;
  /** Decay of the gradient mean; default 0.9. */
  readonly beta1?: number;
  /** Decay of the squared-gradient mean; default 0.999. */
  readonly beta2?: number;
  /** Added to the denominator for stability; default 1e-8. */
  readonly epsilon?: number;
}

/**
 * Adam (Kingma & Ba), in torch's arithmetic: `m = b1 m + (1 - b1) g`, `v = b2 v + (1 - b2) g²`,
 * `p -= (lr / (1 - b1^t)) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)`.
 *
 * @example
 * ```ts
 * const p = Float32Array.of(1);
 * new Adam({ learningRate: 0.1 }).apply(p, Float32Array.of(3)); // first step moves by ~lr: p ≈ 0.9
 * ```
 */
export class Adam implements FlatOptimizer {
  learningRate: number;
  /** Decay of the first-moment (mean) estimate. */
  readonly beta1: number;
  /** Decay of the second-moment (uncentred variance) estimate. */
  readonly beta2: number;
  /** Added to the denominator for numerical stability. */
  readonly epsilon: number;
  steps = 0;
  private m: Float32Array | undefined;
  private v: Float32Array | undefined;

  constructor(options: AdamOptions) {
    const o = checkOptions(options, { opName: 'Adam', allowed: ['learningRate', 'beta1', 'beta2', 'epsilon'] });
    this.learningRate = expectFiniteNumber(o.learningRate, 'learningRate');
    this.beta1 = expectFiniteNumber(o.beta1 ?? 0.9, 'beta1');
    this.beta2 = expectFiniteNumber(o.beta2 ?? 0.999, 'beta2');
    this.epsilon = expectFiniteNumber(o.epsilon ?? 1e-8, 'epsilon');
  }

  apply(params: Float32Array, grads: Float32Array): void {
    const m = (this.m ??= new Float32Array(params.length));
    const v = (this.v ??= new Float32Array(params.length));
    const { beta1: b1, beta2: b2, epsilon: eps } = this;
    this.steps++;
    const stepSize = this.learningRate / (1 - b1 ** this.steps);
    const correction2 = Math.sqrt(1 - b2 ** this.steps);
    for (let i = 0; i < params.length; i++) {
      const g = grads[i]!;
      m[i] = b1 * m[i]! + (1 - b1) * g;
      v[i] = b2 * v[i]! + (1 - b2) * g * g;
      params[i] = params[i]! - (stepSize * m[i]!) / (Math.sqrt(v[i]!) / correction2 + eps);
    }
  }
}
