/**
 * `@kolo/adapter-tfjs`: data-parallel training of TensorFlow.js models on Kolo — the
 * DistributedOptimizer, state broadcast, Horovod callbacks, SyncBatchNormalization, dataset
 * sharding and checkpoints. Importing it only registers SyncBatchNormalization with tfjs.
 */
export * from './distributed-optimizer.js';
export type { DistributedOptimizerOptions, ResolvedDistributedOptimizerOptions } from './distributed-optimizer-options.js';
export { isDistributedOptimizer, unwrapOptimizer } from './unwrap-optimizer.js';
export * from './broadcast-variables.js';
export * from './broadcast-optimizer-state.js';
export * from './learning-rate.js';
export * from './broadcast-global-variables-callback.js';
export * from './metric-average-callback.js';
export * from './learning-rate-schedule-callback.js';
export * from './learning-rate-warmup-callback.js';
export * from './sync-batch-normalization.js';
export type { CommScope } from './sync-moments.js';
export * from './shard-dataset.js';
export * from './file-io-handler.js';
export * from './save-checkpoint.js';
export * from './restore-checkpoint.js';
export * from './checkpoint-callback.js';
export type { LatestCheckpoint } from './checkpoint-layout.js';
export * from './pin-gpu.js';
export * from './tfjs-state.js';
