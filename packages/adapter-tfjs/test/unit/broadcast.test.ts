import * as tf from '@tensorflow/tfjs';
import { init, shutdown } from '@kolo/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { broadcastModel, broadcastOptimizerState, broadcastVariables, canTransferState, pinGpuToLocalRank } from '../../src/index.js';

beforeAll(() => init());
afterAll(() => shutdown());

describe('broadcast helpers on one rank', () => {
  it('keep the values of variables of every dtype', async () => {
    const f = tf.variable(tf.tensor2d([[1.5, -2]]));
    const i = tf.variable(tf.tensor1d([7, 8], 'int32'));
    const b = tf.variable(tf.tensor1d([true, false], 'bool'));
    await broadcastVariables([f, i, b], 0);
    expect([f.arraySync(), i.arraySync(), b.arraySync()]).toEqual([[[1.5, -2]], [7, 8], [1, 0]]);
  });

  it('keep model weights, including non-trainable ones, and optimizer state', async () => {
    const model = tf.sequential({ layers: [tf.layers.dense({ inputShape: [2], units: 2 }), tf.layers.batchNormalization()] });
    const before = model.getWeights().map((t) => Array.from(t.dataSync()));
    await broadcastModel(model, 0);
    expect(model.getWeights().map((t) => Array.from(t.dataSync()))).toEqual(before);
    const sgd = tf.train.sgd(0.1);
    await broadcastOptimizerState(sgd, 0);
    expect(sgd.iterations).toBe(0);
  });

  it('reject bad arguments with the exact messages', async () => {
    await expect(broadcastVariables([tf.variable(tf.scalar(1))], 1)).rejects.toThrow('Expected an integer in [0, 0] for root but received 1');
    await expect(broadcastVariables([tf.scalar(1) as tf.Variable], 0)).rejects.toThrow('Expected a tf.Variable or LayerVariable for variables[0] but received an instance of Tensor');
    expect(() => broadcastModel({} as tf.LayersModel, 0)).toThrow('Expected a tfjs LayersModel (or Layer) for model but received an object');
    expect([canTransferState(tf.train.adamax(0.1)), canTransferState(tf.train.rmsprop(0.1))]).toEqual([false, true]);
  });
});

describe('pinGpuToLocalRank', () => {
  it('sets CUDA_VISIBLE_DEVICES to the local rank, or picks from a list already set', () => {
    const saved = process.env['CUDA_VISIBLE_DEVICES'];
    try {
      delete process.env['CUDA_VISIBLE_DEVICES'];
      expect([pinGpuToLocalRank(), process.env['CUDA_VISIBLE_DEVICES']]).toEqual(['0', '0']);
      process.env['CUDA_VISIBLE_DEVICES'] = '2,3';
      expect([pinGpuToLocalRank(), process.env['CUDA_VISIBLE_DEVICES']]).toEqual(['2', '2']);
    } finally {
      if (saved === undefined) delete process.env['CUDA_VISIBLE_DEVICES'];
      else process.env['CUDA_VISIBLE_DEVICES'] = saved;
    }
  });
});
