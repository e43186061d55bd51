import { describe, expect, it } from 'vitest';
import { Adam, createOptimizer, Momentum, Sgd } from '../../src/index.js';
import { argError, caught } from './fixtures.js';

const f = Math.fround;

describe('optimizers update the flat buffer exactly as their formulas say', () => {
  it('Sgd: p -= lr * g', () => {
    const p = Float32Array.of(1, -2, 0.5);
    const opt = new Sgd({ learningRate: 0.25 });
    opt.apply(p, Float32Array.of(4, -8, 2));
    expect(Array.from(p)).toEqual([0, 0, 0]);
    expect(opt.steps).toBe(1);
  });

  it('Momentum: v = m v + g; p -= lr v (and the Nesterov form)', () => {
    const p = Float32Array.of(0);
    const opt = new Momentum({ learningRate: 1, momentum: 0.5 });
    opt.apply(p, Float32Array.of(1));
    opt.apply(p, Float32Array.of(1));
    expect(Array.from(p)).toEqual([-2.5]);
    const q = Float32Array.of(0);
    const nesterov = new Momentum({ learningRate: 1, momentum: 0.5, nesterov: true });
    nesterov.apply(q, Float32Array.of(1)); // v = 1, step g + m v = 1.5
    nesterov.apply(q, Float32Array.of(1)); // v = 1.5, step 1.75
    expect(Array.from(q)).toEqual([-3.25]);
  });

  it("Adam: torch's bias-corrected update", () => {
    const p = Float32Array.of(1, 1);
    const opt = new Adam({ learningRate: 0.1 });
    const g1 = [3, -0.5];
    const g2 = [1, 2];
    opt.apply(p, Float32Array.from(g1));
    opt.apply(p, Float32Array.from(g2));
    const want = [0, 1].map((i) => {
      let [m, v, w] = [0, 0, 1];
      for (const [t, g] of [[1, g1[i]!], [2, g2[i]!]] as const) {
        m = f(0.9 * m + 0.1 * g);
        v = f(0.999 * v + 0.001 * g * g);
        w = f(w - ((0.1 / (1 - 0.9 ** t)) * m) / (Math.sqrt(v) / Math.sqrt(1 - 0.999 ** t) + 1e-8));
      }
      return w;
    });
    expect(Array.from(p)).toEqual(want);
    expect(want[0]).toBeCloseTo(0.81289, 5); // by hand: 0.9 - (0.1 / 0.19) * 0.37 / (sqrt(0.009991) / sqrt(0.001999))
  });

  it('createOptimizer builds each type and validates with exact messages', () => {
    expect(createOptimizer({ type: 'momentum', learningRate: 0.1, nesterov: true })).toBeInstanceOf(Momentum);
    expect(caught(() => createOptimizer({ type: 'rmsprop', learningRate: 0.1 } as never))).toEqual(
      argError('TypeError', "Expected one of 'sgd', 'momentum', 'adam' for optimizer.type but received 'rmsprop'"),
    );
    expect(caught(() => createOptimizer({ type: 'sgd' } as never))).toEqual(
      argError('TypeError', 'Expected a finite number for learningRate but received undefined'),
    );
    expect(caught(() => createOptimizer({ type: 'adam', learningRate: 1e-3, beta: 0.9 } as never))).toEqual({
      name: 'TypeError', code: 'ERR_KOLO_UNKNOWN_OPTION', message: "Unknown option 'beta' for Adam; did you mean 'beta1'?",
    });
  });
});
