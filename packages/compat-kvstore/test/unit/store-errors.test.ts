import { describe, expect, it } from 'vitest';
import { create, SGD } from '../../src/index.js';

const arg = (name: string, message: string) => expect.objectContaining({ name, code: 'ERR_KOLO_INVALID_ARG', message });
const f32 = (...v: number[]) => Float32Array.from(v);

describe('store misuse throws at once with the exact message', () => {
  it('push or pull of a key that was never initialized', async () => {
    const store = await create('local');
    expect(() => store.push(5, f32(1))).toThrow(arg('RangeError', 'Expected a key initialized with init() for push key but received 5'));
    expect(() => store.pull(5, { out: f32(1) })).toThrow(arg('RangeError', 'Expected a key initialized with init() for pull key but received 5'));
  });

  it('a second init of a key, including through broadcast', async () => {
    const store = await create('local');
    await store.init('w', f32(1));
    const what = 'a key not initialized yet (a key is initialized once, by init or broadcast; update it with push or pushpull)';
    expect(() => store.init('w', f32(1))).toThrow(arg('RangeError', `Expected ${what} for init key but received 'w'`));
    expect(() => store.broadcast('w', f32(1), { out: f32(0) })).toThrow(arg('RangeError', `Expected ${what} for broadcast key but received 'w'`));
  });

  it('mixed key kinds, in one call or across calls', async () => {
    const store = await create('local');
    expect(() => store.init([1, 'b'], [f32(1), f32(2)])).toThrow(
      arg('TypeError', "Expected keys of one kind (all integers or all strings) for keys but received Array(2)"),
    );
    await store.init(1, f32(1));
    expect(() => store.init('b', f32(1))).toThrow(
      arg('TypeError', "Expected an integer key (mixed key types are not allowed in one store) for key but received 'b'"),
    );
  });

  it('values of the wrong dtype or length, and bad keys', async () => {
    const store = await create('local');
    await store.init(0, f32(1, 2));
    expect(() => store.push(0, Int32Array.of(1, 2))).toThrow(arg('TypeError', 'Expected a Float32Array of 2 elements for value of key 0 but received Int32Array(2)'));
    expect(() => store.push(0, [f32(1, 2), f32(1)])).toThrow(arg('TypeError', 'Expected a Float32Array of 2 elements for value[1] of key 0 but received Float32Array(1)'));
    expect(() => store.pull(0, { out: f32(0) })).toThrow(arg('TypeError', 'Expected a Float32Array of 2 elements for out of key 0 but received Float32Array(1)'));
    expect(() => store.push(1.5, f32(1))).toThrow(arg('TypeError', 'Expected an integer or a non-empty string for key but received 1.5'));
    expect(() => store.push([0, 1], [f32(1, 2)])).toThrow(arg('TypeError', 'Expected a list of 2 entries (one per key) for values but received Array(1)'));
  });

  it('a missing out, a misspelt option and a bad op or priority', async () => {
    const store = await create('local');
    await store.init(0, f32(1));
    expect(() => store.pull(0, {} as never)).toThrow(arg('TypeError', 'Expected an output (or a list of outputs) per key for out but received undefined'));
    expect(() => store.pull(0, { out: f32(0), priorty: 1 } as never)).toThrow(
      expect.objectContaining({ name: 'TypeError', code: 'ERR_KOLO_UNKNOWN_OPTION', message: "Unknown option 'priorty' for pull; did you mean 'priority'?" }),
    );
    expect(() => store.push(0, f32(1), { op: 'product' as never })).toThrow(arg('TypeError', "Expected one of 'sum', 'max', 'min' for op but received 'product'"));
    expect(() => store.push(0, f32(1), { priority: 0.5 })).toThrow(arg('RangeError', 'Expected an integer for priority but received 0.5'));
    expect(() => store.init(1, f32(1), { paramOnly: 1, param_only: 1 } as never)).toThrow(
      arg('TypeError', "Expected only one of 'paramOnly' and 'param_only' for init options but received an object"),
    );
  });

  it('max or min on a parameter key once an optimizer is set', async () => {
    const store = await create('local');
    store.setOptimizer(new SGD());
    await store.init(0, f32(1));
    expect(() => store.push(0, f32(1), { op: 'max' })).toThrow(
      arg('TypeError', "Expected op 'sum' (an optimizer is set; init the key with paramOnly for max/min buffers) for op of key 0 but received 'max'"),
    );
    await store.init(1, Int32Array.of(1));
    expect(() => store.push(1, Int32Array.of(1))).toThrow(
      arg('TypeError', 'Expected a Float32Array or Float64Array (an optimizer is set) for value of key 1 but received Int32Array(1)'),
    );
  });

  it('gradient compression on a local store, and optimizer states without an optimizer', async () => {
    const store = await create('local');
    expect(() => store.set_gradient_compression({ type: '2bit' })).toThrow(expect.objectContaining({ name: 'UnsupportedError', code: 'KOLO_UNSUPPORTED' }));
    expect(() => store.saveOptimizerStates('x.states')).toThrow(
      expect.objectContaining({ code: 'ERR_KOLO_INVALID_STATE', message: "saveOptimizerStates() needs the optimizer's states; call setOptimizer() first." }),
    );
    expect(() => store.isCapable('sparse' as never)).toThrow(arg('TypeError', "Expected one of 'optimizer' for capability but received 'sparse'"));
  });
});
