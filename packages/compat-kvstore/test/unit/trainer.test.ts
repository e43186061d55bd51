import { describe, expect, it } from 'vitest';
import { create, SGD, Trainer } from '../../src/index.js';
import { planTrainer } from '../../src/trainer-plan.js';

const arr = (a: ArrayLike<number>) => Array.from(a);

describe("gluon.Trainer's kvstore rules", () => {
  it.each([
    [undefined, undefined, undefined, false],
    [null, true, undefined, false],
    ['local', undefined, undefined, false],
    ['device', undefined, undefined, false],
    ['dist_sync', undefined, 'dist_sync', true],
    ['dist_sync_kolo', false, 'dist_sync_kolo', false],
    ['horovod', undefined, 'horovod', false],
  ])('kvstore %s with updateOnKvstore %s: store %s, update on kvstore %s', (kvstore, update, store, onKv) => {
    const plan = planTrainer(kvstore, update);
    expect([plan.store === undefined ? undefined : (plan.store as { name: string }).name, plan.updateOnKvstore]).toEqual([store, onKv]);
  });

  it('refuses updateOnKvstore with the horovod store, which cannot run an optimizer', () => {
    expect(() => planTrainer('horovod', true)).toThrow(
      expect.objectContaining({ name: 'RangeError', message: 'Expected false (the horovod kvstore cannot run an optimizer) for updateOnKvstore but received true' }),
    );
  });

  it('uses a store object given to it, updating on it only when asked', async () => {
    const store = await create('local');
    expect(planTrainer(store, undefined)).toEqual({ store, updateOnKvstore: false });
    expect(planTrainer(store, 1)).toEqual({ store, updateOnKvstore: true });
  });
});

describe('Trainer on Float32Arrays', () => {
  it('step(batchSize) rescales by 1 / batchSize and updates locally without a store', async () => {
    const w = Float32Array.of(1, 2);
    const trainer = new Trainer([w], 'sgd', { optimizerParams: { learningRate: 0.5 } });
    trainer.grads[0]!.set([4, -8]);
    await trainer.step(4);
    expect([arr(w), trainer.optimizer.rescaleGrad, trainer.kvstore, trainer.numWorkers]).toEqual([[0.5, 3], 0.25, undefined, 1]);
  });

  it('sorts a record of parameters by name, lists shared arrays once, and keeps the original rescale as the scale', async () => {
    const a = Float32Array.of(1);
    const b = Float32Array.of(10);
    const trainer = new Trainer({ z: a, y: b, x: a }, new SGD({ learningRate: 1, rescaleGrad: 2 }), { kvstore: null });
    expect(trainer.params).toEqual([a, b]);
    trainer.grads[0]!.set([1]);
    trainer.grads[1]!.set([3]);
    await trainer.step(2);
    expect([arr(a), arr(b)]).toEqual([[0], [7]]);
  });

  it('with updateOnKvstore the store runs the optimizer; allreduceGrads and update are refused', async () => {
    const store = await create('local');
    const w = Float32Array.of(1);
    const trainer = new Trainer([w], 'sgd', { kvstore: store, update_on_kvstore: true, optimizerParams: { learningRate: 1 } } as never);
    trainer.grads[0]!.set([3]);
    await trainer.step(3);
    const stored = new Float32Array(1);
    await store.pull(0, { out: stored });
    expect([arr(w), arr(stored)]).toEqual([[0], [0]]);
    const text = '() when parameters are updated on kvstore is not supported. Try setting updateOnKvstore to false when creating the Trainer.';
    expect(() => trainer.allreduceGrads()).toThrow(expect.objectContaining({ code: 'ERR_KOLO_INVALID_STATE', message: `allreduceGrads${text}` }));
    expect(() => trainer.update(1)).toThrow(`update${text}`);
  });

  it('allreduceGrads then update equals step, and the learning rate can change between steps', async () => {
    const store = await create('local');
    const w = Float32Array.of(1);
    const trainer = new Trainer([w], 'sgd', { kvstore: store, optimizerParams: { learningRate: 1 } });
    trainer.grads[0]!.set([1]);
    await trainer.allreduceGrads();
    await trainer.update(2);
    trainer.setLearningRate(0.25);
    await trainer.step(1);
    expect([arr(w), trainer.learningRate, trainer.updateOnKvstore]).toEqual([[0.25], 0.25, false]);
  });

  it('rejects bad parameters, optimizers and batch sizes with exact messages', () => {
    expect(() => new Trainer([[1, 2]] as never, 'sgd')).toThrow(
      expect.objectContaining({ message: 'Expected a list or record of Float32Array/Float64Array parameters for params but received Array(1)' }),
    );
    expect(() => new Trainer([], 'sgd', { kvstore: 'dist_async' })).toThrow(expect.objectContaining({ name: 'UnsupportedError' }));
    expect(() => new Trainer([], new SGD(), { optimizerParams: { learningRate: 1 } })).toThrow(
      expect.objectContaining({ message: 'Expected no optimizerParams with an Optimizer object for optimizerParams but received an object' }),
    );
    expect(() => new Trainer([], 'sgd').step(0)).toThrow(expect.objectContaining({ name: 'RangeError', message: 'Expected a number > 0 for batchSize but received 0' }));
  });
});
