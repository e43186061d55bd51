// 20 training steps with a global batch of 32 rows split evenly across the ranks, for each
// optimizer. Every rank writes its final weights to $KOLO_TEST_OUT/np<size>-<optimizer>-r<rank>.bin.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as kolo from '@kolo/core';
import { DistributedTrainer } from '@kolo/adapter-onnx';
import { Tensor } from 'onnxruntime-node';
import { dataset, fixtures, labels, reporter, sessionOptions } from './common.mjs';

await kolo.init();
const rank = kolo.rank();
const size = kolo.size();
const report = reporter(rank);
const globalBatch = 32;
const local = globalBatch / size;
const rowsInData = 64;
const x = dataset(rowsInData);
const y = labels(rowsInData);

function batch(step) {
  const rows = Array.from({ length: local }, (_, i) => (step * globalBatch + rank * local + i) % rowsInData);
  const xs = new Float32Array(local * 784);
  const ys = new Float32Array(local * 10);
  rows.forEach((row, i) => {
    xs.set(x.subarray(row * 784, (row + 1) * 784), i * 784);
    ys.set(y.subarray(row * 10, (row + 1) * 10), i * 10);
  });
  return { x: new Tensor('float32', xs, [local, 784]), y: new Tensor('float32', ys, [local, 10]) };
}

const optimizers = [
  { type: 'sgd', learningRate: 0.1 },
  { type: 'momentum', learningRate: 0.05, momentum: 0.9, nesterov: true },
  { type: 'adam', learningRate: 0.003 },
];
for (const optimizer of optimizers) {
  const trainer = await DistributedTrainer.create({
    trainingModel: fixtures.train, initialWeights: fixtures.infer, optimizer, sessionOptions, name: optimizer.type,
  });
  const losses = [];
  for (let step = 0; step < 20; step++) losses.push((await trainer.step(batch(step))).loss);
  const flat = Float32Array.from(trainer.weights().flatMap((w) => Array.from(w.data)));
  writeFileSync(join(process.env.KOLO_TEST_OUT, `np${size}-${optimizer.type}-r${rank}.bin`), flat);
  report(`losses.${optimizer.type}`, losses);
  await trainer.release();
}
await kolo.shutdown();
