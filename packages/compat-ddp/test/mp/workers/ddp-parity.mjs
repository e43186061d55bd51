// DDP parity: N ranks on batch B/N against one model trained on batch B in this process with
// tf.variableGrads + optimizer.applyGradients; noSync accumulation; unused parameters. Prints
// `RESULT <json>` lines for the test.
import * as tf from '@tensorflow/tfjs';
import * as dist from '@kolo/compat-ddp';

await tf.setBackend('cpu');
await dist.initProcessGroup({ backend: 'gloo' });
const rank = dist.getRank();
const size = dist.getWorldSize();
const report = (key, value) => console.log(`RESULT ${JSON.stringify({ rank, key, value })}`);
const BATCH = 12;
const STEPS = 20;

function makeModel(seed, hidden = 512) {
  const init = (s) => tf.initializers.glorotUniform({ seed: s });
  return tf.sequential({
    layers: [
      tf.layers.dense({ inputShape: [6], units: hidden, activation: 'tanh', kernelInitializer: init(seed), biasInitializer: 'zeros' }),
      // With hidden 512, 512 x 512 float32 = 1 MiB: the first bucket closes on it, so the gradients span three buckets.
      tf.layers.dense({ units: hidden, activation: 'tanh', kernelInitializer: init(seed + 1), biasInitializer: 'zeros' }),
      tf.layers.dense({ units: 3, kernelInitializer: init(seed + 2), biasInitializer: tf.initializers.constant({ value: 0.1 }) }),
    ],
  });
}

/** Batch `step`: BATCH rows of deterministic inputs and targets. */
function batch(step) {
  const x = tf.tidy(() => tf.sin(tf.range(step * BATCH * 6, (step + 1) * BATCH * 6).reshape([BATCH, 6]).mul(0.37)));
  const y = tf.tidy(() => tf.cos(tf.range(step * BATCH * 3, (step + 1) * BATCH * 3).reshape([BATCH, 3]).mul(0.11)));
  return { x, y };
}
const rows = (t, from, count) => t.slice([from, 0], [count, t.shape[1]]);
const mse = (model, x, y) => () => tf.losses.meanSquaredError(y, model.apply(x, { training: true }));

/** Max over weight tensors of max|a - b| / max|b|: the relative difference of each tensor. */
function maxRelDiff(a, b) {
  let worst = 0;
  a.weights.forEach((w, i) => {
    const u = w.read().dataSync();
    const v = b.weights[i].read().dataSync();
    let diff = 0;
    let scale = 0;
    u.forEach((x, j) => {
      diff = Math.max(diff, Math.abs(x - v[j]));
      scale = Math.max(scale, Math.abs(v[j]));
    });
    worst = Math.max(worst, scale === 0 ? diff : diff / scale);
  });
  return worst;
}

/** A checksum of every weight: equal on every rank when the ranks hold identical weights. */
function digest(model) {
  let sum = 0;
  for (const w of model.weights) w.read().dataSync().forEach((v, j) => (sum += v * ((j % 7) + 1)));
  return sum;
}

/** One reference step on `micro` consecutive micro-batches of the whole batch (gradients summed). */
function referenceStep(model, optimizer, x, y, micro) {
  const vars = model.trainableWeights.map((w) => w.read());
  let sum;
  for (let m = 0; m < micro; m++) {
    // Micro-batch m is every rank's m-th local slice, so it matches the ranks' data exactly.
    const parts = Array.from({ length: size }, (_, r) => [rows(x, (r * BATCH) / size + (m * BATCH) / size / micro, BATCH / size / micro), rows(y, (r * BATCH) / size + (m * BATCH) / size / micro, BATCH / size / micro)]);
    const mx = tf.concat(parts.map((p) => p[0]));
    const my = tf.concat(parts.map((p) => p[1]));
    const { grads } = tf.variableGrads(mse(model, mx, my), vars);
    sum = sum === undefined ? grads : Object.fromEntries(Object.entries(sum).map(([k, g]) => [k, tf.add(g, grads[k])]));
  }
  optimizer.applyGradients(sum);
}

async function parity(label, makeOptimizer, micro, hidden) {
  const started = Date.now();
  const reference = makeModel(1, hidden);
  const model = makeModel(rank === 0 ? 1 : 100 + rank, hidden); // other ranks start elsewhere: DDP must broadcast rank 0's weights
  const ddp = await dist.DistributedDataParallel.create(model, { bucketCapMb: 0.001 });
  report(`${label}.initEqual`, maxRelDiff(model, reference));
  const checkReference = rank === 0; // one reference is enough; the others only train
  const refOpt = makeOptimizer();
  const opt = makeOptimizer();
  for (let step = 0; step < STEPS; step++) {
    const { x, y } = batch(step);
    if (checkReference) referenceStep(reference, refOpt, x, y, micro);
    const local = BATCH / size / micro;
    for (let m = 0; m < micro; m++) {
      const mx = rows(x, rank * (BATCH / size) + m * local, local);
      const my = rows(y, rank * (BATCH / size) + m * local, local);
      const run = () => ddp.backward(mse(model, mx, my));
      if (m < micro - 1) await ddp.noSync(run);
      else await run();
    }
    ddp.step(opt);
  }
  if (checkReference) report(`${label}.maxRelDiff`, maxRelDiff(model, reference));
  report(`${label}.digest`, digest(model));
  report(`${label}.buckets`, ddp.bucketIndices);
  console.error(`${label}: ${Date.now() - started} ms`);
}

await parity('sgd', () => tf.train.sgd(0.1), 1, 512);
await parity('adam', () => tf.train.adam(0.01), 1, 512);
await parity('noSync.sgd', () => tf.train.sgd(0.1), 2, 16);
await parity('noSync.adam', () => tf.train.adam(0.01), 2, 16);

// A parameter without a gradient: torch's error, unless findUnusedParameters.
const { x, y } = batch(0);
const unusedLoss = (model) => () => tf.losses.meanSquaredError(tf.zeros([BATCH, 16]), model.layers[0].apply(x));
const strict = await dist.DistributedDataParallel.create(makeModel(1, 16));
try {
  await strict.backward(unusedLoss(strict.module));
  report('unused.strict', 'no error');
} catch (error) {
  report('unused.strict', { name: error.name, code: error.code, message: error.message });
}
const tolerant = await dist.DistributedDataParallel.create(makeModel(1, 16), { findUnusedParameters: true });
const unusedLayers = tolerant.module.layers.slice(1);
const before = unusedLayers.flatMap((l) => l.getWeights()).map((w) => Array.from(w.dataSync()));
await tolerant.backward(unusedLoss(tolerant.module));
report('unused.tolerant.gradNames', Object.keys(tolerant.grads).length);
tolerant.step(tf.train.sgd(0.1));
report('unused.tolerant.unchanged', unusedLayers.flatMap((l) => l.getWeights()).every((w, i) => Array.from(w.dataSync()).every((v, j) => v === before[i][j])));
void y;
await dist.destroyProcessGroup();
