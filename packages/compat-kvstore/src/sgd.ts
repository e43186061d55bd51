import { expectFiniteNumber } from '@kolo/core';
import { scaledGrad, type FloatArray, type Optimizer, type OptimizerState } from './optimizer.js';
import { readParams, type OptimizerParams } from './optimizer-params.js';

/**
 * Parameters of {@link SGD}.
 *
 * @example
 * ```ts
 * const params: SGDParams = { learningRate: 0.1, momentum: 0.9 };
 * ```
 */
export interface SGDParams extends OptimizerParams {
  /** Momentum factor; default 0 (plain SGD, no state). */
  readonly momentum?: number;
}

/**
 * MXNet's `sgd` optimizer (`sgd_update` / `sgd_mom_update`), with g = clip(rescaleGrad * grad):
 * without momentum `w = (1 - lr * wd) * w - lr * g`; with momentum
 * `mom = momentum * mom - lr * wd * w - lr * g; w += mom`.
 *
 * @example
 * ```ts
 * const sgd = new SGD({ learningRate: 0.5 });
 * const w = Float32Array.of(1);
 * sgd.update(w, Float32Array.of(0.5), sgd.createState(w)); // w = [0.75]
 * ```
 */
export class SGD implements Optimizer {
  readonly name = 'sgd';
  learningRate: number;
  rescaleGrad: number;
  /** Weight decay. */
  wd: number;
  /** Momentum factor. */
  momentum: number;
  /** Gradient clipping bound, or undefined for none. */
  clipGradient: number | undefined;

  constructor(params: SGDParams = {}) {
    const p = readParams(params, 'SGD', ['momentum']);
    this.learningRate = p.learningRate ?? 0.01;
    this.rescaleGrad = p.rescaleGrad ?? 1;
    this.wd = p.wd ?? 0;
    this.momentum = expectFiniteNumber(p.momentum ?? 0, 'momentum');
    this.clipGradient = p.clipGradient;
  }

  /**
   * A momentum array when momentum is used, else no arrays.
   *
   * @example
   * ```ts
   * new SGD({ momentum: 0.9 }).createState(new Float32Array(3)).slots.length; // 1
   * ```
   */
  createState(weight: FloatArray): OptimizerState {
    const Ctor = weight.constructor as new (length: number) => FloatArray;
    return { step: 0, slots: this.momentum === 0 ? [] : [new Ctor(weight.length)] };
  }

  /**
   * One update of `weight` in place.
   *
   * @example
   * ```ts
   * sgd.update(weight, grad, state);
   * ```
   */
  update(weight: FloatArray, grad: FloatArray, state: OptimizerState): void {
    state.step += 1;
    const { learningRate: lr, wd } = this;
    const mom = state.slots[0];
    for (let i = 0; i < weight.length; i++) {
      const w = weight[i] ?? 0;
      const g = scaledGrad(grad[i] ?? 0, this);
      if (mom === undefined || this.momentum === 0) {
        weight[i] = (1 - lr * wd) * w - lr * g;
      } else {
        mom[i] = this.momentum * (mom[i] ?? 0) - lr * wd * w - lr * g;
        weight[i] = w + (mom[i] ?? 0);
      }
    }
  }

  /**
   * The hyper-parameters, as saved with `dumpOptimizer`.
   *
   * @example
   * ```ts
   * new SGD().hyperParams(); // { learningRate: 0.01, rescaleGrad: 1, wd: 0, momentum: 0 }
   * ```
   */
  hyperParams(): Record<string, number> {
    const { learningRate, rescaleGrad, wd, momentum, clipGradient } = this;
    return { learningRate, rescaleGrad, wd, momentum, ...(clipGradient === undefined ? {} : { clipGradient }) };
  }
}
