import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { init, shutdown } from '@kolo/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SyncBatchNormalization, fileSystemHandler } from '../../src/index.js';

beforeAll(() => init());
afterAll(() => shutdown());

const close = (a: number[], b: number[]): number => Math.max(...a.map((v, i) => Math.abs(v - (b[i] as number)) / Math.max(Math.abs(b[i] as number), 1e-3)));

/**
 * Output, input gradient, weight gradients and moving statistics after 3 training calls of
 * `layer` on `x`; with `channelsLast`, the layer sees `x` transposed from NCHW to NHWC and its
 * output is transposed back (tfjs's BatchNormalization cannot differentiate with axis 1).
 */
function probe(layer: tf.layers.Layer, x: tf.Tensor, options: { channelsLast?: boolean } = {}): number[][] {
  const toLayer = (t: tf.Tensor) => (options.channelsLast ? tf.transpose(t, [0, 2, 3, 1]) : t);
  const fromLayer = (t: tf.Tensor) => (options.channelsLast ? tf.transpose(t, [0, 3, 1, 2]) : t);
  layer.build(toLayer(x).shape);
  const c = layer.getWeights()[0]?.shape[0] as number;
  layer.setWeights([tf.linspace(1, 2, c), tf.linspace(-0.5, 0.5, c), tf.zeros([c]), tf.ones([c])]);
  const w = tf.randomNormal(x.shape, 0, 1, 'float32', 3);
  const forward = (input: tf.Tensor) => fromLayer(layer.apply(toLayer(input), { training: true }) as tf.Tensor);
  const loss = (input: tf.Tensor) => tf.sum(tf.mul(forward(input), w)) as tf.Scalar;
  const y = forward(x);
  const dx = tf.grad(loss)(x);
  const { grads } = tf.variableGrads(() => loss(x), layer.trainableWeights.map((v) => v.read() as tf.Variable));
  return [y, dx, ...Object.values(grads), ...layer.getWeights().slice(2)].map((t) => Array.from(t.dataSync()));
}

describe('SyncBatchNormalization on one rank', () => {
  it('matches BatchNormalization (channels last): outputs, gradients, moving statistics', () => {
    const x = tf.randomNormal([6, 3, 4], 1, 2, 'float32', 7);
    const expected = probe(tf.layers.batchNormalization({ momentum: 0.5 }), x);
    const actual = probe(new SyncBatchNormalization({ momentum: 0.5 }), x);
    expect(actual.map((a, i) => close(a, expected[i] as number[]) <= 1e-5)).toEqual(expected.map(() => true));
  });

  it('normalizes axis 1 of NCHW input as BatchNormalization does NHWC input', () => {
    const x = tf.randomNormal([4, 3, 2, 2], 1, 2, 'float32', 7);
    const expected = probe(tf.layers.batchNormalization({ momentum: 0.5 }), x, { channelsLast: true });
    const actual = probe(new SyncBatchNormalization({ axis: 1, momentum: 0.5 }), x);
    expect(actual.map((a, i) => close(a, expected[i] as number[]) <= 1e-5)).toEqual(expected.map(() => true));
  });

  it('uses the moving statistics outside training, as BatchNormalization does', () => {
    const x = tf.randomNormal([5, 3], 0, 1, 'float32', 11);
    const sync = new SyncBatchNormalization();
    const plain = tf.layers.batchNormalization();
    for (const layer of [sync, plain]) {
      layer.build(x.shape);
      layer.setWeights([tf.tensor1d([1, 2, 3]), tf.tensor1d([0, 1, 2]), tf.tensor1d([0.5, 0, -1]), tf.tensor1d([4, 1, 0.25])]);
    }
    expect(Array.from((sync.apply(x) as tf.Tensor).dataSync())).toEqual(Array.from((plain.apply(x) as tf.Tensor).dataSync()));
  });

  it('saves with its commScope and loads back as a SyncBatchNormalization', async () => {
    const model = tf.sequential({ layers: [tf.layers.dense({ inputShape: [3], units: 2 }), new SyncBatchNormalization({ commScope: 'local', momentum: 0.7 })] });
    const directory = await mkdtemp(join(tmpdir(), 'kolo-syncbn-'));
    await model.save(fileSystemHandler(directory));
    const loaded = await tf.loadLayersModel(fileSystemHandler(directory));
    const layer = loaded.layers[1] as SyncBatchNormalization;
    expect([layer.getClassName(), layer.commScope, layer.getConfig()['momentum'], layer instanceof SyncBatchNormalization]).toEqual([
      'SyncBatchNormalization',
      'local',
      0.7,
      true,
    ]);
    expect(loaded.getWeights().map((t) => Array.from(t.dataSync()))).toEqual(model.getWeights().map((t) => Array.from(t.dataSync())));
  });

  it('rejects an unknown commScope with the exact message', () => {
    expect(() => new SyncBatchNormalization({ commScope: 'host' as 'local' })).toThrow(
      "Expected one of 'global', 'local' for commScope but received 'host'",
    );
  });
});
