import { add, customGrad, mul, reshape, sub, sum, tensor, type GradSaveFunc, type Tensor } from '@tensorflow/tfjs-core';
import { sumOverScope, syncMoments, type CommScope } from './sync-moments.js';

/**
 * Settings of {@link syncBatchNorm}.
 *
 * @example
 * ```ts
 * const s: SyncBatchNormSettings = { axis: 3, epsilon: 1e-3, scope: 'global', name: 'SyncBatchNormalization' };
 * ```
 */
export interface SyncBatchNormSettings {
  /** The channel axis, non-negative. */
  readonly axis: number;
  /** Added to the variance before the square root. */
  readonly epsilon: number;
  /** The ranks whose batches make up the statistics. */
  readonly scope: CommScope;
  /** Prefix of the two request names (forward statistics, backward sums). */
  readonly name: string;
}

/**
 * Batch normalization in training mode with statistics over the whole distributed batch:
 * `y = gamma * (x - mean) / sqrt(var + epsilon) + beta`. The gradient with respect to `x` sums
 * `dy` and `dy * xhat` over the same ranks (a second blocking collective), so it is the gradient
 * of the summed loss of all ranks; `gamma` and `beta` get this rank's share, which the
 * DistributedOptimizer's average then combines. Returns the output and the batch statistics.
 *
 * @example
 * ```ts
 * const { y, mean, variance } = syncBatchNorm(x, gamma, beta, settings);
 * ```
 */
export function syncBatchNorm(
  x: Tensor,
  gamma: Tensor,
  beta: Tensor,
  settings: SyncBatchNormSettings,
): { y: Tensor; mean: Float64Array; variance: Float64Array } {
  const { axis, epsilon, scope, name } = settings;
  const { mean, variance, count } = syncMoments(x, { axis, scope, name: `${name}.forward` });
  const broadcastShape = x.shape.map((d, i) => (i === axis ? d : 1));
  const invStd = Float32Array.from(variance, (v) => 1 / Math.sqrt(v + epsilon));
  const op = customGrad((...args: (Tensor | GradSaveFunc)[]) => {
    const [xIn, g, b, save] = args as [Tensor, Tensor, Tensor, GradSaveFunc];
    const invStdT = tensor(invStd, broadcastShape);
    const gammaB = reshape(g, broadcastShape);
    const xHat = mul(sub(xIn, tensor(Float32Array.from(mean), broadcastShape)), invStdT);
    save([xHat, gammaB, invStdT]);
    const value = add(mul(xHat, gammaB), reshape(b, broadcastShape));
    const gradFunc = (dy: Tensor, saved: Tensor[]): Tensor[] => {
      const [dx, dGamma, dBeta] = backward(dy, saved as [Tensor, Tensor, Tensor], { ...settings, count, broadcastShape });
      return [dx, reshape(dGamma, g.shape), reshape(dBeta, b.shape)];
    };
    return { value, gradFunc };
  });
  return { y: op(x, gamma, beta), mean, variance };
}

/**
 * The gradients of {@link syncBatchNorm}: `dx = gamma·invStd·(dy − mean(dy) − xHat·mean(dy·xHat))`
 * with both means over the ranks of the scope (one blocking sum), and this rank's
 * `dGamma = Σ dy·xHat`, `dBeta = Σ dy`.
 */
function backward(
  dy: Tensor,
  [xHat, gamma, invStd]: [Tensor, Tensor, Tensor],
  settings: SyncBatchNormSettings & { readonly count: number; readonly broadcastShape: number[] },
): [Tensor, Tensor, Tensor] {
  const { axis, scope, name, count, broadcastShape } = settings;
  const channels = broadcastShape[axis] as number;
  const reductionAxes = dy.shape.map((_, i) => i).filter((i) => i !== axis);
  const sumDy = sum(dy, reductionAxes);
  const sumDyXHat = sum(mul(dy, xHat), reductionAxes);
  const local = new Float64Array(2 * channels);
  local.set(sumDy.dataSync());
  local.set(sumDyXHat.dataSync(), channels);
  const totals = sumOverScope(local, { scope, name: `${name}.backward` });
  const meanOf = (part: Float64Array) => tensor(Float32Array.from(part, (v) => v / count), broadcastShape);
  const meanDy = meanOf(totals.subarray(0, channels));
  const meanDyXHat = meanOf(totals.subarray(channels));
  const dx = mul(mul(gamma, invStd), sub(sub(dy, meanDy), mul(xHat, meanDyXHat)));
  return [dx, sumDyXHat, sumDy];
}
