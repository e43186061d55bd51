// model.fit / fitDataset / trainOnBatch with the DistributedOptimizer and the callbacks: every
// rank starts from different weights and different data, and must end bitwise identical.
import * as tf from '@tensorflow/tfjs';
import * as kolo from '@kolo/core';
import {
  BroadcastGlobalVariablesCallback,
  DistributedOptimizer,
  LearningRateWarmupCallback,
  MetricAverageCallback,
  SyncBatchNormalization,
  getLearningRate,
  shardDataset,
} from '@kolo/adapter-tfjs';
import { hashTensors, report } from './compare.mjs';

await kolo.init();
const rank = kolo.rank();
const size = kolo.size();

// Different initial weights on every rank (seeded by rank): the broadcast must fix that.
const seed = 10 * (rank + 1);
const model = tf.sequential({
  layers: [
    tf.layers.dense({ inputShape: [6], units: 16, activation: 'relu', kernelInitializer: tf.initializers.glorotNormal({ seed }) }),
    new SyncBatchNormalization({ momentum: 0.9 }),
    tf.layers.dropout({ rate: 0.2 }),
    tf.layers.dense({ units: 3, activation: 'softmax', kernelInitializer: tf.initializers.glorotNormal({ seed: seed + 1 }) }),
  ],
});
const initialLr = 0.01 * size;
model.compile({ optimizer: new DistributedOptimizer(tf.train.adam(initialLr)), loss: 'categoricalCrossentropy', metrics: ['accuracy'] });

// Different data on every rank (40 samples each).
const x = tf.randomNormal([40, 6], 0, 1, 'float32', 100 + rank);
const labels = tf.randomUniform([40], 0, 3, 'int32', 200 + rank);
const y = tf.oneHot(labels, 3).toFloat();

const lrTrace = [];
const epochLogs = [];
const recorder = new tf.CustomCallback({
  onBatchBegin: async () => { lrTrace.push(getLearningRate(model.optimizer)); },
  onEpochEnd: async (_epoch, logs) => { epochLogs.push(logs); },
});
const callbacks = [
  new BroadcastGlobalVariablesCallback(0),
  new MetricAverageCallback(),
  new LearningRateWarmupCallback({ initialLr, warmupEpochs: 2 }),
  recorder,
];
await model.fit(x, y, { epochs: 3, batchSize: 8, shuffle: true, verbose: 0, callbacks });

// fitDataset over this rank's shard of one dataset of 48 samples (24 per rank on 2 ranks).
const all = tf.data.zip({ xs: tf.data.array(tf.unstack(tf.randomNormal([48, 6], 0, 1, 'float32', 7))), ys: tf.data.array(tf.unstack(tf.oneHot(tf.randomUniform([48], 0, 3, 'int32', 8), 3).toFloat())) });
// A second broadcast, now with live Adam state (its beta powers must come out bitwise equal).
await model.fitDataset(shardDataset(all, { numShards: size, index: rank }).batch(8), { epochs: 1, verbose: 0, callbacks: [new BroadcastGlobalVariablesCallback(0), new MetricAverageCallback()] });

// trainOnBatch, twice.
await model.trainOnBatch(x.slice([0, 0], [8, 6]), y.slice([0, 0], [8, 3]));
await model.trainOnBatch(x.slice([8, 0], [8, 6]), y.slice([8, 0], [8, 3]));

// Control: the same training without the adapter leaves the ranks apart.
const control = tf.sequential({ layers: [tf.layers.dense({ inputShape: [6], units: 3, kernelInitializer: tf.initializers.glorotNormal({ seed }) })] });
control.compile({ optimizer: tf.train.adam(0.01), loss: 'meanSquaredError' });
await control.fit(x, y, { epochs: 1, batchSize: 8, verbose: 0 });

const state = await model.optimizer.getWeights();
report(rank, 'fit', {
  weights: hashTensors(model.getWeights()),
  optimizer: hashTensors(state.map((w) => w.tensor)),
  names: state.length,
  iterations: model.optimizer.iterations,
  epochLogs,
  lrTrace,
  control: hashTensors(control.getWeights()),
});
await kolo.shutdown();
