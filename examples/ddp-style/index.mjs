// A PyTorch DDP training loop, in Node.js: DistributedSampler + DistributedDataParallel over a
// small tfjs MLP on real MNIST digits, rank-0 checkpoints each epoch, held-out evaluation at the
// end. Run it under kolorun (or anything that sets RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT):
//   node packages/launcher/dist/cli.js -np 2 node examples/ddp-style/index.mjs --epochs 3
//   node packages/launcher/dist/cli.js --nproc_per_node 2 node examples/ddp-style/index.mjs
// Options: --epochs (default 3), --train-samples N (default all 8,006), --batch-size (per rank,
// default 32), --lr (default 0.002), --seed (sampler seed, default 42), --init-seed (weights,
// default 1), --checkpoint-dir
// (default ./checkpoints next to this file).
import { createHash } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs';
import * as dist from '@kolo/compat-ddp';
import { loadDigits, subset, toTensors } from './data.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  options: {
    epochs: { type: 'string', default: '3' },
    'train-samples': { type: 'string' },
    'batch-size': { type: 'string', default: '32' },
    lr: { type: 'string', default: '0.002' },
    seed: { type: 'string', default: '42' },
    'init-seed': { type: 'string', default: '1' },
    'checkpoint-dir': { type: 'string', default: join(here, 'checkpoints') },
  },
});
const epochs = Number(args.epochs);
const batchSize = Number(args['batch-size']);
const checkpointDir = args['checkpoint-dir'];

// torch: dist.init_process_group("gloo", init_method="env://")
await dist.initProcessGroup({ backend: 'gloo', initMethod: 'env://' });
const rank = dist.getRank();
const worldSize = dist.getWorldSize();
const log = (line) => rank === 0 && console.log(line);

// The data: the same deterministic split on every rank; the sampler picks this rank's share.
const { train: allTrain, test } = loadDigits();
const train = subset(allTrain, args['train-samples'] === undefined ? undefined : Number(args['train-samples']));
const trainSet = toTensors(train);
const sampler = new dist.DistributedSampler(train.length, { seed: Number(args.seed) });

// The model: every rank builds it, each from a different seed (torch.manual_seed(seed + rank));
// DDP broadcasts rank 0's weights, so training starts from the same model everywhere.
const initSeed = Number(args['init-seed']) + rank;
const model = tf.sequential({
  layers: [
    tf.layers.dense({ inputShape: [784], units: 128, activation: 'relu', kernelInitializer: tf.initializers.glorotUniform({ seed: initSeed }) }),
    tf.layers.dense({ units: 10, kernelInitializer: tf.initializers.glorotUniform({ seed: initSeed + 1000 }) }),
  ],
});
const ddp = await dist.DistributedDataParallel.create(model);
const optimizer = tf.train.adam(Number(args.lr));
log(`DDP on ${worldSize} rank(s), backend ${dist.getBackend()}: ${train.length} training and ${test.length} held-out digits, batch ${batchSize} per rank, Adam lr ${args.lr}`);

/** sha256 of the model's weights, in order, as raw float32 bytes. */
function weightsHash() {
  const hash = createHash('sha256');
  for (const t of model.getWeights()) {
    const data = t.dataSync();
    hash.update(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  }
  return hash.digest('hex');
}

/** Rank 0 only: `<dir>/epoch-<n>/{model.json, weights.bin}`, written to a temp dir then renamed. */
async function saveCheckpoint(epoch) {
  const final = join(checkpointDir, `epoch-${epoch}`);
  const temp = join(checkpointDir, `.epoch-${epoch}.tmp-${process.pid}`);
  await mkdir(temp, { recursive: true });
  await model.save(
    tf.io.withSaveHandler(async (artifacts) => {
      const { weightData, ...rest } = artifacts;
      const bytes = Array.isArray(weightData) ? Buffer.concat(weightData.map((b) => Buffer.from(b))) : Buffer.from(weightData);
      await writeFile(join(temp, 'weights.bin'), bytes);
      const manifest = { modelTopology: rest.modelTopology, format: rest.format, generatedBy: rest.generatedBy, convertedBy: rest.convertedBy, weightsManifest: [{ paths: ['weights.bin'], weights: rest.weightSpecs }], epoch };
      await writeFile(join(temp, 'model.json'), JSON.stringify(manifest));
      return { modelArtifactsInfo: { dateSaved: new Date(), modelTopologyType: 'JSON' } };
    }),
  );
  await rm(final, { recursive: true, force: true });
  await rename(temp, final);
  return final;
}

for (let epoch = 0; epoch < epochs; epoch++) {
  sampler.setEpoch(epoch); // a new shuffle each epoch, the same on every rank
  const indices = sampler.indices();
  const started = performance.now();
  let lossSum = 0;
  let correct = 0;
  for (let start = 0; start < indices.length; start += batchSize) {
    const rows = tf.tensor1d(indices.slice(start, start + batchSize), 'int32');
    const x = tf.gather(trainSet.xs, rows);
    const y = tf.gather(trainSet.ys, rows);
    let logits;
    const loss = await ddp.backward(() => {
      const out = ddp.forward(x);
      logits = tf.keep(out);
      return tf.losses.softmaxCrossEntropy(y, out);
    });
    ddp.step(optimizer);
    const batchCorrect = tf.tidy(() => tf.sum(tf.cast(tf.equal(tf.argMax(logits, 1), tf.argMax(y, 1)), 'float32')).dataSync()[0]);
    lossSum += loss * rows.shape[0];
    correct += batchCorrect;
    tf.dispose([rows, x, y, logits]);
  }
  // Training loss and accuracy over every rank's samples: allReduce sums in place, as torch.
  const totals = new Float64Array([lossSum, correct, indices.length]);
  await dist.allReduce(totals);
  const seconds = (performance.now() - started) / 1000;
  if (rank === 0) {
    const saved = await saveCheckpoint(epoch + 1);
    log(`epoch ${epoch + 1}/${epochs}  loss ${(totals[0] / totals[2]).toFixed(4)}  accuracy ${(totals[1] / totals[2]).toFixed(4)}  (${seconds.toFixed(1)} s)  checkpoint ${saved}`);
  }
  await dist.barrier(); // the others wait for rank 0's checkpoint, as after torch.save on rank 0
}

// Held-out accuracy: each rank scores every worldSize-th test digit; the counts are summed.
const mine = test.map((_, i) => i).filter((i) => i % worldSize === rank);
const held = toTensors(test, mine);
const right = tf.tidy(() => tf.sum(tf.cast(tf.equal(tf.argMax(model.predict(held.xs), 1), tf.argMax(held.ys, 1)), 'float32')).dataSync()[0]);
tf.dispose([held.xs, held.ys, trainSet.xs, trainSet.ys]);
const counts = new Float64Array([right, mine.length]);
await dist.allReduce(counts);
const accuracy = counts[0] / counts[1];
log(`held-out accuracy ${accuracy.toFixed(4)} (${counts[0]}/${counts[1]})`);
console.log(`RESULT ${JSON.stringify({ rank, key: 'ddp', value: { accuracy, weights: weightsHash() } })}`);
await dist.destroyProcessGroup();
