import { Tensor } from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { fuseStepOutputs } from '../../src/training/fuse-step-outputs.js';
import { caught } from './fixtures.js';

const graph = {
  weights: [{ name: 'w', dims: [2], gradient: 'grad.w' }, { name: 'b', dims: [], gradient: 'grad.b' }],
  dataInputs: ['x'],
  loss: 'loss',
};
const loss = new Tensor('float32', Float32Array.of(0.75), []);

describe('fuseStepOutputs', () => {
  it('packs the gradients in weight order, then the loss', () => {
    const into = new Float32Array(4);
    const results = { 'grad.b': new Tensor('float32', Float32Array.of(3), []), 'grad.w': new Tensor('float32', Float32Array.of(1, 2), [2]), loss };
    fuseStepOutputs({ results, graph, into });
    expect(into).toEqual(Float32Array.of(1, 2, 3, 0.75));
  });

  it('refuses a gradient whose type or dims differ from its weight, and a non-scalar loss', () => {
    const into = new Float32Array(4);
    const b = new Tensor('float32', Float32Array.of(3), []);
    const wrong = { 'grad.w': new Tensor('float32', new Float32Array(3), [3]), 'grad.b': b, loss };
    expect(caught(() => fuseStepOutputs({ results: wrong, graph, into }))).toEqual({
      name: 'UnsupportedError', code: 'KOLO_UNSUPPORTED', message: "Gradient output 'grad.w' is float32 [3]; it must be float32 [2] like weight 'w'",
    });
    const double = { 'grad.w': new Tensor('float64', new Float64Array(2), [2]), 'grad.b': b, loss };
    expect(caught(() => fuseStepOutputs({ results: double, graph, into })).message).toBe(
      "Gradient output 'grad.w' is float64 [2]; it must be float32 [2] like weight 'w'",
    );
    const rows = { 'grad.w': new Tensor('float32', new Float32Array(2), [2]), 'grad.b': b, loss: new Tensor('float32', new Float32Array(2), [2]) };
    expect(caught(() => fuseStepOutputs({ results: rows, graph, into })).message).toBe("Loss output 'loss' has dims [2]; it must be a scalar");
  });
});
