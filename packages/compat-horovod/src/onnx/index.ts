/**
 * `@kolo/compat-horovod/onnx`: the framework-neutral Horovod API plus ONNX Runtime training and
 * inference under Horovod's names (`hvd.DistributedTrainer`, `hvd.broadcastParameters`), built on
 * `@kolo/adapter-onnx` (an optional peer dependency, with `onnxruntime-node`).
 *
 * @example
 * ```ts
 * import * as hvd from '@kolo/compat-horovod/onnx';
 * await hvd.init();
 * const trainer = await hvd.DistributedTrainer.create({ trainingModel, initialWeights, optimizer: { type: 'sgd', lr: 0.1 } });
 * ```
 */
export * from '../index.js';
export { broadcastParameters, broadcastParameters as broadcast_parameters } from './broadcast-parameters.js';
export {
  DistributedTrainer,
  DistributedInferenceSession,
  OnnxModel,
  averageInitializers,
  averageInitializers as average_parameters,
  Sgd,
  Momentum,
  Adam,
  createOptimizer,
} from '@kolo/adapter-onnx';
