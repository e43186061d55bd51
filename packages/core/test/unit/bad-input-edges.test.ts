import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addProcessSet, allgather, allreduce, alltoall, barrier, broadcast, broadcastObject, init, NotInitializedError, ProcessSet, reducescatter, shutdown } from '../../src/index.js';
import { setBindingForTesting } from '../../src/runtime/binding-source.js';
import { useCleanEnv } from './clean-env.js';
import { createFakeBinding } from './fake-binding.js';

useCleanEnv();
const store = { kind: 'file', path: '/tmp/kolo-bad-input-edges' } as const;
beforeEach(() => init({ binding: createFakeBinding(), store, rank: 0, size: 2 }));
afterEach(async () => {
  await shutdown();
  setBindingForTesting(undefined);
});

describe('bad input at the TS edge, continued', () => {
  it('passes zero-length tensors through every data collective', async () => {
    expect(Array.from(await allreduce(new Float32Array(0), { op: 'sum' }))).toEqual([]);
    expect(Array.from(await broadcast(new Int32Array(0), { root: 1 }))).toEqual([]);
    expect((await allgather(new Float64Array(0))).shape).toEqual([0]);
    expect((await allgather(new Float64Array(0), { shape: [0, 3] })).shape).toEqual([0, 3]);
    expect((await alltoall(new Int8Array(0))).receivedSplits).toEqual([0, 0]);
    expect(Array.from((await reducescatter(new Float32Array(0))).data)).toEqual([]);
  });

  it('refuses dimensions whose product overflows even when a zero hides it', () => {
    expect(() => allgather(new Float32Array(0), { shape: [0, 2 ** 30, 2 ** 30] })).toThrow(
      'Expected dimensions whose product (zeros aside) is at most 2^53 - 1 for shape but received [0, 1073741824, 1073741824]',
    );
    expect(() => allreduce(new Float32Array(2), { shape: [2 ** 40, 2 ** 40] })).toThrow(
      'Expected dimensions whose product (zeros aside) is at most 2^53 - 1 for shape but received [1099511627776, 1099511627776]',
    );
    expect(() => allreduce(new Float32Array(2), { shape: [2, 2 ** 40] })).toThrow(
      'Expected a shape whose product is 2 (the length of data) for shape but received [2, 1099511627776]',
    );
  });

  it('refuses arrays over a resizable ArrayBuffer, which could shrink under the engine', () => {
    const resizable = new ArrayBuffer(16, { maxByteLength: 64 });
    const text =
      "Expected an array over a fixed-length buffer (a resizable ArrayBuffer may shrink while the engine reads or writes it; pass a copy from array.slice()) for data but received 'a resizable ArrayBuffer'";
    expect(() => allreduce(new Float32Array(resizable))).toThrow(text);
    const fixedView = new Float32Array(resizable, 0, 4);
    resizable.resize(8);
    expect(() => allreduce(fixedView)).toThrow(text);
    expect(() => broadcast(new Float32Array(resizable), { root: 0 })).toThrow(text);
  });

  it('takes the dtype from the array itself: other realms and Buffer count, a spoofed tag does not', async () => {
    const otherRealm = runInNewContext('new Float64Array([1.5, 2])') as Float64Array;
    expect(Array.from(await allreduce(otherRealm, { op: 'sum' }))).toEqual([3, 4]);
    expect(Array.from(await allreduce(Buffer.from([1, 2]), { op: 'sum' }))).toEqual([2, 4]);
    const disguised = Object.defineProperty(new Uint32Array(2), Symbol.toStringTag, { value: 'Float32Array' });
    expect(() => allreduce(disguised as unknown as Float32Array)).toThrow(
      'Expected a Float32Array, Float64Array, Int32Array, BigInt64Array, Uint8Array, Int8Array or Uint16Array (float16) for data but received Uint32Array(2)',
    );
  });

  it('refuses non-integer, non-number and out-of-range roots on every rooted call', () => {
    expect(() => broadcast(new Float32Array(1), { root: 2 })).toThrow('Expected an integer in [0, 1] for root but received 2');
    expect(() => broadcast(new Float32Array(1), { root: '0' as never })).toThrow("Expected an integer in [0, 1] for root but received '0'");
    expect(() => broadcast(new Float32Array(1), { root: NaN })).toThrow('Expected an integer in [0, 1] for root but received NaN');
    expect(() => broadcastObject({ a: 1 }, { root: 1.5 })).toThrow('Expected an integer in [0, 1] for root but received 1.5');
  });

  it('refuses a hand-made ProcessSet instead of crashing on it', async () => {
    const forged = new (ProcessSet as unknown as new (ranks: number[]) => ProcessSet)([0, 9]);
    expect(() => allreduce(new Float32Array(1), { processSet: forged })).toThrow(
      'Expected a ProcessSet from addProcessSet() for processSet but received an instance of ProcessSet',
    );
    await expect(addProcessSet([0, 2])).rejects.toThrow('Expected an integer in [0, 1] for ranks[1] but received 2');
  });

  it('throws NotInitializedError for every op after shutdown, and shutdown twice is a no-op', async () => {
    await shutdown();
    for (const op of [() => allreduce(new Float32Array(1)), () => broadcast(new Float32Array(1), { root: 0 }), () => barrier()]) {
      expect(op).toThrow(NotInitializedError);
      expect(op).toThrow('Kolo has not been initialized; call init() first.');
    }
    await expect(shutdown()).resolves.toBeUndefined();
  });
});
