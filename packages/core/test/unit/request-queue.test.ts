import { afterEach, describe, expect, it } from 'vitest';
import { MismatchError, allreduce, allreduceSync, barrier, broadcast, init, shutdown } from '../../src/index.js';
import { useCleanEnv } from './clean-env.js';
import { createFakeBinding, nativeError, type FakeBinding } from './fake-binding.js';

useCleanEnv();
afterEach(() => shutdown());

const store = { kind: 'file', path: '/tmp/kolo-unit' } as const;

async function start(): Promise<FakeBinding> {
  const binding = createFakeBinding();
  await init({ binding, store, rank: 0, size: 2 });
  return binding;
}

const names = (binding: FakeBinding) => binding.calls.map((c) => `${c.requests[0]?.name}${c.sync ? ' (sync)' : ''}`);

describe('async calls of one JS turn', () => {
  it('reach the engine as one batch, each settling with its own result', async () => {
    const binding = await start();
    const a = allreduce(new Float32Array([1, 2]), { name: 'a', op: 'sum' });
    const b = broadcast(new Int32Array([7]), { name: 'b', root: 0 });
    const c = allreduce(new Float64Array([3]), { name: 'c' });
    expect(binding.calls).toEqual([]);
    expect([...(await a), ...(await b), ...(await c)]).toEqual([2, 4, 7, 3]);
    await barrier();
    expect(binding.batches).toEqual([3, 1]);
    expect(names(binding)).toEqual(['a', 'b', 'c', 'barrier.noname.0']);
  });

  it('reach the engine before a blocking call made after them', async () => {
    const binding = await start();
    const early = allreduce(new Float32Array([1]), { name: 'early', op: 'sum' });
    expect(allreduceSync(new Float32Array([2]), { name: 'blocking', op: 'sum' })).toEqual(new Float32Array([4]));
    const late = allreduce(new Float32Array([3]), { name: 'late', op: 'sum' });
    expect([...(await early), ...(await late)]).toEqual([2, 6]);
    expect(names(binding)).toEqual(['early', 'blocking (sync)', 'late']);
    expect(binding.batches).toEqual([1, 1]);
  });

  it('fail one by one: a rejected call leaves the others of its batch alone', async () => {
    const binding = await start();
    binding.failWith = (requests) =>
      requests[0]?.name === 'bad' ? nativeError('KOLO_MISMATCH', "Mismatched ALLREDUCE tensor shapes for 'bad'") : undefined;
    const results = await Promise.allSettled(
      ['ok1', 'bad', 'ok2'].map((name) => allreduce(new Int32Array([5]), { name, op: 'sum' })),
    );
    expect(results.map((r) => (r.status === 'fulfilled' ? [...r.value] : (r.reason as Error).constructor.name))).toEqual([
      [10],
      'MismatchError',
      [10],
    ]);
  });

  it('past the first 8 of a turn, reject with the stack of the function awaiting them', async () => {
    const binding = await start();
    binding.failWith = (requests) =>
      requests[0]?.name === 'w11' ? nativeError('KOLO_MISMATCH', "Mismatched ALLREDUCE tensor shapes for 'w11'") : undefined;
    async function stepOfManyTensors() {
      await Promise.all(Array.from({ length: 12 }, (_, i) => allreduce(new Float32Array(1), { name: `w${i}` })));
    }
    const error = (await stepOfManyTensors().catch((e: unknown) => e)) as MismatchError;
    expect(MismatchError.isInstance(error)).toBe(true);
    expect([error.opName, error.stack?.split('\n')[0]]).toEqual([
      'w11',
      "MismatchError: Mismatched ALLREDUCE tensor shapes for 'w11'. Every rank must submit 'w11' with the same dtype, shape, op, root and scale factors.",
    ]);
    expect(error.stack?.split('\n')[1]).toMatch(/^ {4}at async Promise\.all \(index 11\)$/);
    expect(error.stack?.split('\n')[2]).toMatch(/^ {4}at (async )?stepOfManyTensors \(.*request-queue\.test\.ts:\d+:\d+\)$/);
  });

  it('a blocking call that fails throws with its caller in the stack', async () => {
    const binding = await start();
    binding.failWith = () => nativeError('KOLO_MISMATCH', "Mismatched ALLREDUCE tensor shapes for 's'");
    function blockingStep() {
      return allreduceSync(new Float32Array(1), { name: 's' });
    }
    let error: Error | undefined;
    try {
      blockingStep();
    } catch (e) {
      error = e as Error;
    }
    expect(error?.stack?.split('\n')[1]).toMatch(/^ {4}at allreduceSync \(.*allreduce\.ts:\d+:\d+\)$/);
    expect(error?.stack?.split('\n')[2]).toMatch(/^ {4}at blockingStep \(.*request-queue\.test\.ts:\d+:\d+\)$/);
  });
});
