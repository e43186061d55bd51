import { scaledGrad, type FloatArray, type Optimizer, type OptimizerState } from './optimizer.js';
import { readParams, type OptimizerParams } from './optimizer-params.js';

/**
 * Parameters of {@link Adam}.
 *
 * @example
 * ```ts
 * const params: AdamParams = { learningRate: 0.001, beta1: 0.9 };
 * ```
 */
export interface AdamParams extends OptimizerParams {
  /** Decay of the first moment; default 0.9. */
  readonly beta1?: number;
  /** Decay of the second moment; default 0.999. */
  readonly beta2?: number;
  /** Added to the root of the second moment; default 1e-8. */
  readonly epsilon?: number;
}

/**
 * MXNet's `adam` optimizer: g = clip(rescaleGrad * grad + wd * w); `m = b1 m + (1 - b1) g`;
 * `v = b2 v + (1 - b2) g^2`; `w -= lr * sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + eps)`.
 *
 * @example
 * ```ts
 * const adam = new Adam({ learningRate: 0.1 });
 * const w = Float32Array.of(1);
 * adam.update(w, Float32Array.of(2), adam.createState(w)); // w ≈ [0.9]
 * ```
 */
export class Adam implements Optimizer {
  readonly name = 'adam';
  learningRate: number;
  rescaleGrad: number;
  /** Weight decay, added to the gradient. */
  wd: number;
  /** Gradient clipping bound, or undefined for none. */
  clipGradient: number | undefined;
  /** First-moment decay. */
  beta1: number;
  /** Second-moment decay. */
  beta2: number;
  /** Denominator offset. */
  epsilon: number;

  constructor(params: AdamParams = {}) {
    const p = readParams(params, 'Adam', ['beta1', 'beta2', 'epsilon']);
    this.learningRate = p.learningRate ?? 0.001;
    this.rescaleGrad = p.rescaleGrad ?? 1;
    this.wd = p.wd ?? 0;
    this.clipGradient = p.clipGradient;
    this.beta1 = p.beta1 ?? 0.9;
    this.beta2 = p.beta2 ?? 0.999;
    this.epsilon = p.epsilon ?? 1e-8;
  }

  /**
   * Zeroed first and second moments.
   *
   * @example
   * ```ts
   * new Adam().createState(new Float32Array(3)).slots.length; // 2
   * ```
   */
  createState(weight: FloatArray): OptimizerState {
    const Ctor = weight.constructor as new (length: number) => FloatArray;
    return { step: 0, slots: [new Ctor(weight.length), new Ctor(weight.length)] };
  }

  /**
   * One update of `weight` in place.
   *
   * @example
   * ```ts
   * adam.update(weight, grad, state);
   * ```
   */
  update(weight: FloatArray, grad: FloatArray, state: OptimizerState): void {
    state.step += 1;
    const [mean, variance] = state.slots;
    if (mean === undefined || variance === undefined) throw new RangeError('Adam state needs two slots');
    const { beta1, beta2 } = this;
    const lrT = (this.learningRate * Math.sqrt(1 - beta2 ** state.step)) / (1 - beta1 ** state.step);
    const unclipped = { rescaleGrad: 1, clipGradient: this.clipGradient };
    for (let i = 0; i < weight.length; i++) {
      const w = weight[i] ?? 0;
      const g = scaledGrad(this.rescaleGrad * (grad[i] ?? 0) + this.wd * w, unclipped);
      mean[i] = beta1 * (mean[i] ?? 0) + (1 - beta1) * g;
      variance[i] = beta2 * (variance[i] ?? 0) + (1 - beta2) * g * g;
      weight[i] = w - (lrT * (mean[i] ?? 0)) / (Math.sqrt(variance[i] ?? 0) + this.epsilon);
    }
  }

  /**
   * The hyper-parameters, as saved with `dumpOptimizer`.
   *
   * @example
   * ```ts
   * new Adam().hyperParams().beta2; // 0.999
   * ```
   */
  hyperParams(): Record<string, number> {
    const { learningRate, rescaleGrad, wd, beta1, beta2, epsilon, clipGradient } = this;
    return { learningRate, rescaleGrad, wd, beta1, beta2, epsilon, ...(clipGradient === undefined ? {} : { clipGradient }) };
  }
}
