import { afterEach, describe, expect, it } from 'vitest';
import { allgather, allgatherSync, allreduce, broadcast, broadcastSync, shutdown } from '../../src/index.js';
import { useCleanEnv } from './clean-env.js';
import { startFake } from './start-fake.js';

// Broadcasts and allgathers that repeat a named call of the same arrays reuse its validated
// request, as allreduces do (src/collectives/recurring-plans.ts; recurring-plans.test.ts has the
// allreduce and grouped cases): what repeats, what makes a new request, and that each call still
// gets its own result.

useCleanEnv();
afterEach(() => shutdown());

describe('broadcast and allgather of the same arrays and options, call after call', () => {
  it('sends a broadcast’s request again while root, name, shape and output repeat', async () => {
    const binding = await startFake({ rank: 1, size: 2 });
    const data = new Float32Array([1, 2]);
    const call = (extra: object = {}) => broadcast(data, { root: 0, name: 'w', output: data, shape: [2, 1], ...extra });
    expect(await call()).toBe(data);
    expect(await call()).toBe(data);
    expect(broadcastSync(data, { root: 0, name: 'w', output: data, shape: [2, 1] })).toBe(data);
    await call({ root: 1 });
    await call({ shape: [1, 2] });
    const requests = binding.calls.map((c) => c.requests[0]);
    expect(requests[1]).toBe(requests[0]);
    expect(requests[2]).toBe(requests[0]);
    expect(requests[3]).not.toBe(requests[0]);
    expect(requests.map((r) => [r?.root, r?.shape])).toEqual([[0, [2, 1]], [0, [2, 1]], [0, [2, 1]], [1, [2, 1]], [0, [1, 2]]]);
  });

  it('makes a new broadcast request, and a new result each call, without an output', async () => {
    const binding = await startFake({ rank: 0, size: 2 });
    const data = new Float32Array([1, 2]);
    const first = await broadcast(data, { root: 0, name: 'w' });
    const second = await broadcast(data, { root: 0, name: 'w' });
    expect(second).not.toBe(first);
    expect(binding.calls[1]?.requests[0]).not.toBe(binding.calls[0]?.requests[0]);
  });

  it('sends an allgather’s request again and makes each call’s result from its own results', async () => {
    const binding = await startFake({ rank: 0, size: 2 });
    const data = new Float32Array([1, 2]);
    const first = await allgather(data, { name: 'rows', shape: [1, 2] });
    data[0] = 5;
    const second = await allgather(data, { name: 'rows', shape: [1, 2] });
    const third = allgatherSync(data, { name: 'rows', shape: [1, 2] });
    expect(second.data).not.toBe(first.data);
    expect([...first.data]).toEqual([1, 2, 1, 2]);
    expect([...second.data]).toEqual([5, 2, 5, 2]);
    expect(second.shape).toEqual([2, 2]);
    expect(third.data).not.toBe(second.data);
    const output = new Float32Array(4);
    expect((await allgather(data, { name: 'rows', shape: [1, 2], output })).data).toBe(output);
    expect((await allgather(data, { name: 'rows', shape: [1, 2], output })).data).toBe(output);
    const requests = binding.calls.map((c) => c.requests[0]);
    expect(requests[1]).toBe(requests[0]);
    expect(requests[2]).toBe(requests[0]);
    expect(requests[3]).not.toBe(requests[0]);
    expect(requests[4]).toBe(requests[3]);
  });

  it('still refuses an allgather output of the wrong length on a repeated call', async () => {
    await startFake({ rank: 0, size: 2 });
    const data = new Float32Array([1, 2]);
    const output = new Float32Array(3);
    const call = () => allgather(data, { name: 'rows', output });
    await expect(call()).rejects.toThrow('Expected a Float32Array of length 4 (the gathered shape [4])');
    await expect(call()).rejects.toThrow('Expected a Float32Array of length 4 (the gathered shape [4])');
  });

  it('finds each of an array’s last four plans when calls of it alternate', async () => {
    const binding = await startFake({ rank: 0, size: 2 });
    const data = new Float32Array([1, 2]);
    const outputs = Array.from({ length: 5 }, () => new Float32Array(2));
    const call = (k: number) => allreduce(data, { name: `x${k}`, op: 'sum', output: outputs[k] });
    for (let round = 0; round < 2; round++) for (let k = 0; k < 4; k++) await call(k);
    await call(4); // a fifth: the least recently used (x0's) goes
    await call(3);
    await call(0);
    const requests = binding.calls.map((c) => c.requests[0]);
    for (let k = 0; k < 4; k++) expect(requests[4 + k]).toBe(requests[k]);
    expect(requests[9]).toBe(requests[3]);
    expect(requests[10]).not.toBe(requests[0]);
    expect(requests.map((r) => r?.name)).toEqual(['x0', 'x1', 'x2', 'x3', 'x0', 'x1', 'x2', 'x3', 'x4', 'x3', 'x0']);
  });

  it('keeps each collective’s plans apart for the same array and name', async () => {
    const binding = await startFake({ rank: 0, size: 2 });
    const data = new Float32Array([1, 2]);
    await allreduce(data, { name: 'x', output: data, op: 'sum' });
    await broadcast(data, { name: 'x', output: data, root: 0 });
    await allreduce(data, { name: 'x', output: data, op: 'sum' });
    await broadcast(data, { name: 'x', output: data, root: 0 });
    const requests = binding.calls.map((c) => c.requests[0]);
    expect(requests[2]).toBe(requests[0]);
    expect(requests[3]).toBe(requests[1]);
    expect(requests[1]).not.toBe(requests[0]);
  });
});
