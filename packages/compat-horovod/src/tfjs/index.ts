/**
 * `@kolo/compat-horovod/tfjs`: the framework-neutral Horovod API plus TensorFlow.js training under
 * the names of Horovod's Keras API (`hvd.DistributedOptimizer`, `hvd.broadcast_variables`,
 * `hvd.callbacks.BroadcastGlobalVariablesCallback`, ...), built on `@kolo/adapter-tfjs` (an
 * optional peer dependency, with `@tensorflow/tfjs-core` and `@tensorflow/tfjs-layers`).
 *
 * @example
 * ```ts
 * import * as hvd from '@kolo/compat-horovod/tfjs';
 * await hvd.init();
 * model.compile({ optimizer: new hvd.DistributedOptimizer(tf.train.adam(0.001 * hvd.size())), loss: 'categoricalCrossentropy' });
 * await model.fit(xs, ys, { callbacks: [new hvd.callbacks.BroadcastGlobalVariablesCallback(0), new hvd.callbacks.MetricAverageCallback()] });
 * ```
 */
import {
  BroadcastGlobalVariablesCallback,
  MetricAverageCallback,
  LearningRateWarmupCallback,
  LearningRateScheduleCallback,
  CheckpointCallback,
} from '@kolo/adapter-tfjs';

export * from '../index.js';
export { DistributedOptimizer, type DistributedOptimizerOptions } from './distributed-optimizer.js';
export {
  broadcastVariables,
  broadcastVariables as broadcast_variables,
  broadcastModel,
  broadcastModel as broadcast_model,
  broadcastOptimizerState,
  broadcastOptimizerState as broadcast_optimizer_state,
  SyncBatchNormalization,
  BroadcastGlobalVariablesCallback,
  MetricAverageCallback,
  LearningRateWarmupCallback,
  LearningRateScheduleCallback,
  CheckpointCallback,
  saveCheckpoint,
  saveCheckpoint as save_checkpoint,
  restoreCheckpoint,
  restoreCheckpoint as restore_checkpoint,
  getLearningRate,
  setLearningRate,
  shardDataset,
  shardDataset as shard_dataset,
  type BroadcastableVariable,
  type LearningRateWarmupOptions,
  type LearningRateScheduleOptions,
  type SyncBatchNormalizationArgs,
  type SaveCheckpointOptions,
} from '@kolo/adapter-tfjs';

/**
 * Horovod's `hvd.callbacks` namespace (`horovod.tensorflow.keras.callbacks`).
 *
 * @example
 * ```ts
 * callbacks: [new hvd.callbacks.BroadcastGlobalVariablesCallback(0), new hvd.callbacks.LearningRateWarmupCallback({ initialLr, warmupEpochs: 3 })]
 * ```
 */
export const callbacks = {
  /** Broadcasts rank 0's (or `root`'s) weights and optimizer state before the first batch. */
  BroadcastGlobalVariablesCallback,
  /** Averages each epoch's metrics over the ranks. */
  MetricAverageCallback,
  /** Ramps the learning rate from `lr / size` to `lr` over the first epochs. */
  LearningRateWarmupCallback,
  /** Multiplies the learning rate by a schedule between two epochs. */
  LearningRateScheduleCallback,
  /** Saves a checkpoint on rank 0 after each epoch (Keras' ModelCheckpoint, rank 0 only). */
  CheckpointCallback,
} as const;
