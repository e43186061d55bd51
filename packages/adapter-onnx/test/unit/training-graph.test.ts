import { describe, expect, it } from 'vitest';
import { describeTrainingGraph, OnnxModel } from '../../src/index.js';
import { argError, caught, fixtures } from './fixtures.js';

describe('describeTrainingGraph finds weights by the grad.<weight> convention', () => {
  it('splits the fixture into weights and data inputs', async () => {
    const model = await OnnxModel.load(fixtures.train);
    expect(describeTrainingGraph(model, { lossName: 'loss', gradientPrefix: 'grad.' })).toEqual({
      weights: [
        { name: 'W1', dims: [784, 16], gradient: 'grad.W1' },
        { name: 'b1', dims: [16], gradient: 'grad.b1' },
        { name: 'W2', dims: [16, 10], gradient: 'grad.W2' },
        { name: 'b2', dims: [10], gradient: 'grad.b2' },
      ],
      dataInputs: ['x', 'y'],
      loss: 'loss',
    });
  });

  it('names what is missing when the graph does not follow the convention', async () => {
    const model = await OnnxModel.load(fixtures.train);
    expect(caught(() => describeTrainingGraph(model, { lossName: 'cost', gradientPrefix: 'grad.' }))).toEqual(
      argError('TypeError', "Expected an output named by lossName (outputs: 'loss', 'grad.W1', 'grad.b1', 'grad.W2', 'grad.b2') for lossName but received 'cost'"),
    );
    expect(caught(() => describeTrainingGraph(model, { lossName: 'loss', gradientPrefix: 'grad' }))).toEqual(
      argError('TypeError', "Expected a graph input for gradient output 'grad.W1' (inputs: 'x', 'y', 'W1', 'b1', 'W2', 'b2') for weight but received '.W1'"),
    );
    expect(caught(() => describeTrainingGraph(model, { lossName: 'loss', gradientPrefix: 'd_' }))).toEqual(
      argError('TypeError', "Expected outputs named 'd_<input>' (one per weight) for training model outputs but received Array(5)"),
    );
  });
});
