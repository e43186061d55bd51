import { readFileSync } from 'node:fs';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { OnnxModel } from '../../src/index.js';
import { argError, caught, expected, fixtures } from './fixtures.js';

describe('OnnxModel reads the fixtures with the official schema', () => {
  const model = OnnxModel.fromBytes(readFileSync(fixtures.infer));

  it('lists the initializers with the values numpy wrote', () => {
    expect(model.initializerNames).toEqual(['W1', 'b1', 'W2', 'b2']);
    for (const want of expected.weights) {
      const got = model.initializer(want.name);
      expect(got.type).toBe('float32');
      expect(got.dims).toEqual(want.dims);
      expect(Array.from((got.data as Float32Array).slice(0, 4))).toEqual(want.head.map(Math.fround));
      const sum = Array.from(got.data as Float32Array).reduce((a, b) => a + b, 0);
      expect(sum).toBeCloseTo(want.sum, 10);
    }
  });

  it('describes graph inputs and outputs, leaving out stored constants', () => {
    const train = OnnxModel.fromBytes(readFileSync(fixtures.train));
    expect(model.inputs()).toEqual([{ name: 'x', type: 'float32', dims: ['N', 784] }]);
    expect(model.outputs()).toEqual([{ name: 'logits', type: 'float32', dims: ['N', 10] }]);
    expect(train.inputs().map((i) => i.name)).toEqual(['x', 'y', 'W1', 'b1', 'W2', 'b2']);
    expect(train.outputs().map((o) => `${o.name} ${JSON.stringify(o.dims)}`)).toEqual([
      'loss []', 'grad.W1 [784,16]', 'grad.b1 [16]', 'grad.W2 [16,10]', 'grad.b2 [10]',
    ]);
    expect(train.initializer('axis1')).toEqual({ name: 'axis1', type: 'int64', dims: [1], data: BigInt64Array.of(1n) });
  });

  it('encodes an unchanged model to the same bytes', () => {
    const bytes = readFileSync(fixtures.train);
    expect(Buffer.compare(Buffer.from(OnnxModel.fromBytes(bytes).toBytes()), bytes)).toBe(0);
  });
});

describe('OnnxModel.setInitializer', () => {
  it('changes what onnxruntime computes: zero weights leave logits = b2', async () => {
    const model = await OnnxModel.load(fixtures.infer);
    for (const t of model.initializers()) model.setInitializer({ ...t, data: new Float32Array(t.data.length) });
    model.setInitializer({ name: 'b2', type: 'float32', dims: [10], data: Float32Array.from({ length: 10 }, (_, i) => i - 4.5) });
    const reloaded = OnnxModel.fromBytes(model.toBytes());
    expect(Array.from(reloaded.initializer('b2').data as Float32Array)).toEqual([-4.5, -3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 4.5]);
    const session = await InferenceSession.create(model.toBytes());
    const { logits } = await session.run({ x: new Tensor('float32', new Float32Array(2 * 784).fill(1), [2, 784]) });
    const b2 = [-4.5, -3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 4.5];
    expect(Array.from(logits!.data as Float32Array)).toEqual([...b2, ...b2]);
    await session.release();
  });

  it('rejects another shape, another type, a wrong data length and an unknown name, with exact messages', async () => {
    const model = await OnnxModel.load(fixtures.infer);
    const data = new Float32Array(16);
    expect(caught(() => model.setInitializer({ name: 'b1', type: 'float32', dims: [4, 4], data }))).toEqual(
      argError('RangeError', "Expected dims [16] for initializer 'b1'.dims but received [4, 4]"),
    );
    expect(caught(() => model.setInitializer({ name: 'b1', type: 'float64', dims: [16], data: new Float64Array(16) }))).toEqual(
      argError('TypeError', "Expected type 'float32' for initializer 'b1'.type but received 'float64'"),
    );
    expect(caught(() => model.setInitializer({ name: 'b1', type: 'float32', dims: [16], data: new Float32Array(15) }))).toEqual(
      argError('RangeError', "Expected a Float32Array of 16 elements for initializer 'b1'.data but received Float32Array(15)"),
    );
    expect(caught(() => model.setInitializer({ name: 'b3', type: 'float32', dims: [16], data }))).toEqual(
      argError('TypeError', "Expected the name of an initializer ('W1', 'b1', 'W2', 'b2') for name but received 'b3'"),
    );
  });

  it('refuses bytes that are not a model', () => {
    expect(caught(() => OnnxModel.fromBytes(Uint8Array.of(0xff, 0xff, 0xff)))).toEqual(
      argError('TypeError', 'Expected a serialized ONNX ModelProto for bytes but received Uint8Array(3)'),
    );
  });
});
