import { afterEach, describe, expect, it } from 'vitest';
import {
  allreduce,
  broadcast,
  groupedAllreduce,
  groupedAllreduceSync,
  init,
  shutdown,
} from '../../src/index.js';
import { groupMemberNames, requestName } from '../../src/collectives/request-names.js';
import { useCleanEnv } from './clean-env.js';
import { createFakeBinding, type FakeBinding } from './fake-binding.js';

useCleanEnv();
afterEach(() => shutdown());

const store = { kind: 'file', path: '/tmp/kolo-unit' } as const;
const names = (binding: FakeBinding) => binding.calls.flatMap((c) => c.requests.map((r) => r.name));

describe('requestName', () => {
  it('counts unnamed requests per op and keeps named ones as given', () => {
    const counters = new Map<string, number>();
    expect(requestName(counters, { op: 'allreduce' })).toBe('allreduce.noname.0');
    expect(requestName(counters, { op: 'allreduce', name: 'w' })).toBe('w');
    expect(requestName(counters, { op: 'broadcast' })).toBe('broadcast.noname.0');
    expect(requestName(counters, { op: 'allreduce' })).toBe('allreduce.noname.1');
  });

  it('names group members 1-based', () => {
    expect(groupMemberNames('grouped_allreduce.g', 3)).toEqual([
      'grouped_allreduce.g_1of3',
      'grouped_allreduce.g_2of3',
      'grouped_allreduce.g_3of3',
    ]);
  });
});

describe('process sets', () => {
  it('scope names and unnamed counters per set, so two sets may use one name at once', () => {
    const counters = new Map<string, number>();
    expect(requestName(counters, { op: 'barrier', processSet: 2 })).toBe('barrier.noname.0@ps2');
    expect(requestName(counters, { op: 'barrier', processSet: 3 })).toBe('barrier.noname.0@ps3');
    expect(requestName(counters, { op: 'barrier' })).toBe('barrier.noname.0');
    expect(requestName(counters, { op: 'barrier', processSet: 2 })).toBe('barrier.noname.1@ps2');
    expect(requestName(counters, { op: 'allreduce', name: 'grad', processSet: 2 })).toBe('grad@ps2');
  });
});

describe('names on the wire', () => {
  it('are deterministic per op, skip failed validations and restart each generation', async () => {
    const binding = createFakeBinding();
    await init({ binding, store });
    await allreduce(new Float32Array(1));
    expect(() => allreduce(new Float32Array(1), { shape: [2] })).toThrow();
    await broadcast(new Float32Array(1), { root: 0 });
    await allreduce(new Float32Array(1), { name: 'loss' });
    await allreduce(new Float32Array(1));
    await shutdown();
    await init({ binding, store });
    await allreduce(new Float32Array(1));
    expect(names(binding)).toEqual([
      'allreduce.noname.0',
      'broadcast.noname.0',
      'loss',
      'allreduce.noname.1',
      'allreduce.noname.0',
    ]);
  });

  it('grouped allreduce negotiates one group with member names', async () => {
    const binding = createFakeBinding();
    await init({ binding, store, rank: 0, size: 2 });
    const a = new Float32Array([1]);
    const b = new Int32Array([2, 3]);
    const [ra, rb] = await groupedAllreduce([a, b], { op: 'sum' });
    expect([ra, rb]).toEqual([new Float32Array([2]), new Int32Array([4, 6])]);
    groupedAllreduceSync([a], { name: 'g', outputs: [a] });
    expect(a).toEqual(new Float32Array([1]));
    expect(binding.calls.map((c) => c.grouped)).toEqual([true, true]);
    expect(names(binding)).toEqual([
      'grouped_allreduce.noname.0_1of2',
      'grouped_allreduce.noname.0_2of2',
      'g_1of1',
    ]);
  });

  it('grouped allreduce packs the arrays of each dtype into one request, in call order', async () => {
    const binding = createFakeBinding();
    await init({ binding, store, rank: 0, size: 2 });
    const f1 = new Float32Array([1, 2]);
    const i1 = new Int32Array([3]);
    const f2 = new Float32Array([4, 5, 6, 7, 8, 9]);
    const out = new Float32Array(6);
    const results = await groupedAllreduce([f1, i1, f2], { op: 'sum', shapes: [undefined, undefined, [2, 3]], outputs: [f1, undefined, out] });
    expect(results).toEqual([new Float32Array([2, 4]), new Int32Array([6]), new Float32Array([8, 10, 12, 14, 16, 18])]);
    expect(results[0]).toBe(f1);
    expect(results[2]).toBe(out);
    const [float, int] = binding.calls[0]!.requests;
    expect(binding.calls[0]!.grouped).toBe(true);
    expect([float!.name, float!.shape, float!.input, float!.parts!.shapes]).toEqual(['grouped_allreduce.noname.0_1of2', [8], undefined, [[2], [2, 3]]]);
    expect(float!.parts!.inputs[0]).toBe(f1);
    expect(float!.parts!.inputs[1]).toBe(f2);
    expect(float!.parts!.outputs[0]).toBe(f1);
    expect(float!.parts!.outputs[1]).toBe(out);
    expect([int!.name, int!.shape, int!.parts!.shapes]).toEqual(['grouped_allreduce.noname.0_2of2', [1], [[1]]]);
    expect(int!.parts!.outputs[0]).toBe(results[1]);
  });

  it('grouped allreduce validates every member before naming any', async () => {
    const binding = createFakeBinding();
    await init({ binding, store });
    expect(() => groupedAllreduce([new Float32Array(1), [1] as never])).toThrow(
      'Expected a Float32Array, Float64Array, Int32Array, BigInt64Array, Uint8Array, Int8Array or Uint16Array (float16) for arrays[1] but received [1]',
    );
    expect(() => groupedAllreduce([])).toThrow(
      'Expected a non-empty array of TypedArrays for arrays but received []',
    );
    expect(() => groupedAllreduce([new Float32Array(2)], { shapes: [] })).toThrow(
      'Expected an array of 1 entries (one per array) for shapes but received []',
    );
    const two = [new Float32Array(2), new Float32Array(2)];
    expect(() => groupedAllreduce(two, { shapes: [undefined, [3]] })).toThrow(
      'Expected a shape whose product is 2 (the length of data) for shapes[1] but received [3]',
    );
    expect(() => groupedAllreduce(two, { outputs: [new Int32Array(2), undefined] })).toThrow(
      'Expected a Float32Array of length 2 for outputs[0] but received Int32Array(2)',
    );
    expect(() => groupedAllreduce(two, { outputs: [undefined, new Float32Array(1)] })).toThrow(
      'Expected a Float32Array of length 2 for outputs[1] but received Float32Array(1)',
    );
    await groupedAllreduce([new Float32Array(1)]);
    expect(names(binding)).toEqual(['grouped_allreduce.noname.0_1of1']);
  });
});
