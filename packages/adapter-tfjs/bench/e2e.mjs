// End-to-end worker of `npm run bench -- e2e` (driver: drivers/e2e.mjs): examples/tfjs-mnist's
// model on real MNIST digits, tfjs's pure-JS CPU backend, `model.trainOnBatch` on fixed batches.
// KOLO_BENCH_E2E_MODE=overhead: one process trains two identical models step by step in
// alternation, one with the plain Adam optimizer and one with DistributedOptimizer(Adam), and
// reports the median wall and CPU time (all threads, so the engine's too) of a step of each.
// KOLO_BENCH_E2E_MODE=throughput: every rank trains with DistributedOptimizer; rank 0 reports
// samples/s of the whole job (rounds timed between barriers) and its median CPU time per step.
// KOLO_BENCH_E2E_MODE=independent: the same rounds, but every rank trains with the plain Adam
// and exchanges nothing (only the barriers around each round): what the machine itself allows
// N processes of this model, the ceiling of any data-parallel scaling on it.
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

/**
 * Milliseconds per step over `n` steps of `model`; CPU milliseconds of each step into `cpuMs`,
 * wall milliseconds of each into `wallMs`.
 */
async function train(model, n, cpuMs = [], wallMs = []) {
  const t0 = performance.now();
  for (let i = 0; i < n; i += 1) {
    const { xs, ys } = batches[i % batches.length];
    const c0 = process.cpuUsage();
    const w0 = performance.now();
    await model.trainOnBatch(xs, ys);
    wallMs.push(performance.now() - w0);
    const c = process.cpuUsage(c0);
    cpuMs.push((c.user + c.system) / 1000);
  }
  return (performance.now() - t0) / n;
}

/** Standard deviation of a non-empty array of numbers. */
function deviation(values) {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length);
}

if (mode === 'overhead') {
  const plain = compiled(tf.train.adam(0.001));
  const distributed = compiled(new DistributedOptimizer(tf.train.adam(0.001)));
  await train(plain, warmup);
  await train(distributed, warmup);
  const [plainMs, distributedMs, plainCpuMs, distributedCpuMs] = [[], [], [], []];
  // Single steps in alternation (and alternating which goes first), so that the machine's load
  // changes fall on both alike; medians drop the steps that lost the CPU to other processes.
  for (let i = 0; i < rounds * steps; i += 1) {
    if (i % 2 === 0) {
      plainMs.push(await train(plain, 1, plainCpuMs));
      distributedMs.push(await train(distributed, 1, distributedCpuMs));
    } else {
      distributedMs.push(await train(distributed, 1, distributedCpuMs));
      plainMs.push(await train(plain, 1, plainCpuMs));
    }
  }
  const row = { mode, np: size, batch, plainMs: median(plainMs), distributedMs: median(distributedMs), plainCpuMs: median(plainCpuMs), distributedCpuMs: median(distributedCpuMs) };
  row.overhead = row.distributedMs / row.plainMs - 1;
  // Each pair's own ratio (its two steps back to back), then their median: the machine's
  // stretches of fast and slow steps then fall on both sides of each ratio.
  row.pairedOverhead = median(distributedMs.map((d, i) => d / plainMs[i])) - 1;
  row.cpuOverhead = row.distributedCpuMs / row.plainCpuMs - 1;
  if (rank === 0) console.log(`BENCH ${JSON.stringify(row)}`);
} else {
  const optimizer = mode === 'independent' ? tf.train.adam(0.001) : new DistributedOptimizer(tf.train.adam(0.001 * size));
  const model = compiled(optimizer);
  await train(model, warmup);
  const rates = [];
  const cpuMs = [];
  const wallMs = [];
  for (let r = 0; r < rounds; r += 1) {
    await kolo.barrier();
    const t0 = performance.now();
    await train(model, steps, cpuMs, wallMs);
    await kolo.barrier();
    rates.push((size * batch * steps) / ((performance.now() - t0) / 1000));
  }
  const samplesPerSec = median(rates);
  if (rank === 0) console.log(`BENCH ${JSON.stringify({ mode, np: size, batch, samplesPerSec, stepMs: (1000 * size * batch) / samplesPerSec, cpuMs: median(cpuMs), stepSdMs: deviation(wallMs) })}`);
}
await kolo.shutdown();
