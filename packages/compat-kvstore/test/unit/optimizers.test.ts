import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Adam, create, createOptimizer, SGD } from '../../src/index.js';

const f32 = (...v: number[]) => Float32Array.from(v);
const arr = (a: ArrayLike<number>) => Array.from(a);

describe('SGD (MXNet sgd_update / sgd_mom_update)', () => {
  it('w = (1 - lr wd) w - lr clip(rescale g)', () => {
    const sgd = new SGD({ learningRate: 0.5, wd: 0.5, rescaleGrad: 2, clipGradient: 1.5 });
    const w = f32(1, 1);
    sgd.update(w, f32(0.25, 4), sgd.createState(w)); // g = 0.5, clip(8) = 1.5
    expect(arr(w)).toEqual([0.5, 0]);
  });

  it('mom = momentum mom - lr wd w - lr g; w += mom', () => {
    const sgd = new SGD({ learning_rate: 0.5, momentum: 0.5, wd: 1 } as never);
    const w = f32(2);
    const state = sgd.createState(w);
    sgd.update(w, f32(1), state); // mom = -1 - 0.5 = -1.5, w = 0.5
    sgd.update(w, f32(1), state); // mom = -0.75 - 0.25 - 0.5 = -1.5, w = -1
    expect([arr(w), arr(state.slots[0]!), state.step]).toEqual([[-1], [-1.5], 2]);
  });
});

describe('Adam (MXNet adam_update)', () => {
  it('bias-corrects the first step to lr * sign(g)', () => {
    const adam = new Adam({ learningRate: 0.125, epsilon: 0 });
    const w = Float64Array.of(1, -1);
    adam.update(w, Float64Array.of(2, -0.5), adam.createState(w));
    expect(arr(w)).toEqual([0.875, -0.875]);
  });

  it('adds wd * w to the rescaled gradient before the moments', () => {
    const adam = new Adam({ learningRate: 0.125, wd: 1, rescaleGrad: 0.5 });
    const w = Float64Array.of(1);
    const state = adam.createState(w);
    adam.update(w, Float64Array.of(-2), state); // g = -1 + 1 = 0: no move
    expect([arr(w), arr(state.slots[0]!), arr(state.slots[1]!)]).toEqual([[1], [0], [0]]);
  });
});

describe('createOptimizer', () => {
  it('builds by registry name and checks the parameters', () => {
    expect(createOptimizer('sgd', { learningRate: 0.1 }).hyperParams()).toEqual({ learningRate: 0.1, rescaleGrad: 1, wd: 0, momentum: 0 });
    expect(createOptimizer('adam').name).toBe('adam');
    expect(() => createOptimizer('rmsprop' as never)).toThrow(expect.objectContaining({ message: "Expected one of 'sgd', 'adam' for optimizer but received 'rmsprop'" }));
    expect(() => new SGD({ learningRate: -1 })).toThrow(expect.objectContaining({ name: 'RangeError', message: 'Expected a number >= 0 for learningRate but received -1' }));
    expect(() => new SGD({ momentun: 0.9 } as never)).toThrow(expect.objectContaining({ message: "Unknown option 'momentun' for SGD; did you mean 'momentum'?" }));
  });
});

describe('optimizer states', () => {
  it('save and load restore the exact states and, with dumpOptimizer, the hyper-parameters', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'kvstore-')), 'opt.states');
    const store = await create('local');
    store.setOptimizer(new SGD({ learningRate: 0.5, momentum: 0.5 }));
    await store.init(0, f32(1));
    await store.push(0, f32(1 / 3));
    await store.save_optimizer_states(file, { dump_optimizer: true });

    const other = await create('local');
    const sgd = new SGD({ learningRate: 0.1, momentum: 0.5 });
    other.setOptimizer(sgd);
    await other.load_optimizer_states(file);
    await other.init(0, f32(1 - 0.5 / 3));
    await Promise.all([store.push(0, f32(1)), other.push(0, f32(1))]);
    const [a, b] = [new Float32Array(1), new Float32Array(1)];
    await Promise.all([store.pull(0, { out: a }), other.pull(0, { out: b })]);
    expect([sgd.learningRate, arr(b)]).toEqual([0.5, arr(a)]);

    other.setOptimizer(new Adam());
    await expect(other.loadOptimizerStates(file)).rejects.toThrow(`Expected states of a 'adam' optimizer for ${file} but received 'sgd'`);
  });
});
