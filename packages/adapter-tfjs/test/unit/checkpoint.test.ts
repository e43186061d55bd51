import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { init, shutdown } from '@kolo/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckpointCallback, DistributedOptimizer, restoreCheckpoint, saveCheckpoint } from '../../src/index.js';

beforeAll(() => init());
afterAll(() => shutdown());

function build(): tf.LayersModel {
  const model = tf.sequential({ layers: [tf.layers.dense({ inputShape: [2], units: 2 }), tf.layers.batchNormalization(), tf.layers.dense({ units: 1 })] });
  model.compile({ optimizer: new DistributedOptimizer(tf.train.adam(0.05)), loss: 'meanSquaredError' });
  return model;
}

const values = (ts: tf.Tensor[]): number[][] => ts.map((t) => Array.from(t.dataSync()));
const xs = tf.tensor2d([[1, 2], [3, 4], [5, 6], [7, 8]]);
const ys = tf.tensor2d([[1], [0], [1], [0]]);

describe('saveCheckpoint and restoreCheckpoint', () => {
  it('round-trip every weight and the optimizer state, and continue identically', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'kolo-ckpt-'));
    const original = build();
    await original.fit(xs, ys, { epochs: 2, batchSize: 2, shuffle: false, verbose: 0 });
    expect(await saveCheckpoint(original, { directory, epoch: 1 })).toBe(join(directory, 'epoch-00001'));

    const resumed = build(); // other random weights, no optimizer state yet
    expect(await restoreCheckpoint(resumed, { directory })).toBe(1);
    expect(values(resumed.getWeights())).toEqual(values(original.getWeights()));
    const state = async (m: tf.LayersModel) => values((await m.optimizer.getWeights()).map((w) => w.tensor));
    expect(await state(resumed)).toEqual(await state(original));

    for (const m of [original, resumed]) await m.fit(xs, ys, { epochs: 1, batchSize: 2, shuffle: false, verbose: 0 });
    expect(values(resumed.getWeights())).toEqual(values(original.getWeights()));
  });

  it('writes model.json + weights.bin, points latest.json at the newest and keeps the last two', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'kolo-ckpt-'));
    const model = build();
    await model.fit(xs, ys, { epochs: 3, verbose: 0, callbacks: [new CheckpointCallback({ directory })] });
    expect((await readdir(directory)).sort()).toEqual(['epoch-00001', 'epoch-00002', 'latest.json']);
    expect((await readdir(join(directory, 'epoch-00002'))).sort()).toEqual(['model.json', 'weights.bin']);
    expect(JSON.parse(await readFile(join(directory, 'latest.json'), 'utf8'))).toEqual({ epoch: 2, path: 'epoch-00002' });
    const manifest = JSON.parse(await readFile(join(directory, 'epoch-00002', 'model.json'), 'utf8'));
    // 2 + 4 (batch norm) + 2 model weights; iter + m, v of the 6 trainable ones.
    const groups = manifest.weightsManifest[0].weights.map((w: { group?: string }) => w.group ?? 'model');
    expect([groups.filter((g: string) => g === 'model').length, groups.filter((g: string) => g === 'optimizer').length]).toEqual([8, 13]);
    expect(manifest.trainingConfig.optimizer_config.class_name).toBe('Adam');
  });

  it('resolves undefined and changes nothing when there is no checkpoint yet', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'kolo-ckpt-'));
    const model = build();
    const before = values(model.getWeights());
    expect(await restoreCheckpoint(model, { directory })).toBeUndefined();
    expect(values(model.getWeights())).toEqual(before);
  });

  it('rejects a checkpoint of another model with the exact message', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'kolo-ckpt-'));
    await saveCheckpoint(build(), { directory, epoch: 0 });
    const other = tf.sequential({ layers: [tf.layers.dense({ inputShape: [3], units: 2 }), tf.layers.batchNormalization(), tf.layers.dense({ units: 1 })] });
    await expect(restoreCheckpoint(other, { directory })).rejects.toThrow(
      `Expected shape [3, 2] (as in the model) for weight 0 of checkpoint ${join(directory, 'epoch-00000')} but received [2, 2]`,
    );
  });

  it('rejects bad options with the exact messages', async () => {
    await expect(saveCheckpoint(build(), { directory: '', epoch: 0 })).rejects.toThrow("Expected a non-empty string for directory but received ''");
    await expect(saveCheckpoint(build(), { directory: '/tmp/x', epoch: -1 })).rejects.toThrow('Expected an integer >= 0 for epoch but received -1');
    await expect(restoreCheckpoint(build(), { dir: '/tmp/x' } as never)).rejects.toThrow("Unknown option 'dir' for restoreCheckpoint; expected one of 'directory', 'root'.");
  });
});
