import { afterEach, describe, expect, it } from 'vitest';
import {
  allgather,
  allgatherSync,
  alltoall,
  barrier,
  broadcast,
  broadcastSync,
  join,
  joinSync,
  reducescatter,
  reducescatterSync,
  shutdown,
} from '../../src/index.js';
import { useCleanEnv } from './clean-env.js';
import { fakeConstants } from './fake-binding.js';
import { startFake } from './start-fake.js';

useCleanEnv();
afterEach(() => shutdown());

describe('allgather, broadcast, alltoall, reducescatter', () => {
  it('allgather concatenates along dim 0', async () => {
    await startFake({ rank: 2, size: 3 });
    const { data, shape } = await allgather(new Int32Array([1, 2, 3, 4]), { shape: [2, 2] });
    expect(shape).toEqual([6, 2]);
    expect([...data]).toEqual([1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4]);
    expect(allgatherSync(new Float32Array([7])).shape).toEqual([3]);
    expect(() => allgather(new Float32Array(0), { shape: [] })).toThrow(
      'Expected a shape with at least one dimension for shape but received []',
    );
  });

  it('allgather writes into an output of the gathered size and refuses any other', async () => {
    const binding = await startFake({ rank: 1, size: 3 });
    const output = new Int32Array(6).fill(-1);
    const gathered = await allgather(new Int32Array([4, 5]), { shape: [1, 2], output });
    expect(gathered.data).toBe(output);
    expect([...output]).toEqual([4, 5, 4, 5, 4, 5]);
    expect(gathered.shape).toEqual([3, 2]);
    expect(binding.calls[0]?.requests[0]?.output).toBe(output);
    expect(allgatherSync(new Float32Array([7]), { output: new Float32Array(3) }).data).toEqual(new Float32Array([7, 7, 7]));
    // Rows without elements: the engine reports the ranks' rows (the output's length cannot).
    const none = new Int32Array(0);
    expect(allgatherSync(new Int32Array(0), { shape: [2, 0], output: none })).toEqual({ data: none, shape: [6, 0] });
    // Known only once the ranks' sizes are: the call rejects.
    await expect(allgather(new Int32Array([4, 5]), { name: 'g', output: new Int32Array(4) })).rejects.toThrow(
      "Expected an Int32Array of length 6 (the gathered shape [6]) for output of allgather 'g' but received Int32Array(4)",
    );
    // That rejection's stack leads to the code awaiting the call, not to the queue that found it.
    async function gatherStep(): Promise<unknown> {
      return await allgather(new Int32Array([4, 5]), { name: 'g2', output: new Int32Array(4) });
    }
    const late = (await gatherStep().catch((e: unknown) => e)) as RangeError;
    expect(late.message).toContain("for output of allgather 'g2'");
    expect(late.stack?.split('\n')[1]).toMatch(/^ {4}at (async )?gatherStep \(.*data-collectives\.test\.ts:\d+:\d+\)$/);
    expect(() => allgather(new Int32Array([4, 5]), { output: new Float32Array(6) as never })).toThrow(
      'Expected an Int32Array (the type of data) for output but received Float32Array(6)',
    );
    const shared = new Float64Array(8);
    expect(() => allgather(shared.subarray(0, 2), { output: shared.subarray(1, 7) })).toThrow(
      'Expected an array that does not share memory with data for output but received Float64Array(6)',
    );
    // Apart in one buffer is fine.
    expect((await allgather(shared.subarray(0, 2), { output: shared.subarray(2, 8) })).data).toEqual(new Float64Array(6));
  });

  it('with callerStacks, an allgather output refused once the sizes are known carries the call site', async () => {
    await startFake({ rank: 1, size: 3, callerStacks: true });
    function gatherStep(): Promise<unknown> {
      return allgather(new Int32Array([4, 5]), { name: 'g3', output: new Int32Array(4) });
    }
    const error = (await gatherStep().catch((e: unknown) => e)) as RangeError;
    expect(error.message).toContain("for output of allgather 'g3'");
    expect(error.stack?.split('\n')[1]).toMatch(/^ {4}at allgather \(.*allgather\.ts:\d+:\d+\)$/);
    expect(error.stack?.split('\n')[2]).toMatch(/^ {4}at gatherStep \(.*data-collectives\.test\.ts:\d+:\d+\)$/);
  });

  it('broadcast validates root and receives in place', async () => {
    const binding = await startFake({ rank: 0, size: 4 });
    const data = new Float32Array([9, 8]);
    expect(await broadcast(data, { root: 3, output: data })).toBe(data);
    expect(binding.calls[0]?.requests[0]).toMatchObject({
      type: fakeConstants.requestTypes.broadcast,
      root: 3,
      name: 'broadcast.noname.0',
    });
    expect(broadcastSync(new Uint8Array([1]), { root: 0 })).toEqual(new Uint8Array([1]));
    expect(() => broadcast(data, { root: 4 })).toThrow(
      'Expected an integer in [0, 3] for root but received 4',
    );
    expect(() => broadcast(data, undefined as never)).toThrow(
      'Expected an integer in [0, 3] for root but received undefined',
    );
  });

  it('alltoall checks splits and reports received splits', async () => {
    await startFake({ rank: 1, size: 2 });
    const data = new Float32Array([0, 1, 2, 3, 4, 5]);
    const result = await alltoall(data, { splits: [1, 2], shape: [3, 2] });
    expect(result.receivedSplits).toEqual([2, 2]);
    expect(result.shape).toEqual([4, 2]);
    expect([...result.data]).toEqual([2, 3, 4, 5, 2, 3, 4, 5]);
    expect(() => alltoall(data, { splits: [1, 1, 1] })).toThrow(
      'Expected an array of 2 non-negative integers (one per rank) for splits but received [1, 1, 1]',
    );
    expect(() => alltoall(data, { splits: [1, 2] })).toThrow(
      'Expected splits summing to 6 (the first dimension) for splits but received [1, 2]',
    );
    expect(() => alltoall(new Float32Array(3))).toThrow(
      'Expected a first dimension divisible by 2 (the number of ranks) when splits is not given for shape but received 3',
    );
  });

  it('reducescatter gives the first dim0 % size ranks one extra row', async () => {
    await startFake({ rank: 1, size: 3 });
    const data = new Float32Array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const { data: mine, shape } = await reducescatter(data, { shape: [5, 2], op: 'sum' });
    expect(shape).toEqual([2, 2]);
    expect([...mine]).toEqual([12, 15, 18, 21]);
    expect(reducescatterSync(new Float32Array(3)).shape).toEqual([1]);
    expect(() => reducescatter(data, { op: 'max' as never })).toThrow(
      "Expected one of 'average', 'sum' for op but received 'max'",
    );
  });
});

describe('barrier and join', () => {
  it('barrier resolves; join returns the last rank to join', async () => {
    const binding = await startFake({ rank: 0, size: 3 });
    await expect(barrier({ name: 'ckpt' })).resolves.toBeUndefined();
    expect(await join()).toBe(2);
    expect(joinSync()).toBe(2);
    expect(binding.calls.map((c) => c.requests[0]?.name)).toEqual([
      'ckpt',
      'join.noname.0',
      'join.noname.1',
    ]);
    expect(binding.calls[1]?.requests[0]?.type).toBe(fakeConstants.requestTypes.join);
  });
});
