// End-to-end worker of `npm run bench -- e2e` (driver: drivers/e2e.mjs): examples/tfjs-mnist's
// model on real MNIST digits, tfjs's pure-JS CPU backend, `model.trainOnBatch` on fixed batches.
// KOLO_BENCH_E2E_MODE=overhead: one process trains two identical models in alternating rounds,
// one with the plain Adam optimizer and one with DistributedOptimizer(Adam), and reports the
// median step time of each. KOLO_BENCH_E2E_MODE=throughput: every rank trains with
// DistributedOptimizer; rank 0 reports samples/s of the whole job (rounds timed between barriers).
import { performance } from 'node:perf_hooks';
import * as tf from '@tensorflow/tfjs';
import * as kolo from '@kolo/core';
import { DistributedOptimizer } from '@kolo/adapter-tfjs';
import { buildModel } from '../../../examples/tfjs-mnist/model.mjs';
import { median } from '../../core/bench/drivers/launch.mjs';
import { geometry, mnistBatches } from './mnist-batches.mjs';

await tf.setBackend('cpu');
await kolo.init();
const rank = kolo.rank();
const size = kolo.size();
const mode = process.env.KOLO_BENCH_E2E_MODE ?? 'throughput';
const batch = Number(process.env.KOLO_BENCH_BATCH ?? 32);
const steps = Number(process.env.KOLO_BENCH_STEPS ?? 20);
const rounds = Number(process.env.KOLO_BENCH_ROUNDS ?? 10);
const warmup = 5;
const batches = mnistBatches({ rank, size, batch, count: Math.min(steps, 20) });

function compiled(optimizer) {
  const model = buildModel(geometry);
  model.compile({ optimizer, loss: 'categoricalCrossentropy' });
  return model;
}

/** Milliseconds per step over `n` steps of `model`. */
async function train(model, n) {
  const t0 = performance.now();
  for (let i = 0; i < n; i += 1) {
    const { xs, ys } = batches[i % batches.length];
    await model.trainOnBatch(xs, ys);
  }
  return (performance.now() - t0) / n;
}

if (mode === 'overhead') {
  const plain = compiled(tf.train.adam(0.001));
  const distributed = compiled(new DistributedOptimizer(tf.train.adam(0.001)));
  await train(plain, warmup);
  await train(distributed, warmup);
  const plainMs = [];
  const distributedMs = [];
  // Alternating which goes first spreads the machine's load changes over both.
  for (let r = 0; r < rounds; r += 1) {
    if (r % 2 === 0) {
      plainMs.push(await train(plain, steps));
      distributedMs.push(await train(distributed, steps));
    } else {
      distributedMs.push(await train(distributed, steps));
      plainMs.push(await train(plain, steps));
    }
  }
  const row = { mode, np: size, batch, plainMs: median(plainMs), distributedMs: median(distributedMs) };
  row.overhead = row.distributedMs / row.plainMs - 1;
  if (rank === 0) console.log(`BENCH ${JSON.stringify(row)}`);
} else {
  const model = compiled(new DistributedOptimizer(tf.train.adam(0.001 * size)));
  await train(model, warmup);
  const rates = [];
  for (let r = 0; r < rounds; r += 1) {
    await kolo.barrier();
    const t0 = performance.now();
    await train(model, steps);
    await kolo.barrier();
    rates.push((size * batch * steps) / ((performance.now() - t0) / 1000));
  }
  const samplesPerSec = median(rates);
  if (rank === 0) console.log(`BENCH ${JSON.stringify({ mode, np: size, batch, samplesPerSec, stepMs: (1000 * size * batch) / samplesPerSec })}`);
}
await kolo.shutdown();
