import * as tf from '@tensorflow/tfjs';
import { init, shutdown } from '@kolo/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BroadcastGlobalVariablesCallback,
  DistributedOptimizer,
  LearningRateScheduleCallback,
  LearningRateWarmupCallback,
  MetricAverageCallback,
  getLearningRate,
  getMomentum,
} from '../../src/index.js';

beforeAll(() => init());
afterAll(() => shutdown());

/** A 1-rank fit of 12 samples in batches of 4 (3 steps per epoch), recording lr and momentum per batch. */
async function fitRecording(optimizer: tf.Optimizer, callbacks: tf.CustomCallback[] | tf.Callback[], epochs = 3) {
  const model = tf.sequential({ layers: [tf.layers.dense({ inputShape: [2], units: 1 })] });
  model.compile({ optimizer, loss: 'meanSquaredError' });
  const trace: [number, number | undefined][] = [];
  const recorder = new tf.CustomCallback({ onBatchBegin: async () => void trace.push([getLearningRate(optimizer), getMomentum(optimizer)]) });
  const history = await model.fit(tf.ones([12, 2]), tf.ones([12, 1]), { epochs, batchSize: 4, verbose: 0, callbacks: [...callbacks, recorder] as tf.Callback[] });
  return { trace, history: history.history };
}

describe('LearningRateScheduleCallback', () => {
  it('applies a constant multiplier per epoch from startEpoch and records logs.lr', async () => {
    const sgd = tf.train.sgd(1);
    const schedule = new LearningRateScheduleCallback({ initialLr: 0.8, multiplier: 0.5, startEpoch: 1 });
    const { trace, history } = await fitRecording(new DistributedOptimizer(sgd), [schedule]);
    expect(trace.map(([lr]) => lr)).toEqual([1, 1, 1, 0.8, 0.8, 0.8, 0.4, 0.4, 0.4]);
    expect(history['lr']).toEqual([1, 0.8, 0.4]);
  });

  it('adjusts every batch when not staircase, correcting Momentum for that batch only', async () => {
    const momentum = tf.train.momentum(0.1, 0.9);
    const schedule = new LearningRateScheduleCallback({ initialLr: 0.3, multiplier: (e) => 1 + e, staircase: false, endEpoch: 1 });
    const { trace } = await fitRecording(momentum, [schedule], 2);
    // lr = 0.3 · (1 + batch/3) in epoch 0; momentum · new/old during the batch, restored after.
    const lrs = [0.3, 0.3 * (1 + 1 / 3), 0.3 * (1 + 2 / 3)];
    expect(trace.slice(0, 3).map(([lr]) => lr)).toEqual(lrs);
    expect(trace.slice(0, 3).map(([, m]) => m)).toEqual([(0.9 * 0.3) / 0.1, (0.9 * lrs[1]!) / lrs[0]!, (0.9 * lrs[2]!) / lrs[1]!]);
    expect(trace.slice(3)).toEqual([[lrs[2], 0.9], [lrs[2], 0.9], [lrs[2], 0.9]]);
  });

  it('rejects bad options with the exact messages', () => {
    expect(() => new LearningRateScheduleCallback({ multiplier: 1 } as never)).toThrow('Expected a learning rate for initialLr but received undefined');
    expect(() => new LearningRateScheduleCallback({ initialLr: 1, multiplier: 1, startEpoch: 2, endEpoch: 1 })).toThrow(
      'Expected an integer >= 2 for endEpoch but received 1',
    );
    expect(() => new LearningRateScheduleCallback({ initialLr: 1, multiplier: 1, stepsPerEpoc: 3 } as never)).toThrow(
      "Unknown option 'stepsPerEpoc' for LearningRateScheduleCallback; did you mean 'stepsPerEpoch'?",
    );
  });
});

describe('LearningRateWarmupCallback on one rank', () => {
  it('holds initialLr (the warmup starts at initialLr / size) and prints when verbose', async () => {
    const adam = tf.train.adam(1);
    const lines: string[] = [];
    const log = console.log;
    console.log = (line: string) => void lines.push(line);
    try {
      const { trace } = await fitRecording(adam, [new LearningRateWarmupCallback({ initialLr: 0.01, warmupEpochs: 2, verbose: 1 })]);
      expect(trace.map(([lr]) => lr)).toEqual(Array(9).fill(0.01));
    } finally {
      console.log = log;
    }
    expect(lines).toEqual(['\nEpoch 2: finished gradual learning rate warmup to 0.01.']);
  });
});

describe('MetricAverageCallback and BroadcastGlobalVariablesCallback on one rank', () => {
  it('turn epoch logs into numbers and leave the weights as they are', async () => {
    const model = tf.sequential({ layers: [tf.layers.dense({ inputShape: [1], units: 1, kernelInitializer: 'ones', biasInitializer: 'zeros' })] });
    model.compile({ optimizer: new DistributedOptimizer(tf.train.sgd(0)), loss: 'meanSquaredError' });
    const seen: unknown[] = [];
    const peek = new tf.CustomCallback({ onEpochEnd: async (_e, logs) => void seen.push(logs) });
    await model.fit(tf.tensor2d([[1], [2]]), tf.tensor2d([[2], [2]]), {
      epochs: 1,
      verbose: 0,
      callbacks: [new BroadcastGlobalVariablesCallback(0), new MetricAverageCallback(), peek] as tf.Callback[],
    });
    // mean((1 - 2)², (2 - 2)²) = 0.5
    expect(seen).toEqual([{ loss: 0.5 }]);
    expect(model.getWeights().map((t) => t.arraySync())).toEqual([[[1]], [0]]);
  });

  it('rejects a bad root with the exact message', () => {
    expect(() => new BroadcastGlobalVariablesCallback(-1)).toThrow('Expected an integer >= 0 for root but received -1');
  });
});
