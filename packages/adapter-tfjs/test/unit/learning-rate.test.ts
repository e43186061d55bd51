import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { DistributedOptimizer, getLearningRate, getMomentum, setLearningRate, setMomentum } from '../../src/index.js';

/** One update of v = 1 with gradient 1 (loss = v). */
function stepOnce(optimizer: tf.Optimizer): number {
  const v = tf.variable(tf.scalar(1));
  optimizer.minimize(() => tf.mul(v, 1) as tf.Scalar, false, [v]);
  return v.arraySync() as number;
}

describe('learning rate and momentum of tfjs optimizers', () => {
  it('changes the rate SGD applies (its cached -lr scalar too)', () => {
    const sgd = tf.train.sgd(0.1);
    setLearningRate(sgd, 0.25);
    expect([getLearningRate(sgd), stepOnce(sgd)]).toEqual([0.25, 0.75]);
  });

  it('reaches through a DistributedOptimizer to the wrapped optimizer', () => {
    const adam = tf.train.adam(0.1);
    const wrapped = new DistributedOptimizer(adam);
    setLearningRate(wrapped, 0.5);
    expect([getLearningRate(adam), getLearningRate(wrapped)]).toEqual([0.5, 0.5]);
  });

  it('changes the momentum Momentum applies, which tfjs setMomentum alone does not', () => {
    const momentum = tf.train.momentum(1, 0.9);
    const v = tf.variable(tf.scalar(0));
    momentum.minimize(() => tf.mul(v, 1) as tf.Scalar, false, [v]); // accumulation 1, v = -1
    setMomentum(momentum, 0.5);
    momentum.minimize(() => tf.mul(v, 1) as tf.Scalar, false, [v]); // accumulation 0.5 + 1, v = -2.5
    expect([getMomentum(momentum), v.arraySync()]).toEqual([0.5, -2.5]);
  });

  it('reports no momentum for Adam and rejects bad values with the exact messages', () => {
    const adam = tf.train.adam(0.1);
    expect(getMomentum(adam)).toBeUndefined();
    expect(() => setMomentum(adam, 0.9)).toThrow('Expected a tfjs optimizer with a momentum for optimizer but received an instance of AdamOptimizer');
    expect(() => setLearningRate(adam, Number.NaN)).toThrow('Expected a finite number for learningRate but received NaN');
  });
});
