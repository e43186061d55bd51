// Acceptance 2: 20 steps with the optimizer on the kvstore (plain arrays) and with the tfjs
// Trainer (update on kvstore, and allreduceGrads + update), each against one worker training on
// the full batch. Reports weights; kvstore-training.test.ts compares them.
import * as tf from '@tensorflow/tfjs';
import * as kv from '@kolo/compat-kvstore/tfjs';
import * as f from './fixtures.mjs';

const dist = await kv.create('dist_sync_kolo');
const { rank, numWorkers: size } = dist;
const report = (key, value) => console.log(`RESULT ${JSON.stringify({ rank, key, value })}`);
const steps = 20;

/** Gradient of sum((x . w - y)^2) over `rows`. */
function linearGrad(w, rows) {
  const g = new Float32Array(w.length);
  for (const i of rows) {
    const x = f.xRow(i);
    const err = x.reduce((s, v, j) => s + v * w[j], 0) - f.yOf(i);
    x.forEach((v, j) => (g[j] += 2 * err * v));
  }
  return g;
}

async function trainLinear(store, rows, w0) {
  store.setOptimizer(new kv.SGD({ learningRate: 0.01, momentum: 0.9, rescaleGrad: 1 / f.batch }));
  const w = new Float32Array(f.features);
  await store.init(0, Float32Array.from(w0));
  await store.pull(0, { out: w });
  for (let s = 0; s < steps; s++) await store.pushpull(0, linearGrad(w, rows), { out: w });
  return Array.from(w);
}
const linearW0 = (r) => f.xRow(r + 3);
report('linear', {
  dist: await trainLinear(dist, f.shardRows(rank, size), linearW0(rank)),
  single: await trainLinear(await kv.create('local'), f.allRows, linearW0(0)),
});

function network(r) {
  const w = f.initialWeights(r);
  return [tf.variable(tf.tensor2d(w.w1, [f.features, 4])), tf.variable(tf.tensor1d(w.b1)), tf.variable(tf.tensor2d(w.w2, [4, 1])), tf.variable(tf.tensor1d(w.b2))];
}
const lossOf = ([w1, b1, w2, b2], rows) => () => {
  const x = tf.tensor2d(rows.map(f.xRow));
  const y = tf.tensor2d(rows.map((i) => [f.yOf(i)]));
  return tf.relu(x.matMul(w1).add(b1)).matMul(w2).add(b2).sub(y).square().sum();
};

async function trainNetwork(vars, rows, optimizer, options, split) {
  const trainer = new kv.Trainer(vars, optimizer, options);
  // Rank 0's weights everywhere before the first gradient (gluon would only sync at step 1).
  await trainer.setup();
  for (let s = 0; s < steps; s++) {
    trainer.backward(lossOf(vars, rows));
    if (split) {
      await trainer.allreduceGrads();
      await trainer.update(f.batch);
    } else {
      await trainer.step(f.batch);
    }
  }
  return { weights: vars.flatMap((v) => Array.from(v.dataSync())), updateOnKvstore: trainer.updateOnKvstore };
}
const sgd = { learningRate: 0.02, momentum: 0.5 };
report('trainer.onKvstore', {
  dist: await trainNetwork(network(rank), f.shardRows(rank, size), 'sgd', { kvstore: 'dist_sync_kolo', optimizerParams: sgd }, false),
  single: await trainNetwork(network(0), f.allRows, 'sgd', { kvstore: null, optimizerParams: sgd }, false),
});
const store2 = await kv.create('dist_sync_kolo');
report('trainer.split', {
  dist: await trainNetwork(network(rank), f.shardRows(rank, size), new kv.Adam({ learningRate: 0.01 }), { kvstore: store2, updateOnKvstore: false }, true),
  single: await trainNetwork(network(0), f.allRows, new kv.Adam({ learningRate: 0.01 }), { kvstore: null }, true),
});
report('trainer.horovod', {
  dist: await trainNetwork(network(rank), f.shardRows(rank, size), 'sgd', { kvstore: 'horovod', optimizerParams: sgd }, false),
  single: await trainNetwork(network(0), f.allRows, 'sgd', { kvstore: null, optimizerParams: sgd }, false),
});
await kv.shutdown();
