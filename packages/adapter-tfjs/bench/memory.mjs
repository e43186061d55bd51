// Memory worker of `npm run bench -- memory` (driver: drivers/memory.mjs): a small dense model
// (784-32-10) on fixed batches of real MNIST digits, DistributedOptimizer(SGD), trainOnBatch for
// KOLO_BENCH_STEPS steps; every KOLO_BENCH_EVERY steps each rank collects garbage (run node with
// --expose-gc) and prints RSS, heap, ArrayBuffer bytes, live tfjs tensors and open descriptors.
import { performance } from 'node:perf_hooks';
import * as tf from '@tensorflow/tfjs';
import * as kolo from '@kolo/core';
import { DistributedOptimizer } from '@kolo/adapter-tfjs';
import { mnistBatches, processSample } from './mnist-batches.mjs';

await tf.setBackend('cpu');
await kolo.init();
const rank = kolo.rank();
const size = kolo.size();
const steps = Number(process.env.KOLO_BENCH_STEPS ?? 10000);
const every = Number(process.env.KOLO_BENCH_EVERY ?? 1000);
const batches = mnistBatches({ rank, size, batch: 16, count: 8, im2col: false });
const model = tf.sequential({
  layers: [
    tf.layers.dense({ inputShape: [784], units: 32, activation: 'relu', kernelInitializer: tf.initializers.glorotUniform({ seed: 1 }) }),
    tf.layers.dense({ units: 10, activation: 'softmax', kernelInitializer: tf.initializers.glorotUniform({ seed: 2 }) }),
  ],
});
model.compile({ optimizer: new DistributedOptimizer(tf.train.sgd(0.05)), loss: 'categoricalCrossentropy' });
/** A full collection, twice around a macrotask so V8's ArrayBuffer sweeping has finished. */
async function collect() {
  globalThis.gc?.();
  await new Promise((resolve) => setTimeout(resolve, 20));
  globalThis.gc?.();
}

await collect();
const t0 = performance.now();
for (let step = 1; step <= steps; step += 1) {
  const { xs, ys } = batches[step % batches.length];
  const loss = await model.trainOnBatch(xs, ys);
  if (step % every === 0) {
    const seconds = (performance.now() - t0) / 1000;
    await collect();
    console.log(`BENCH ${JSON.stringify({ rank, step, loss, seconds, gc: typeof globalThis.gc === 'function', ...(await processSample()) })}`);
  }
}
await kolo.shutdown();
