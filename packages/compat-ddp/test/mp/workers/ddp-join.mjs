// DDP join() with uneven inputs on 2 ranks: rank r trains on 3 + 2r batches. Compares with a
// reference that replays every rank's batches in this process; prints `RESULT <json>` lines.
import * as tf from '@tensorflow/tfjs';
import * as dist from '@kolo/compat-ddp';

await tf.setBackend('cpu');
await dist.initProcessGroup();
const rank = dist.getRank();
const size = dist.getWorldSize();
const report = (key, value) => console.log(`RESULT ${JSON.stringify({ rank, key, value })}`);
const stepsOf = (r) => 3 + 2 * r;

const makeModel = () =>
  tf.sequential({ layers: [tf.layers.dense({ inputShape: [4], units: 5, activation: 'tanh', kernelInitializer: tf.initializers.glorotUniform({ seed: 7 }) }), tf.layers.dense({ units: 2, kernelInitializer: tf.initializers.glorotUniform({ seed: 8 }) })] });
const data = (r, step) => ({
  x: tf.tidy(() => tf.sin(tf.range(0, 12).add(r * 100 + step * 12).reshape([3, 4]))),
  y: tf.tidy(() => tf.cos(tf.range(0, 6).add(r * 50 + step * 6).reshape([3, 2]))),
});
const lossOf = (model, { x, y }) => () => tf.losses.meanSquaredError(y, model.apply(x));

async function run(divideByInitialWorldSize) {
  const ddp = await dist.DistributedDataParallel.create(makeModel());
  const opt = tf.train.sgd(0.2);
  await ddp.join(async () => {
    for (let step = 0; step < stepsOf(rank); step++) {
      await ddp.backward(lossOf(ddp.module, data(rank, step)));
      ddp.step(opt);
    }
  }, { divideByInitialWorldSize });
  // Reference: every step, the gradients of the ranks still training, divided as join divides.
  const reference = makeModel();
  const refOpt = tf.train.sgd(0.2);
  const vars = reference.trainableWeights.map((w) => w.read());
  const longest = Math.max(...Array.from({ length: size }, (_, r) => stepsOf(r)));
  for (let step = 0; step < longest; step++) {
    const active = Array.from({ length: size }, (_, r) => r).filter((r) => step < stepsOf(r));
    const grads = active.map((r) => tf.variableGrads(lossOf(reference, data(r, step)), vars).grads);
    const divisor = divideByInitialWorldSize ? size : active.length;
    refOpt.applyGradients(Object.fromEntries(Object.keys(grads[0]).map((k) => [k, tf.div(tf.addN(grads.map((g) => g[k])), divisor)])));
  }
  let worst = 0;
  ddp.module.weights.forEach((w, i) => {
    const a = w.read().dataSync();
    const b = reference.weights[i].read().dataSync();
    const scale = Math.max(...b.map(Math.abs));
    worst = Math.max(worst, Math.max(...a.map((v, j) => Math.abs(v - b[j]))) / scale);
  });
  report(`join.${divideByInitialWorldSize}.maxRelDiff`, worst);
}

await run(true);
await run(false);
// The group's request numbering is aligned again after the joins.
const after = new Int32Array([rank + 1]);
await dist.allReduce(after);
report('after', Array.from(after));
await dist.destroyProcessGroup();
