import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { init, shutdown } from '@kolo/core';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DistributedTrainer, OnnxModel } from '../../src/index.js';
import { argError, expected, fixtures, probeBatch, rejected } from './fixtures.js';

const rows = expected.probe.rows;
const { x, y } = probeBatch(rows);
const feeds = () => ({ x: new Tensor('float32', x, [rows, 784]), y: new Tensor('float32', y, [rows, 10]) });
const initialWeights = () => OnnxModel.load(fixtures.infer);

beforeAll(() => init());
afterAll(() => shutdown());

describe('the training-step fixture in onnxruntime', () => {
  it('computes the loss and gradients numpy computed (float32 vs float64)', async () => {
    const model = await OnnxModel.load(fixtures.infer);
    const weights = Object.fromEntries(model.initializers().map((t) => [t.name, new Tensor('float32', t.data as Float32Array, [...t.dims])]));
    const session = await InferenceSession.create(fixtures.train);
    const out = await session.run({ ...feeds(), ...weights });
    expect((out.loss!.data as Float32Array)[0]).toBeCloseTo(expected.probe.loss, 6);
    for (const [name, want] of Object.entries(expected.probe.grads)) {
      const got = out[`grad.${name}`]!.data as Float32Array;
      want.head.forEach((v, i) => expect(got[i], `grad.${name}[${i}]`).toBeCloseTo(v, 6));
      // float32 rounding of thousands of terms: compare relative to the sum's size.
      const sum = Array.from(got).reduce((a, b) => a + b, 0);
      expect(Math.abs(sum - want.sum), `sum of grad.${name}: ${sum} vs ${want.sum}`).toBeLessThan(1e-5 * Math.max(1, Math.abs(want.sum)));
    }
    await session.release();
  });
});

describe('DistributedTrainer on one rank', () => {
  it('applies SGD to the gradients of the graph, weight by weight', async () => {
    const trainer = await DistributedTrainer.create({
      trainingModel: fixtures.train, initialWeights: fixtures.infer, optimizer: { type: 'sgd', learningRate: 0.5 },
    });
    const start = trainer.weights();
    const session = await InferenceSession.create(fixtures.train);
    const weightFeeds = Object.fromEntries(start.map((t) => [t.name, new Tensor('float32', t.data as Float32Array, [...t.dims])]));
    const direct = await session.run({ ...feeds(), ...weightFeeds });
    const { loss } = await trainer.step(feeds());
    expect(loss).toBe((direct.loss!.data as Float32Array)[0]);
    for (const [i, w] of trainer.weights().entries()) {
      const g = direct[`grad.${w.name}`]!.data as Float32Array;
      const want = (start[i]!.data as Float32Array).map((p, k) => p - 0.5 * g[k]!);
      expect(w.data, w.name).toEqual(want);
    }
    expect(trainer.weightNames).toEqual(['W1', 'b1', 'W2', 'b2']);
    expect(trainer.dataInputNames).toEqual(['x', 'y']);
    await Promise.all([session.release(), trainer.release()]);
  });

  it('writes the trained weights into the inference model on rank 0', async () => {
    const trainer = await DistributedTrainer.create({
      trainingModel: readFileSync(fixtures.train), initialWeights: await initialWeights(), optimizer: { type: 'adam', learningRate: 0.01 },
    });
    for (let i = 0; i < 3; i++) await trainer.step(feeds());
    const dir = mkdtempSync(join(tmpdir(), 'kolo-onnx-'));
    const path = join(dir, 'trained.onnx');
    const bytes = await trainer.saveInferenceModel({ template: fixtures.infer, path });
    expect(Buffer.compare(readFileSync(path), Buffer.from(bytes!))).toBe(0);
    expect((await OnnxModel.load(path)).initializers()).toEqual(trainer.weights());
    await trainer.release();
    rmSync(dir, { recursive: true, force: true });
  });

  it('rejects feeds and options that do not fit, with exact messages', async () => {
    const optimizer = { type: 'sgd', learningRate: 0.1 } as const;
    const trainer = await DistributedTrainer.create({ trainingModel: fixtures.train, initialWeights: fixtures.infer, optimizer });
    expect(await rejected(trainer.step({ x: feeds().x }))).toEqual(
      argError('TypeError', "Expected a tensor (every model input must be fed) for feeds['y'] but received undefined"),
    );
    expect(await rejected(trainer.step({ ...feeds(), W1: feeds().x }))).toEqual(
      argError('TypeError', "Expected one of the model inputs 'x', 'y' for feeds key but received 'W1'"),
    );
    expect(await rejected(trainer.step({ x: feeds().x, y: new Tensor('float32', y.subarray(0, 20), [2, 10]) }))).toEqual(
      argError('RangeError', `Expected ${rows} rows along dimension 0, as the other feeds for feeds['y'].dims but received [2, 10]`),
    );
    const noBias = (await OnnxModel.load(fixtures.infer)).initializers().filter((t) => t.name !== 'b2');
    expect(await rejected(DistributedTrainer.create({ trainingModel: fixtures.train, initialWeights: noBias, optimizer }))).toEqual(
      argError('TypeError', "Expected a tensor for every weight of the training graph for initialWeights 'b2' but received undefined"),
    );
    expect(await rejected(DistributedTrainer.create({ trainingModel: fixtures.train, initialWeights: fixtures.infer, optimizer, lossname: 'l' } as never))).toEqual({
      name: 'TypeError', code: 'ERR_KOLO_UNKNOWN_OPTION', message: "Unknown option 'lossname' for DistributedTrainer.create; did you mean 'lossName'?",
    });
    await trainer.release();
  });
});
