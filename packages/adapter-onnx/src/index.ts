/**
 * `@kolo/adapter-onnx`: distributed inference and data-parallel training of ONNX models with
 * onnxruntime-node on Kolo, and ONNX initializers read and written with protobufjs. Importing
 * this module loads neither onnxruntime nor the ONNX schema; call `init()` from `@kolo/core` first.
 */
export { OnnxModel } from './model/onnx-model.js';
export type { NamedTensor } from './model/named-tensor.js';
export type { OnnxElementType } from './model/data-types.js';
export type { ValueInfo } from './model/value-info.js';
export { broadcastInitializers, type BroadcastInitializersOptions } from './state/broadcast-initializers.js';
export { averageInitializers, type AverageInitializersOptions } from './state/average-initializers.js';
export type { InitializerTarget } from './state/model-tensors.js';
export {
  DistributedInferenceSession,
  type DistributedInferenceSessionOptions,
  type DistributedOutputs,
} from './inference/distributed-inference-session.js';
export type { DistributedRunOptions } from './inference/run-options.js';
export type { InferenceDevice } from './inference/session-options.js';
export { DistributedTrainer, type StepResult } from './training/distributed-trainer.js';
export type { DistributedTrainerOptions } from './training/trainer-options.js';
export type { SaveInferenceModelOptions } from './training/save-inference-model.js';
export type { WeightSource } from './training/initial-weights.js';
export type { TrainableWeight, TrainingGraph } from './training/training-graph.js';
export { describeTrainingGraph } from './training/training-graph.js';
export { createOptimizer, type OptimizerSpec } from './training/optimizers/create-optimizer.js';
export type { FlatOptimizer } from './training/optimizers/flat-optimizer.js';
export { Sgd, type SgdOptions } from './training/optimizers/sgd.js';
export { Momentum, type MomentumOptions } from './training/optimizers/momentum.js';
export { Adam, type AdamOptions } from './training/optimizers/adam.js';
