import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { shardDataset } from '../../src/index.js';

const numbers = () => tf.data.array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);

describe('shardDataset', () => {
  it('gives shard i the elements i, i + n, i + 2n, … and the matching size', async () => {
    const shards = [0, 1, 2].map((index) => shardDataset(numbers(), { numShards: 3, index }));
    expect(await Promise.all(shards.map((s) => s.toArray()))).toEqual([[0, 3, 6, 9], [1, 4, 7], [2, 5, 8]]);
    expect(shards.map((s) => s.size)).toEqual([4, 3, 3]);
  });

  it('starts each new iteration at element 0 and composes with batch()', async () => {
    const shard = shardDataset(numbers(), { numShards: 2, index: 1 }).batch(2);
    const twice = [await shard.toArray(), await shard.toArray()].map((batches) => batches.map((t) => Array.from((t as tf.Tensor).dataSync())));
    expect(twice).toEqual([[[1, 3], [5, 7], [9]], [[1, 3], [5, 7], [9]]]);
  });

  it('disposes the tensors it skips', async () => {
    const ds = tf.data.array([0, 1, 2, 3]).map((v) => tf.scalar(v as number));
    const before = tf.memory().numTensors;
    const kept = await shardDataset(ds, { numShards: 2, index: 0 }).toArray();
    expect([tf.memory().numTensors - before, kept.map((t) => (t as tf.Tensor).arraySync())]).toEqual([2, [0, 2]]);
  });

  it('rejects bad arguments with the exact messages', () => {
    expect(() => shardDataset(numbers(), { numShards: 2, index: 2 })).toThrow('Expected an integer in [0, 1] for index but received 2');
    expect(() => shardDataset([1, 2] as never, { numShards: 2, index: 0 })).toThrow('Expected a tf.data Dataset for dataset but received [1, 2]');
    expect(() => shardDataset(numbers(), { numShard: 2 } as never)).toThrow("Unknown option 'numShard' for shardDataset; did you mean 'numShards'?");
  });
});
