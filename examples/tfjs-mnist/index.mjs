// Trains a small convnet on real MNIST digits with data-parallel workers:
//   node packages/launcher/dist/cli.js -np 2 node examples/tfjs-mnist/index.mjs [--epochs 6]
// Rank 0 prints a line per epoch and a checkpoint is saved after each; started again with the
// same --checkpoint-dir, training resumes after the last checkpoint. Options: --epochs (or
// MNIST_EPOCHS), --batch-size (per worker), --lr (per worker; scaled by the number of workers),
// --fp16 (compress gradients), --checkpoint-dir, --stop-after-epoch N, --train-samples N,
// --max-shift (pixels of random shift for augmentation).
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs';
import * as kolo from '@kolo/core';
import {
  BroadcastGlobalVariablesCallback,
  CheckpointCallback,
  DistributedOptimizer,
  LearningRateScheduleCallback,
  LearningRateWarmupCallback,
  MetricAverageCallback,
  getLearningRate,
  restoreCheckpoint,
} from '@kolo/adapter-tfjs';
import { loadDigits, patchGeometry, toTensors } from './data.mjs';
import { buildModel } from './model.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  options: {
    epochs: { type: 'string', default: process.env.MNIST_EPOCHS ?? '6' },
    'batch-size': { type: 'string', default: '32' },
    lr: { type: 'string', default: '0.001' },
    fp16: { type: 'boolean', default: false },
    'checkpoint-dir': { type: 'string', default: join(here, 'checkpoints') },
    'stop-after-epoch': { type: 'string' },
    'train-samples': { type: 'string' },
    'max-shift': { type: 'string', default: '1' },
  },
});
const epochs = Number(args.epochs);
const batchSize = Number(args['batch-size']);

await kolo.init();
const rank = kolo.rank();
const size = kolo.size();
const say = (line) => rank === 0 && console.log(line);
const weightsHash = () => {
  const hash = createHash('sha256');
  for (const t of model.getWeights()) {
    const data = t.dataSync();
    hash.update(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  }
  return hash.digest('hex').slice(0, 16);
};

const { train: allTrain, test } = loadDigits();
// --train-samples N keeps N digits spread evenly over the training set (for quick runs).
const keep = Math.min(Number(args['train-samples'] ?? allTrain.length), allTrain.length);
const train = Array.from({ length: keep }, (_, i) => allTrain[Math.floor((i * allTrain.length) / keep)]);
const geometry = patchGeometry({ kernel: 5, stride: 2 });
const model = buildModel(geometry);
const lr = Number(args.lr) * size;
const optimizer = new DistributedOptimizer(tf.train.adam(lr), { compression: args.fp16 ? 'fp16' : 'none' });
model.compile({ optimizer, loss: 'categoricalCrossentropy', metrics: ['accuracy'] });
say(`MNIST: ${train.length} training and ${test.length} held-out digits, ${size} workers, batch ${batchSize} per worker, Adam lr ${lr}${args.fp16 ? ', fp16 gradients' : ''}`);

const directory = args['checkpoint-dir'];
const last = await restoreCheckpoint(model, { directory });
const firstEpoch = last === undefined ? 0 : last + 1;
if (last !== undefined) {
  say(`resumed from the checkpoint of epoch ${last + 1} in ${directory}; continuing at epoch ${firstEpoch + 1}`);
  console.log(`rank ${rank} restored weights sha256 ${weightsHash()}`);
}

const sampler = new kolo.DistributedSampler({ datasetLength: train.length, seed: 42 });
let started = 0;
const progress = new tf.CustomCallback({
  onEpochBegin: async () => void (started = performance.now()),
  onEpochEnd: async (epoch, logs) => {
    const seconds = (performance.now() - started) / 1000;
    const rate = (sampler.length * size) / seconds;
    say(`epoch ${epoch + 1}/${epochs}  loss ${logs.loss.toFixed(4)}  accuracy ${logs.acc.toFixed(4)}  ${rate.toFixed(0)} samples/s  lr ${getLearningRate(optimizer).toPrecision(3)}  (${seconds.toFixed(1)} s)`);
  },
});
const callbacks = [
  new BroadcastGlobalVariablesCallback(0),
  new MetricAverageCallback(),
  new LearningRateWarmupCallback({ initialLr: lr, warmupEpochs: 1 }),
  // The last two epochs at a quarter of the rate.
  new LearningRateScheduleCallback({ initialLr: lr, multiplier: (e) => (e >= epochs - 2 ? 0.25 : 1), startEpoch: 1 }),
  new CheckpointCallback({ directory }),
  progress,
];

const begin = performance.now();
const stopAfter = args['stop-after-epoch'] === undefined ? epochs : Number(args['stop-after-epoch']);
for (let epoch = firstEpoch; epoch < Math.min(epochs, stopAfter); epoch++) {
  sampler.setEpoch(epoch);
  // Fresh augmentation (random shifts of up to --max-shift pixels) after the first epoch,
  // seeded per rank and epoch.
  const augment = epoch === 0 ? {} : { augmentSeed: 1000 * epoch + rank, maxShift: Number(args['max-shift']) };
  const { xs, ys } = toTensors(train, sampler.indices(), geometry, augment);
  await model.fit(xs, ys, { initialEpoch: epoch, epochs: epoch + 1, batchSize, shuffle: false, verbose: 0, callbacks });
  tf.dispose([xs, ys]);
}
if (stopAfter < epochs) {
  say(`stopping after epoch ${stopAfter} as asked; run again with the same --checkpoint-dir to resume`);
  console.log(`rank ${rank} weights sha256 ${weightsHash()}`);
  await kolo.shutdown();
  process.exit(0);
}

// Held-out accuracy: every rank scores every size-th digit; the counts are summed.
const mine = test.map((_, i) => i).filter((i) => i % size === rank);
const { xs, ys } = toTensors(test, mine, geometry);
const correct = tf.tidy(() => tf.sum(tf.cast(tf.equal(tf.argMax(model.predict(xs), 1), tf.argMax(ys, 1)), 'float32')).dataSync()[0]);
const [right, total] = await kolo.allreduce(new Float64Array([correct, mine.length]), { op: 'sum' });
say(`held-out accuracy ${(right / total).toFixed(4)} (${right}/${total}) after ${((performance.now() - begin) / 1000).toFixed(1)} s of training`);
console.log(`rank ${rank} weights sha256 ${weightsHash()}`);
console.log(`RESULT ${JSON.stringify({ rank, key: 'mnist', value: { accuracy: right / total, seconds: (performance.now() - begin) / 1000, weights: weightsHash() } })}`);
await kolo.shutdown();
