import * as tf from '@tensorflow/tfjs';
import { init, shutdown } from '@kolo/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DistributedOptimizer, isDistributedOptimizer, unwrapOptimizer } from '../../src/index.js';

beforeAll(() => init());
afterAll(() => shutdown());

/** y = x·w with w = [[1], [2]]: the gradient of sum(y) over a batch is the column sums of x. */
function linear(): { w: tf.Variable; loss: (x: tf.Tensor2D) => tf.Scalar } {
  const w = tf.variable(tf.tensor2d([[1], [2]]));
  return { w, loss: (x) => tf.sum(tf.matMul(x, w)) };
}

describe('DistributedOptimizer options', () => {
  it('rejects bad options with the exact messages', () => {
    const sgd = tf.train.sgd(0.1);
    expect(() => new DistributedOptimizer(sgd, { backwardPassesPerStep: 0 })).toThrow(
      'Expected an integer >= 1 for backwardPassesPerStep but received 0',
    );
    expect(() => new DistributedOptimizer(sgd, { compression: 'fp8' as 'fp16' })).toThrow(
      "Expected one of 'none', 'fp16' for compression but received 'fp8'",
    );
    expect(() => new DistributedOptimizer(sgd, { op: 'sum', gradientPredivideFactor: 2 })).toThrow(
      "Expected op 'average' (gradientPredivideFactor only splits an average) for op but received 'sum'",
    );
    expect(() => new DistributedOptimizer(sgd, { gradientPredivideFactor: 0 })).toThrow(
      'Expected a positive number for gradientPredivideFactor but received 0',
    );
    expect(() => new DistributedOptimizer(sgd, { compresion: 'fp16' } as never)).toThrow(
      "Unknown option 'compresion' for DistributedOptimizer; did you mean 'compression'?",
    );
    expect(() => new DistributedOptimizer({} as tf.Optimizer)).toThrow(
      'Expected a tfjs Optimizer that is not already distributed for optimizer but received an object',
    );
    expect(() => new DistributedOptimizer(new DistributedOptimizer(sgd))).toThrow(
      'Expected a tfjs Optimizer that is not already distributed for optimizer but received an instance of DistributedOptimizer',
    );
  });

  it('passes tfjs-layers optimizer checks and reports the wrapped class', () => {
    const adam = tf.train.adam(0.01);
    const opt = new DistributedOptimizer(adam);
    expect(opt instanceof tf.Optimizer).toBe(true);
    expect([opt.getClassName(), opt.getConfig()['learningRate']]).toEqual(['Adam', 0.01]);
    expect([isDistributedOptimizer(opt), isDistributedOptimizer(adam), unwrapOptimizer(opt) === adam]).toEqual([true, false, true]);
  });
});

