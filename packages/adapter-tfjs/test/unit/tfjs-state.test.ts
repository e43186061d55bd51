import * as tf from '@tensorflow/tfjs';
import { init, shutdown } from '@kolo/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TfjsState } from '../../src/index.js';

beforeAll(() => init());
afterAll(() => shutdown());

const weightsOf = (model: tf.LayersModel): number[][] => model.getWeights().map((t) => Array.from(t.dataSync()));

describe('TfjsState on one rank', () => {
  it('restores the committed weights and values after later updates', async () => {
    const model = tf.sequential({ layers: [tf.layers.dense({ inputShape: [2], units: 1, kernelInitializer: 'ones', biasInitializer: 'zeros' })] });
    const state = new TfjsState(model, { values: { epoch: 0, seen: [] as number[] } });
    model.setWeights([tf.tensor2d([[2], [3]]), tf.tensor1d([0.5])]);
    state.values.epoch = 1;
    state.values.seen.push(1);
    state.commit();
    model.compile({ optimizer: tf.train.sgd(0.5), loss: 'meanSquaredError' });
    await model.fit(tf.tensor2d([[1, 1]]), tf.tensor2d([[0]]), { epochs: 1, verbose: 0 });
    state.values.epoch = 2;
    state.values.seen.push(2);
    expect(weightsOf(model)).not.toEqual([[2, 3], [0.5]]);
    state.restore();
    expect(weightsOf(model)).toEqual([[2, 3], [0.5]]);
    expect(state.values).toEqual({ epoch: 1, seen: [1] });
    // A second restore still has the commit: restoring hands the model copies, not the saved tensors.
    await model.fit(tf.tensor2d([[1, 1]]), tf.tensor2d([[0]]), { epochs: 1, verbose: 0 });
    state.restore();
    expect(weightsOf(model)).toEqual([[2, 3], [0.5]]);
  });

  it('sync keeps one rank as it is and commits it', async () => {
    const model = tf.sequential({ layers: [tf.layers.dense({ inputShape: [1], units: 1, kernelInitializer: 'ones', biasInitializer: 'ones' })] });
    const optimizer = tf.train.adam(0.1);
    const state = new TfjsState(model, { optimizer, values: { step: 7 } });
    await state.sync();
    expect(weightsOf(model)).toEqual([[1], [1]]);
    model.setWeights([tf.tensor2d([[5]]), tf.tensor1d([6])]);
    state.restore();
    expect([weightsOf(model), state.values]).toEqual([[[1], [1]], { step: 7 }]);
  });

  it('refuses something that is not a model, with the exact message', () => {
    expect(() => new TfjsState({} as tf.LayersModel)).toThrow('Expected a tfjs LayersModel for model but received an object');
  });
});
