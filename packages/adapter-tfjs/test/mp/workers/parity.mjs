// Parity: N ranks on batch B/N (DistributedOptimizer, SyncBatchNormalization) against one process
// on batch B, computed here on every rank with the plain tfjs optimizer and BatchNormalization.
import * as tf from '@tensorflow/tfjs';
import * as kolo from '@kolo/core';
import { DistributedOptimizer, SyncBatchNormalization } from '@kolo/adapter-tfjs';
import { difference, report } from './compare.mjs';

await kolo.init();
const rank = kolo.rank();
const size = kolo.size();
const B = 12;
const steps = 20;
const inputs = 6;

/** Batch `step` of `rows` rows: the same numbers in every process (seeded). */
function batch(step, rows) {
  return { x: tf.randomNormal([rows, inputs], 0, 1, 'float32', 1000 + step), y: tf.randomNormal([rows, 3], 0, 1, 'float32', 5000 + step) };
}
/** This rank's share of a batch: rows [r·n/size, (r+1)·n/size). */
function share(t) {
  const n = t.shape[0] / size;
  return t.slice([rank * n, 0], [n, t.shape[1]]);
}

function build(norm) {
  const layers = [tf.layers.dense({ inputShape: [inputs], units: 8, activation: 'tanh' })];
  if (norm === 'bn') layers.push(tf.layers.batchNormalization({ momentum: 0.8 }));
  if (norm === 'sync' || norm === 'sync-local') layers.push(new SyncBatchNormalization({ momentum: 0.8, commScope: norm === 'sync' ? 'global' : 'local' }));
  layers.push(tf.layers.dense({ units: 3 }));
  const model = tf.sequential({ layers });
  model.trainableWeights.forEach((w, i) => w.write(tf.randomNormal(w.shape, 0.1, 0.5, 'float32', 77 + i)));
  return model;
}

const loss = (model, x, y) => tf.losses.meanSquaredError(y, model.apply(x, { training: true }));
const optimizers = { sgd: () => tf.train.sgd(0.1), momentum: () => tf.train.momentum(0.05, 0.9), adam: () => tf.train.adam(0.01) };

/** Trains `steps` steps; each step runs `passes` backward passes on batches of `rows` rows. */
function train(model, optimizer, { rows, passes = 1, distributed }) {
  const vars = model.trainableWeights.map((w) => w.read());
  for (let s = 0; s < steps; s++) {
    for (let p = 0; p < passes; p++) {
      tf.tidy(() => {
        const { x, y } = batch(s * passes + p, rows);
        optimizer.minimize(() => (distributed ? loss(model, share(x), share(y)) : loss(model, x, y)), false, vars);
      });
    }
  }
  return model.getWeights();
}

for (const [name, make] of Object.entries(optimizers)) {
  const reference = train(build('none'), make(), { rows: B, distributed: false });
  const mine = train(build('none'), new DistributedOptimizer(make()), { rows: B, distributed: true });
  report(rank, `optimizer.${name}`, difference(mine, reference));
}

{
  // The non-blocking step() of custom loops, with Adam.
  const reference = train(build('none'), tf.train.adam(0.01), { rows: B, distributed: false });
  const model = build('none');
  const opt = new DistributedOptimizer(tf.train.adam(0.01));
  const vars = model.trainableWeights.map((w) => w.read());
  for (let s = 0; s < steps; s++) {
    const { x, y } = batch(s, B);
    const value = await opt.step(() => loss(model, share(x), share(y)), { varList: vars });
    tf.dispose([value, x, y]);
  }
  report(rank, 'step', difference(model.getWeights(), reference));
}

{
  // A gradient only rank 0 has: averaged with zeros from the others, the same on every rank.
  const a = tf.variable(tf.scalar(1));
  const b = tf.variable(tf.scalar(5));
  const opt = new DistributedOptimizer(tf.train.sgd(1));
  opt.minimize(() => (rank === 0 ? tf.add(a, b) : tf.mul(a, 1)), false, [a, b]);
  report(rank, 'partialNull', [a.arraySync(), b.arraySync()]);
}

{
  // backwardPassesPerStep 4: one step per 4 passes of batch B (split over ranks) == one step on 4B.
  const reference = (() => {
    const model = build('none');
    const opt = tf.train.adam(0.01);
    const vars = model.trainableWeights.map((w) => w.read());
    for (let s = 0; s < steps; s++) {
      tf.tidy(() => {
        const parts = [0, 1, 2, 3].map((p) => batch(s * 4 + p, B));
        const x = tf.concat(parts.map((b) => b.x));
        const y = tf.concat(parts.map((b) => b.y));
        opt.minimize(() => loss(model, x, y), false, vars);
      });
    }
    return model.getWeights();
  })();
  const mine = train(build('none'), new DistributedOptimizer(tf.train.adam(0.01), { backwardPassesPerStep: 4 }), { rows: B, passes: 4, distributed: true });
  report(rank, 'backwardPassesPerStep', difference(mine, reference));
}

for (const norm of ['sync', 'sync-local']) {
  const refModel = build('bn');
  const syncModel = build(norm);
  const { x, y } = batch(0, B);
  // Forward outputs in training mode (statistics of the whole batch). apply() also updates the
  // moving statistics once, identically in both models.
  const outputs = difference([syncModel.apply(share(x), { training: true })], [share(refModel.apply(x, { training: true }))]);
  // Gradients: weights (averaged over ranks, as the optimizer does) and the input (the summed
  // loss of all ranks is size × the full-batch mean loss).
  const refGrads = tf.grads((xx) => loss(refModel, xx, y))([x]);
  const refVarGrads = Object.values(tf.variableGrads(() => loss(refModel, x, y), refModel.trainableWeights.map((w) => w.read())).grads);
  const syncInputGrad = tf.grads((xx) => loss(syncModel, xx, share(y)))([share(x)])[0];
  const syncVarGrads = Object.values(tf.variableGrads(() => loss(syncModel, share(x), share(y)), syncModel.trainableWeights.map((w) => w.read())).grads);
  const averaged = syncVarGrads.map((g) => tf.tensor(kolo.allreduceSync(Float32Array.from(g.dataSync()), { op: 'average', name: 'test.grads' }), g.shape));
  const gradients = difference([...averaged, tf.div(syncInputGrad, size)], [...refVarGrads, share(refGrads[0])]);
  // 20 SGD steps: weights and moving statistics.
  const reference = train(refModel, tf.train.sgd(0.1), { rows: B, distributed: false });
  const mine = train(syncModel, new DistributedOptimizer(tf.train.sgd(0.1)), { rows: B, distributed: true });
  const moving = (ws) => ws.filter((_, i) => i >= 4 && i < 6);
  report(rank, `syncbn.${norm}`, {
    outputs,
    gradients,
    weights: difference(mine, reference),
    movingStatistics: difference(moving(mine), moving(reference)),
  });
}

await kolo.shutdown();
