import { checkOptions, expectInteger, expectNonEmptyString, expectOneOf, invalidArgument, rank, size } from '@kolo/core';
import type { InferenceSession } from 'onnxruntime-node';
import type { InferenceDevice } from '../inference/session-options.js';
import type { WeightSource } from './initial-weights.js';
import type { OptimizerSpec } from './optimizers/create-optimizer.js';

/**
 * Options of `DistributedTrainer.create`.
 *
 * @example
 * ```ts
 * const options: DistributedTrainerOptions = {
 *   trainingModel: 'mlp.train.onnx', initialWeights: 'mlp.infer.onnx', optimizer: { type: 'momentum', learningRate: 0.05 },
 * };
 * ```
 */
export interface DistributedTrainerOptions {
  /** Path or bytes of the training-step graph (weights as inputs; outputs loss and gradients). */
  readonly trainingModel: string | Uint8Array;
  /** Starting weights: an inference model whose initializers have the weights' names, or tensors. Read only on `broadcastFrom`; other ranks may omit it. */
  readonly initialWeights?: WeightSource;
  /** The update rule applied after the gradients are averaged. */
  readonly optimizer: OptimizerSpec;
  /** The scalar loss output; default `loss`. */
  readonly lossName?: string;
  /** Input `W` is a weight when output `<gradientPrefix>W` exists; default `grad.`. */
  readonly gradientPrefix?: string;
  /** The rank whose initial weights everyone starts from; default 0. */
  readonly broadcastFrom?: number;
  /** `cuda` pins the CUDA execution provider to the GPU `localRank()`; default `cpu`. */
  readonly device?: InferenceDevice;
  /** Passed to `InferenceSession.create` (its `executionProviders` are replaced when `device` is `cuda`). */
  readonly sessionOptions?: InferenceSession.SessionOptions;
  /** Prefix of the request names; the same on every rank, unique per trainer. Default `trainer`. */
  readonly name?: string;
}

/**
 * {@link DistributedTrainerOptions} with defaults filled in.
 *
 * @example
 * ```ts
 * const o: ResolvedTrainerOptions = checkTrainerOptions(options);
 * ```
 */
export type ResolvedTrainerOptions = Required<Omit<DistributedTrainerOptions, 'sessionOptions' | 'initialWeights'>> & {
  readonly sessionOptions: InferenceSession.SessionOptions | undefined;
  readonly initialWeights: WeightSource | undefined;
};

const allowed = [
  'trainingModel', 'initialWeights', 'optimizer', 'lossName', 'gradientPrefix', 'broadcastFrom', 'device', 'sessionOptions', 'name',
];

/**
 * Validates trainer options and fills in the defaults (the optimizer spec is checked when built).
 *
 * @example
 * ```ts
 * checkTrainerOptions({ trainingModel: 'm.onnx', initialWeights: 'i.onnx', optimizer: { type: 'sgd', learningRate: 0.1 }, lossname: 'l' });
 * // TypeError: Unknown option 'lossname' for DistributedTrainer.create; did you mean 'lossName'?
 * ```
 */
export function checkTrainerOptions(options: DistributedTrainerOptions): ResolvedTrainerOptions {
  const o = checkOptions(options, { opName: 'DistributedTrainer.create', allowed });
  if (typeof o.trainingModel !== 'string' && !(o.trainingModel instanceof Uint8Array)) {
    throw invalidArgument({ what: 'a model path or a Uint8Array', name: 'trainingModel', value: o.trainingModel });
  }
  const broadcastFrom = expectInteger(o.broadcastFrom ?? 0, { name: 'broadcastFrom', min: 0, max: size() - 1 });
  if (o.initialWeights === undefined && rank() === broadcastFrom) {
    throw invalidArgument({ what: 'a model path, model bytes, an OnnxModel or an array of tensors', name: 'initialWeights', value: undefined });
  }
  return {
    trainingModel: o.trainingModel,
    initialWeights: o.initialWeights,
    optimizer: o.optimizer,
    lossName: expectNonEmptyString(o.lossName ?? 'loss', 'lossName'),
    gradientPrefix: expectNonEmptyString(o.gradientPrefix ?? 'grad.', 'gradientPrefix'),
    broadcastFrom,
    device: expectOneOf(o.device ?? 'cpu', { name: 'device', choices: ['cpu', 'cuda'] as const }),
    sessionOptions: o.sessionOptions,
    name: expectNonEmptyString(o.name ?? 'trainer', 'name'),
  };
}