describe('DistributedOptimizer on one rank', () => {
  it('applies the same update as the wrapped optimizer', () => {
    const { w, loss } = linear();
    const opt = new DistributedOptimizer(tf.train.sgd(0.5));
    opt.minimize(() => loss(tf.tensor2d([[1, 2], [3, 4]])), false, [w]);
    // w - 0.5 * [4, 6]
    expect(w.arraySync()).toEqual([[-1], [-1]]);
    expect(opt.iterations).toBe(1);
  });

  it('averages backwardPassesPerStep passes into one update', () => {
    const { w, loss } = linear();
    const opt = new DistributedOptimizer(tf.train.sgd(0.5), { backwardPassesPerStep: 2 });
    opt.minimize(() => loss(tf.tensor2d([[1, 2]])), false, [w]);
    expect([w.arraySync(), opt.iterations]).toEqual([[[1], [2]], 0]);
    opt.minimize(() => loss(tf.tensor2d([[3, 6]])), false, [w]);
    // mean gradient [2, 4]
    expect([w.arraySync(), opt.iterations]).toEqual([[[0], [0]], 1]);
  });

  it('keeps a gradient null when no rank has it, so stateful optimizers skip it', () => {
    const a = tf.variable(tf.scalar(1));
    const b = tf.variable(tf.scalar(5));
    const opt = new DistributedOptimizer(tf.train.momentum(0.5, 0.9));
    opt.minimize(() => tf.add(tf.mul(a, 2), b) as tf.Scalar, false, [a, b]);
    // b's gradient is null now: Momentum must skip it, not decay its accumulation into it.
    opt.minimize(() => tf.mul(a, 2) as tf.Scalar, false, [a, b]);
    // a: accumulations 2 then 0.9*2+2 = 3.8, so 1 - 0.5*2 - 0.5*3.8; b: 5 - 0.5*1 once.
    expect([a.arraySync(), b.arraySync()]).toEqual([Math.fround(-1.9), 4.5]);
  });

  it('counts a gradient that is null in a later pass as zeros, not as the values of the pass before', () => {
    // Every pass after the first fuses into the buffer the pass before it used.
    const a = tf.variable(tf.scalar(0));
    const b = tf.variable(tf.scalar(0));
    const opt = new DistributedOptimizer(tf.train.sgd(1), { backwardPassesPerStep: 2 });
    for (const [ga, gb] of [[1, 4], [3, 8], [5, 16]] as const) {
      opt.minimize(() => tf.add(tf.mul(a, ga), tf.mul(b, gb)) as tf.Scalar, false, [a, b]);
      opt.minimize(() => tf.mul(a, ga + 1) as tf.Scalar, false, [a, b]);
    }
    // a: -(1+2)/2 - (3+4)/2 - (5+6)/2 = -10.5; b: -(4+0)/2 - (8+0)/2 - (16+0)/2 = -14
    expect([a.arraySync(), b.arraySync(), opt.iterations]).toEqual([-10.5, -14, 3]);
  });

  it('keeps a step() in flight apart from a second one, which fails as a duplicate name', async () => {
    const v = tf.variable(tf.scalar(0));
    const opt = new DistributedOptimizer(tf.train.sgd(1));
    (await opt.step(() => tf.mul(v, 1) as tf.Scalar, { varList: [v] })).dispose();
    // Both fuse before either reduces: had the second fused into the first's buffer, the first
    // would apply 3 instead of 2.
    const first = opt.step(() => tf.mul(v, 2) as tf.Scalar, { varList: [v] });
    const second = opt.step(() => tf.mul(v, 3) as tf.Scalar, { varList: [v] });
    await expect(second).rejects.toMatchObject({ code: 'KOLO_DUPLICATE_NAME' });
    (await first).dispose();
    expect([v.arraySync(), opt.iterations]).toEqual([-3, 2]);
  });

  it("hands an optimizer that is not one of tfjs's own copies of the gradients, which it may keep", () => {
    // tfjs's own optimizers get views of the reduced buffer, which the next step rewrites; a
    // clone shares its tensor's values, so a kept view would change under the optimizer.
    class Keeping extends tf.SGDOptimizer {
      readonly kept: tf.Tensor[] = [];
      override applyGradients(grads: Parameters<tf.SGDOptimizer['applyGradients']>[0]): void {
        for (const g of Array.isArray(grads) ? grads : []) this.kept.push(tf.keep(g.tensor.clone()));
        super.applyGradients(grads);
      }
    }
    const v = tf.variable(tf.scalar(0));
    const inner = new Keeping(1);
    const opt = new DistributedOptimizer(inner);
    opt.minimize(() => tf.mul(v, 2) as tf.Scalar, false, [v]);
    opt.minimize(() => tf.mul(v, 3) as tf.Scalar, false, [v]);
    expect([inner.kept.map((t) => t.arraySync()), v.arraySync()]).toEqual([[2, 3], -5]);
  });

  it('rounds gradients to half precision with fp16 compression', () => {
    const v = tf.variable(tf.scalar(0));
    const opt = new DistributedOptimizer(tf.train.sgd(1), { compression: 'fp16' });
    opt.minimize(() => tf.mul(v, 0.1) as tf.Scalar, false, [v]);
    // 0.1 travels as half 0x2e66 = 0.0999755859375
    expect(v.arraySync()).toBe(-0.0999755859375);
  });

  it('step() computes, reduces and applies without blocking, resolving with the loss', async () => {
    const { w, loss } = linear();
    const opt = new DistributedOptimizer(tf.train.sgd(0.5));
    const value = await opt.step(() => loss(tf.tensor2d([[1, 2], [3, 4]])), { varList: [w] });
    expect([value.arraySync(), w.arraySync()]).toEqual([5 + 11, [[-1], [-1]]]);
  });

  it('trains a model under model.fit exactly like the wrapped optimizer', async () => {
    const run = async (wrap: boolean): Promise<number[]> => {
      const model = tf.sequential({ layers: [tf.layers.dense({ inputShape: [2], units: 1, kernelInitializer: 'ones' })] });
      const sgd = tf.train.sgd(0.1);
      model.compile({ optimizer: wrap ? new DistributedOptimizer(sgd) : sgd, loss: 'meanSquaredError' });
      await model.fit(tf.tensor2d([[1, 2], [3, 4], [5, 6]]), tf.tensor2d([[1], [2], [3]]), { epochs: 3, batchSize: 2, shuffle: false, verbose: 0 });
      return model.getWeights().flatMap((t) => Array.from(t.dataSync()));
    };
    expect(await run(true)).toEqual(await run(false));
  });
});
