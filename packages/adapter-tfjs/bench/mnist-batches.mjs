// Shared by the e2e and memory benches: fixed batches of real MNIST digits (the `mnist` package,
// through examples/tfjs-mnist's loader), each rank its own slice, built once so that the timed
// loops measure training only.
import * as tf from '@tensorflow/tfjs';
import { loadDigits, patchGeometry, toTensors } from '../../../examples/tfjs-mnist/data.mjs';

/** The example's 5x5 stride-2 convolution as im2col geometry. */
export const geometry = patchGeometry({ kernel: 5, stride: 2 });

/**
 * `count` batches `{ xs, ys }` of `batch` training digits for `rank` of `size`: im2col patches
 * for the example's convnet (`im2col: true`) or the raw 784 pixels.
 */
export function mnistBatches({ rank, size, batch, count, im2col = true }) {
  const { train } = loadDigits();
  return Array.from({ length: count }, (_, b) => {
    // Digits are grouped by label in `train`; a stride through it mixes all ten in every batch.
    const indices = Array.from({ length: batch }, (_, i) => ((((b * size + rank) * batch + i) * 7919) % train.length));
    if (im2col) return toTensors(train, indices, geometry);
    const xs = tf.tensor2d(indices.flatMap((i) => train[i].pixels), [batch, 784]);
    const ys = tf.oneHot(tf.tensor1d(indices.map((i) => train[i].label), 'int32'), 10).toFloat();
    return { xs, ys };
  });
}

/** Resident set size, JS heap, ArrayBuffer bytes (MiB), live tfjs tensors and open descriptors. */
export async function processSample() {
  const { readdirSync } = await import('node:fs');
  const m = process.memoryUsage();
  const mib = (b) => b / 1024 / 1024;
  return { rssMiB: mib(m.rss), heapMiB: mib(m.heapUsed), arrayBuffersMiB: mib(m.arrayBuffers), tensors: tf.memory().numTensors, fds: readdirSync('/proc/self/fd').length };
}
