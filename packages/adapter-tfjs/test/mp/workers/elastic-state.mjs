// Elastic tfjs training with TfjsState: every step trains on rank-specific data through the
// DistributedOptimizer and commits. Worker 2 SIGKILLs itself at step 5; the survivors restore
// the last commit, re-rendezvous as 2 ranks and finish 12 steps with identical weights.
import * as tf from '@tensorflow/tfjs';
import * as kolo from '@kolo/core';
import { DistributedOptimizer, TfjsState } from '@kolo/adapter-tfjs';
import { hashTensors } from './compare.mjs';

const workerId = process.env.KOLO_WORKER_ID;
const report = (key, value) => console.log(`RESULT ${JSON.stringify({ rank: Number(workerId), key, value })}`);
await kolo.init({ timeoutMs: 20_000 });
// Different initial weights per worker: the first sync must replace them with rank 0's.
const model = tf.sequential({ layers: [tf.layers.dense({ inputShape: [4], units: 2, kernelInitializer: tf.initializers.glorotNormal({ seed: Number(workerId) + 1 }) })] });
const optimizer = new DistributedOptimizer(tf.train.adam(0.05));
model.compile({ optimizer, loss: 'meanSquaredError' });
const state = new TfjsState(model, { optimizer, values: { step: 0 } });
let attempts = 0;
await kolo.elastic.run(async (s) => {
  attempts += 1;
  report(`start.${attempts}`, { step: s.values.step, size: kolo.size(), weights: hashTensors(model.getWeights()) });
  while (s.values.step < 12) {
    if (workerId === '2' && s.values.step === 5) process.kill(process.pid, 'SIGKILL');
    const r = kolo.rank();
    const xs = tf.tensor2d([[r, 1, s.values.step, 2]]);
    const ys = tf.tensor2d([[1, r]]);
    await model.trainOnBatch(xs, ys);
    tf.dispose([xs, ys]);
    s.values.step += 1;
    s.commit();
  }
}, state, { initOptions: { timeoutMs: 20_000 } });
report('final', { step: state.values.step, size: kolo.size(), attempts, weights: hashTensors(model.getWeights()) });
await kolo.shutdown();
