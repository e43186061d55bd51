// Horovod's Keras MNIST example (examples/tensorflow2/tensorflow2_keras_mnist.py) in TensorFlow.js:
// the same steps under the same names, with a small dense model so that it runs in seconds.
//   node <launcher> -np 2 node examples/horovod-style/index.mjs [--epochs 4] [--train-samples 8000]
// Every rank ends by printing a RESULT line with the held-out accuracy and a hash of its weights.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs';
import * as hvd from '@kolo/compat-horovod/tfjs';

const { values: args } = parseArgs({
  options: {
    epochs: { type: 'string', default: '4' },
    'train-samples': { type: 'string' },
    'batch-size': { type: 'string', default: '32' },
    'checkpoint-dir': { type: 'string', default: join(tmpdir(), 'horovod-style-checkpoints') },
  },
});
const epochs = Number(args.epochs);
const batchSize = Number(args['batch-size']);

// Horovod: initialize Horovod.
await hvd.init();

// Real MNIST digits from the `mnist` package (10,000), split the same way on every rank: per
// digit, the first 80% train and the rest are held out.
function loadDigits(trainFraction = 0.8) {
  const mnist = createRequire(import.meta.url)('mnist');
  const train = [];
  const test = [];
  for (let digit = 0; digit < 10; digit++) {
    const count = mnist[digit].length;
    const cut = Math.floor(count * trainFraction);
    const asSample = (s) => ({ pixels: s.input, label: digit });
    train.push(...mnist[digit].set(0, cut).map(asSample));
    test.push(...mnist[digit].set(cut, count).map(asSample));
  }
  return { train, test };
}

/** `{ xs: [n, 784], ys: one-hot [n, 10] }` of `samples[indices]`. */
function toTensors(samples, indices) {
  const xs = new Float32Array(indices.length * 784);
  const ys = new Float32Array(indices.length * 10);
  indices.forEach((index, i) => {
    xs.set(samples[index].pixels, i * 784);
    ys[i * 10 + samples[index].label] = 1;
  });
  return { xs: tf.tensor2d(xs, [indices.length, 784]), ys: tf.tensor2d(ys, [indices.length, 10]) };
}

const { train: allTrain, test } = loadDigits();
// --train-samples N keeps N digits spread evenly over the training set (for quick runs).
const keep = Math.min(Number(args['train-samples'] ?? allTrain.length), allTrain.length);
const train = Array.from({ length: keep }, (_, i) => allTrain[Math.floor((i * allTrain.length) / keep)]);
// Horovod: each rank trains on its own shard (every size()-th digit), shuffled per rank. Shards
// are cut to equal lengths so that every rank takes the same number of steps.
const perRank = Math.floor(train.length / hvd.size());
const shard = Array.from({ length: perRank }, (_, i) => i * hvd.size() + hvd.rank());
const dataset = toTensors(train, shard);

const model = tf.sequential({
  layers: [
    tf.layers.dense({ inputShape: [784], units: 128, activation: 'relu' }),
    tf.layers.dropout({ rate: 0.25 }),
    tf.layers.dense({ units: 10, activation: 'softmax' }),
  ],
});

// Horovod: adjust learning rate based on number of workers.
const scaledLr = 0.001 * hvd.size();
// Horovod: add Horovod DistributedOptimizer.
const opt = new hvd.DistributedOptimizer(tf.train.adam(scaledLr), { backward_passes_per_step: 1 });
model.compile({ loss: 'categoricalCrossentropy', optimizer: opt, metrics: ['accuracy'] });

const callbacks = [
  // Horovod: broadcast initial variable states from rank 0 to all other processes. This is
  // necessary to ensure consistent initialization of all workers when training is started with
  // random weights or restored from a checkpoint.
  new hvd.callbacks.BroadcastGlobalVariablesCallback(0),
  // Horovod: average metrics among workers at the end of every epoch.
  new hvd.callbacks.MetricAverageCallback(),
  // Horovod: using `lr = 1.0 * hvd.size()` from the very beginning leads to worse final accuracy.
  // Scale the learning rate `lr = 1.0` ---> `lr = 1.0 * hvd.size()` during the first epoch.
  new hvd.callbacks.LearningRateWarmupCallback({ initialLr: scaledLr, warmupEpochs: 1, verbose: hvd.rank() === 0 ? 1 : 0 }),
];
// Horovod: save checkpoints only on worker 0 to prevent other workers from corrupting them.
if (hvd.rank() === 0) callbacks.push(new hvd.callbacks.CheckpointCallback({ directory: args['checkpoint-dir'] }));

// Horovod: write logs on worker 0.
const verbose = hvd.rank() === 0 ? 1 : 0;
const started = Date.now();
await model.fit(dataset.xs, dataset.ys, { batchSize, epochs, shuffle: true, callbacks, verbose });
tf.dispose([dataset.xs, dataset.ys]);

// Held-out accuracy: every rank scores every size()-th digit, and the counts are summed.
const mine = test.map((_, i) => i).filter((i) => i % hvd.size() === hvd.rank());
const held = toTensors(test, mine);
const correct = tf.tidy(() => tf.sum(tf.cast(tf.equal(tf.argMax(model.predict(held.xs), 1), tf.argMax(held.ys, 1)), 'float32')).dataSync()[0]);
const [right, total] = await hvd.allreduce(new Float64Array([correct, mine.length]), { op: hvd.Sum });
const accuracy = right / total;
const hash = createHash('sha256');
for (const t of model.getWeights()) {
  const data = t.dataSync();
  hash.update(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
}
const weights = hash.digest('hex').slice(0, 16);
if (verbose) console.log(`held-out accuracy ${accuracy.toFixed(4)} (${right}/${total}) after ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`RESULT ${JSON.stringify({ rank: hvd.rank(), key: 'horovod-style', value: { accuracy, weights } })}`);
await hvd.shutdown();
