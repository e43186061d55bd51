import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import * as kv from '../../src/tfjs/index.js';

const arr = (t: tf.Tensor) => Array.from(t.dataSync());

describe('tfjs values in a store', () => {
  it('pushes tensors and pulls into variables, LayerVariables and TypedArrays', async () => {
    const store = await kv.create('local');
    await store.init(0, tf.tensor2d([1, 2, 3, 4], [2, 2]));
    await store.push(0, [tf.tensor2d([1, 1, 1, 1], [2, 2]), tf.ones([2, 2])]);
    const variable = tf.variable(tf.zeros([2, 2]));
    const layer = tf.layers.dense({ units: 2, inputShape: [2], useBias: false });
    tf.sequential({ layers: [layer] });
    const out = new Float32Array(4);
    await store.pull(0, { out: [variable, layer.trainableWeights[0]!, out] });
    expect([arr(variable), arr(layer.getWeights()[0]!), Array.from(out)]).toEqual([
      [2, 2, 2, 2],
      [2, 2, 2, 2],
      [2, 2, 2, 2],
    ]);
  });

  it('keeps the tensor shape for rowSparsePull', async () => {
    const store = await kv.create('local');
    await store.init('emb', tf.tensor2d([1, 2, 3, 4, 5, 6], [3, 2]));
    const rows = tf.variable(tf.zeros([3, 2]));
    await store.rowSparsePull('emb', { out: rows, rowIds: [1] });
    expect(arr(rows)).toEqual([0, 0, 3, 4, 0, 0]);
  });

  it('refuses immutable tensors and mismatched variables as outputs', async () => {
    const store = await kv.create('local');
    await store.init(0, tf.tensor1d([1, 2]));
    expect(() => store.pull(0, { out: tf.tensor1d([0, 0]) })).toThrow(
      expect.objectContaining({ message: 'Expected a TypedArray, tf.Variable or LayerVariable (tensors are immutable) for out of key 0 but received an instance of Tensor' }),
    );
    expect(() => store.pull(0, { out: tf.variable(tf.zeros([3])) })).toThrow(
      expect.objectContaining({ message: "Expected a float32 variable of 2 elements for out of key 0 but received 'float32 variable of shape [3]'" }),
    );
    expect(() => store.push(0, tf.tensor1d(['a', 'b'] as never, 'string'))).toThrow(
      expect.objectContaining({ message: "Expected a float32 or int32 tensor for value of key 0 but received 'string tensor'" }),
    );
  });
});

describe('the tfjs Trainer', () => {
  it('backward computes the summed-loss gradient; step(batchSize) averages it', async () => {
    const w = tf.variable(tf.tensor1d([1, -1]));
    const trainer = new kv.Trainer([w], 'sgd', { kvstore: null, optimizerParams: { learningRate: 0.5 } });
    const x = tf.tensor2d([1, 0, 0, 2], [2, 2]);
    // loss = sum((x w)^2) = w0^2 + 4 w1^2; gradient (2 w0, 8 w1) = (2, -8)
    const loss = trainer.backward(() => x.matMul(w.reshape([2, 1])).square().sum() as tf.Scalar);
    expect([loss, Array.from(trainer.grads[0]!)]).toEqual([5, [2, -8]]);
    await trainer.step(2);
    expect(arr(w)).toEqual([0.5, 1]);
  });

  it('trains model.trainableWeights through a local store with update on kvstore', async () => {
    const model = tf.sequential({ layers: [tf.layers.dense({ units: 1, inputShape: [1], kernelInitializer: 'ones', biasInitializer: 'zeros' })] });
    const store = await kv.create('local');
    const trainer = new kv.Trainer(model.trainableWeights, new kv.SGD({ learningRate: 0.25 }), { kvstore: store, updateOnKvstore: true });
    const x = tf.tensor2d([[1], [3]]);
    trainer.backward(() => (model.predict(x) as tf.Tensor).sum() as tf.Scalar); // d/dk = 4, d/db = 2
    await trainer.step(2);
    expect(model.getWeights().map(arr)).toEqual([[0.5], [-0.25]]);
    const stored = new Float32Array(1);
    await store.pull(1, { out: stored });
    expect(Array.from(stored)).toEqual([-0.25]);
  });

  it('rejects parameters that are not float32 variables', () => {
    expect(() => new kv.Trainer([tf.tensor1d([1])] as never, 'sgd')).toThrow(
      expect.objectContaining({ message: 'Expected a float32 tf.Variable or LayerVariable for params[0] but received an instance of Tensor' }),
    );
  });
});
