import { describe, expect, it } from 'vitest';
import { create, SGD } from '../../src/index.js';

const f32 = (...v: number[]) => Float32Array.from(v);
const arr = (a: ArrayLike<number>) => Array.from(a);

describe('a local store', () => {
  it('is rank 0 of 1 worker, with AIACC local_rank and snake_case aliases', async () => {
    const store = await create();
    expect([store.type, store.rank, store.numWorkers, store.localRank, store.num_workers, store.local_rank]).toEqual(['local', 0, 1, 0, 1, 0]);
    expect(store.isCapable('optimizer')).toBe(true);
    expect(store.is_capable('optimizer')).toBe(true);
  });

  it('sums several values of one key and replaces the stored value', async () => {
    const store = await create('local');
    await store.init(3, f32(1, 2));
    await store.push(3, [f32(1, 1), f32(2, 3)]);
    const out = new Float32Array(2);
    await store.pull(3, { out });
    expect(arr(out)).toEqual([3, 4]);
  });

  it('takes max and min over the values of one key', async () => {
    const store = await create('local');
    await store.init(['hi', 'lo'], [new Int32Array(2), new Int32Array(2)]);
    await store.push('hi', [Int32Array.of(4, -1), Int32Array.of(2, 5)], { op: 'max' });
    await store.push('lo', [Int32Array.of(4, -1), Int32Array.of(2, 5)], { op: 'min' });
    const out = [new Int32Array(2), new Int32Array(2)];
    await store.pull(['hi', 'lo'], { out });
    expect(out.map(arr)).toEqual([
      [4, 5],
      [2, -1],
    ]);
  });

  it('runs operations on a key in call order, and copies values at call time', async () => {
    const store = await create('local');
    void store.init(0, f32(0));
    const value = f32(5);
    void store.push(0, value);
    value[0] = 100;
    const out = new Float32Array(1);
    await store.pull(0, { out });
    expect(arr(out)).toEqual([5]);
  });

  it('applies the optimizer to pushes of parameter keys only, and saves its states', async () => {
    const store = await create('local');
    store.set_optimizer(new SGD({ learningRate: 0.5, momentum: 0.5 }));
    await store.init('w', f32(1, 1));
    await store.init('buf', f32(0), { paramOnly: true });
    await store.push('w', f32(2, -2));
    await store.push('w', f32(2, -2)); // mom = -1, 1 then 0.5 * mom - 1 = -1.5, 1.5
    await store.push('buf', f32(7), { op: 'max' });
    const w = new Float32Array(2);
    const buf = new Float32Array(1);
    await store.pull(['w', 'buf'], { out: [w, buf] });
    expect([arr(w), arr(buf)]).toEqual([[-1.5, 3.5], [7]]);
  });

  it('pushpull writes into the values without out; broadcast writes into out', async () => {
    const store = await create('local');
    await store.init(0, f32(9));
    const value = f32(4);
    await store.pushpull(0, value);
    const out = new Float32Array(2);
    await store.broadcast(1, f32(6, 7), { out });
    expect([arr(value), arr(out)]).toEqual([[4], [6, 7]]);
  });

  it('rowSparsePull keeps the requested rows of a shaped key, per output', async () => {
    const store = await create('local');
    await store.init('e', f32(1, 2, 3, 4, 5, 6), { shape: [3, 2] });
    const outs = [new Float32Array(6), new Float32Array(6)];
    await store.row_sparse_pull('e', { out: outs, rowIds: [[2], Int32Array.of(0, 1)] });
    expect(outs.map(arr)).toEqual([
      [0, 0, 0, 0, 5, 6],
      [1, 2, 3, 4, 0, 0],
    ]);
  });

  it('custom updaters receive the key, the summed value and the stored value', async () => {
    const store = await create('local');
    const calls: unknown[] = [];
    store._set_updater((key, grad, weight) => {
      calls.push([key, arr(grad as Float32Array), arr(weight as Float32Array)]);
      (weight as Float32Array)[0] = 42;
    });
    await store.init(7, f32(1));
    await store.push(7, [f32(2), f32(3)]);
    const out = new Float32Array(1);
    await store.pull(7, { out });
    expect([calls, arr(out)]).toEqual([[[7, [5], [1]]], [42]]);
  });

  it('barrier resolves at once', async () => {
    await expect((await create('local'))._barrier()).resolves.toBeUndefined();
  });
});

describe('a device store with 2-bit compression', () => {
  it('quantizes each value with its own residual, then sums the dequantized values', async () => {
    const store = await create('device');
    store.setGradientCompression({ type: '2bit', threshold: 0.5 });
    await store.init(0, new Float32Array(2));
    const out = new Float32Array(2);
    await store.pushpull(0, [f32(0.25, 0.75), f32(0.5, -0.25)], { out });
    expect(arr(out)).toEqual([0.5, 0.5]); // value 0 sends 0, +0.5; value 1 sends +0.5, 0
    await store.pushpull(0, [f32(0.25, 0.75), f32(0.5, -0.25)], { out });
    expect(arr(out)).toEqual([1, 0]); // residuals 0.25, 0.25 | 0, -0.25 -> +, + | +, -
  });
});
