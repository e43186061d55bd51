import { init, shutdown } from '@kolo/core';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DistributedInferenceSession } from '../../src/index.js';
import { argError, fixtures, probeBatch, rejected } from './fixtures.js';

beforeAll(() => init());
afterAll(() => shutdown());

const { x } = probeBatch(10);
const feeds = { x: new Tensor('float32', x, [10, 784]) };

describe('DistributedInferenceSession on one rank', () => {
  it('returns what a plain InferenceSession returns, in batches or not', async () => {
    const plain = await InferenceSession.create(fixtures.infer);
    const want = (await plain.run(feeds)).logits!;
    const session = await DistributedInferenceSession.create({ model: fixtures.infer });
    for (const options of [{}, { batchSize: 3 }, { gatherTo: 'root' as const, root: 0, fetches: ['logits'] }]) {
      const got = (await session.run(feeds, options))!.logits!;
      expect(got.dims).toEqual([10, 10]);
      expect(got.type).toBe('float32');
      expect(got.data).toEqual(want.data);
    }
    expect(session.inputNames).toEqual(['x']);
    expect(session.outputNames).toEqual(['logits']);
    await Promise.all([plain.release(), session.release()]);
  });

  it('rejects feeds and options that do not fit, with exact messages', async () => {
    const session = await DistributedInferenceSession.create({ model: fixtures.infer, broadcastFrom: 0 });
    expect(await rejected(session.run({ X: feeds.x }))).toEqual(
      argError('TypeError', "Expected one of the model inputs 'x' for feeds key but received 'X'"),
    );
    expect(await rejected(session.run({ x: new Tensor('float32', new Float32Array(0), [0, 784]) }))).toEqual(
      argError('RangeError', "Expected dims with at least one row along dimension 0 for feeds['x'].dims but received [0, 784]"),
    );
    expect(await rejected(session.run(feeds, { batchSize: 0 }))).toEqual(
      argError('RangeError', 'Expected an integer >= 1 for batchSize but received 0'),
    );
    expect(await rejected(session.run(feeds, { fetches: ['probs'] }))).toEqual(
      argError('TypeError', "Expected one of the model outputs 'logits' for fetches entry but received 'probs'"),
    );
    expect(await rejected(session.run(feeds, { gatherTo: 'root', root: 1 }))).toEqual(
      argError('RangeError', 'Expected an integer in [0, 0] for root but received 1'),
    );
    expect(await rejected(DistributedInferenceSession.create({ model: fixtures.infer, device: 'gpu' as never }))).toEqual(
      argError('TypeError', "Expected one of 'cpu', 'cuda' for device but received 'gpu'"),
    );
    expect(await rejected(DistributedInferenceSession.create({}))).toEqual(
      argError('TypeError', 'Expected a model path or a Uint8Array for model but received undefined'),
    );
    expect(await rejected(DistributedInferenceSession.create({ model: '/nonexistent/m.onnx', broadcastFrom: 0 }))).toEqual({
      name: 'Error', code: undefined,
      message: "Rank 0 could not read the model to share: ENOENT: no such file or directory, open '/nonexistent/m.onnx'",
    });
    await session.release();
  });
});
