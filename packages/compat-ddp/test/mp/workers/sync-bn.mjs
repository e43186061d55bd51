// SyncBatchNorm.convertSyncBatchnorm on 2 ranks: the converted model's layers and weights, and
// its moving statistics after one training pass on half the batch per rank against a plain
// BatchNormalization on the whole batch. Prints `RESULT <json>` lines.
import * as tf from '@tensorflow/tfjs';
import * as dist from '@kolo/compat-ddp';

await tf.setBackend('cpu');
await dist.initProcessGroup();
const rank = dist.getRank();
const size = dist.getWorldSize();
const report = (key, value) => console.log(`RESULT ${JSON.stringify({ rank, key, value })}`);

const model = tf.sequential({
  layers: [
    tf.layers.dense({ inputShape: [3], units: 4, kernelInitializer: tf.initializers.glorotUniform({ seed: 3 }) }),
    tf.layers.batchNormalization({ momentum: 0.5 }),
    tf.layers.dense({ units: 2, kernelInitializer: tf.initializers.glorotUniform({ seed: 4 }) }),
  ],
});
const synced = await dist.SyncBatchNorm.convertSyncBatchnorm(model);
report('layers', synced.layers.map((l) => l.getClassName()));
report('weightsCopied', synced.getWeights().every((w, i) => tf.equal(w, model.getWeights()[i]).all().dataSync()[0] === 1));

const batch = tf.tidy(() => tf.sin(tf.range(0, 8 * 3).reshape([8, 3]).mul(0.7)));
const rows = 8 / size;
tf.tidy(() => synced.apply(batch.slice([rank * rows, 0], [rows, 3]), { training: true }));
tf.tidy(() => model.apply(batch, { training: true })); // plain BatchNormalization on the whole batch
const stats = (m) => m.layers[1].getWeights().slice(2).map((w) => Array.from(w.dataSync()));
const [mean, variance] = stats(synced);
const [refMean, refVariance] = stats(model);
const diff = (a, b) => Math.max(...a.map((v, i) => Math.abs(v - b[i])));
report('statsDiff', Math.max(diff(mean, refMean), diff(variance, refVariance)));
report('meanMoved', refMean.some((v) => v !== 0));
// What an unsynchronized layer would have recorded from this rank's half alone (momentum 0.5 from 0).
const halfMean = tf.tidy(() => Array.from(tf.moments(model.layers[0].apply(batch.slice([rank * rows, 0], [rows, 3])), 0).mean.mul(0.5).dataSync()));
report('halfDiff', diff(halfMean, refMean));

// DDP over the converted model: buffers (moving statistics) are broadcast before each backward.
const ddp = await dist.DistributedDataParallel.create(synced);
const opt = tf.train.sgd(0.1);
for (let step = 0; step < 2; step++) {
  const x = batch.slice([rank * rows, 0], [rows, 3]);
  await ddp.backward(() => tf.losses.meanSquaredError(tf.zeros([rows, 2]), ddp.forward(x)));
  ddp.step(opt);
}
let digest = 0;
for (const w of synced.getWeights()) w.dataSync().forEach((v, j) => (digest += v * ((j % 5) + 1)));
report('ddpDigest', digest);
await dist.destroyProcessGroup();
