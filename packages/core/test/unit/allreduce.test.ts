import { afterEach, describe, expect, it } from 'vitest';
import { MismatchError, allreduce, allreduceSync, shutdown } from '../../src/index.js';
import { useCleanEnv } from './clean-env.js';
import { fakeConstants, nativeError } from './fake-binding.js';
import { startFake } from './start-fake.js';

useCleanEnv();
afterEach(() => shutdown());

describe('allreduce', () => {
  it('averages by default and sends the ids from the binding constants', async () => {
    const binding = await startFake({ rank: 1, size: 3 });
    const data = new Float32Array([1, 2, 3]);
    const out = await allreduce(data);
    expect(out).toEqual(new Float32Array([1, 2, 3]));
    expect(out).not.toBe(data);
    const request = binding.calls[0]?.requests[0];
    expect(request).toMatchObject({
      type: fakeConstants.requestTypes.allreduce,
      dtype: fakeConstants.dtypes.float32,
      reduceOp: fakeConstants.reduceOps.average,
      name: 'allreduce.noname.0',
      shape: [3],
      prescale: 1,
      postscale: 1,
    });
    expect(request?.input).toBe(data);
  });

  it('sums, scales and reduces in place into output', async () => {
    await startFake({ rank: 0, size: 3 });
    const data = new Float64Array([1, 2]);
    const out = await allreduce(data, {
      op: 'sum',
      prescaleFactor: 2,
      postscaleFactor: 0.5,
      output: data,
    });
    expect(out).toBe(data);
    expect([...data]).toEqual([3, 6]);
  });

  it('infers every dtype from the array class; Uint16Array is float16', async () => {
    const binding = await startFake();
    const arrays = [
      new Int32Array(1),
      new BigInt64Array(1),
      new Uint8Array(1),
      new Int8Array(1),
      new Uint16Array(1),
    ];
    for (const a of arrays) await allreduce(a, { op: 'max' });
    const { dtypes } = fakeConstants;
    expect(binding.calls.map((c) => c.requests[0]?.dtype)).toEqual([
      dtypes.int32,
      dtypes.int64,
      dtypes.uint8,
      dtypes.int8,
      dtypes.float16,
    ]);
    expect(await allreduce(new BigInt64Array([5n]), { op: 'sum' })).toEqual(
      new BigInt64Array([5n]),
    );
  });

  it('the sync form blocks and returns the result', async () => {
    const binding = await startFake({ rank: 0, size: 2 });
    expect(allreduceSync(new Int32Array([3, -3]), { op: 'sum' })).toEqual(new Int32Array([6, -6]));
    expect(binding.calls[0]?.sync).toBe(true);
  });

  it.each([
    [
      [1, 2],
      {},
      'Expected a Float32Array, Float64Array, Int32Array, BigInt64Array, Uint8Array, Int8Array or Uint16Array (float16) for data but received [1, 2]',
    ],
    [
      new Uint32Array(2),
      {},
      'Expected a Float32Array, Float64Array, Int32Array, BigInt64Array, Uint8Array, Int8Array or Uint16Array (float16) for data but received Uint32Array(2)',
    ],
    [
      new Float32Array(6),
      { shape: [2, 4] },
      'Expected a shape whose product is 6 (the length of data) for shape but received [2, 4]',
    ],
    [
      new Float32Array(6),
      { shape: [2, -3] },
      'Expected an array of non-negative integers for shape but received [2, -3]',
    ],
    [
      new Float32Array(2),
      { op: 'mean' },
      "Expected one of 'average', 'sum', 'min', 'max', 'product' for op but received 'mean'",
    ],
    [
      new Float32Array(2),
      { prescaleFactor: NaN },
      'Expected a finite number for prescaleFactor but received NaN',
    ],
    [new Float32Array(2), { name: '' }, "Expected a non-empty string for name but received ''"],
    [
      new Float32Array(2),
      { output: new Float64Array(2) },
      'Expected a Float32Array of length 2 for output but received Float64Array(2)',
    ],
    [
      new Float32Array(2),
      { output: new Float32Array(3) },
      'Expected a Float32Array of length 2 for output but received Float32Array(3)',
    ],
    [
      new Float32Array(2),
      { nmae: 'x' },
      "Unknown option 'nmae' for allreduce; did you mean 'name'?",
    ],
  ])('validates %o with %o', async (data, options, text) => {
    const binding = await startFake();
    expect(() => allreduce(data as Float32Array, options as object)).toThrow(text);
    expect(binding.calls).toHaveLength(0);
  });

  const mismatch = () =>
    nativeError(
      'KOLO_MISMATCH',
      'Mismatched ALLREDUCE tensor shapes: One rank sent a tensor of shape [3], but another rank sent a tensor of shape [4].',
    );

  it('rejects with the mapped error and the async stack of the function awaiting it', async () => {
    const binding = await startFake({ rank: 1, size: 2 });
    binding.failWith = mismatch;
    async function trainStep() {
      return await allreduce(new Float32Array(3), { name: 'w' });
    }
    const error = (await trainStep().catch((e: unknown) => e)) as MismatchError;
    expect(MismatchError.isInstance(error)).toBe(true);
    expect(error.message).toBe(
      'Mismatched ALLREDUCE tensor shapes: One rank sent a tensor of shape [3], ' +
        "but another rank sent a tensor of shape [4]. Every rank must submit 'w' with the same dtype, shape, op, root and scale factors.",
    );
    expect([error.rank, error.opName]).toEqual([1, 'w']);
    expect(error.stack?.split('\n')[1]).toMatch(/^ {4}at (async )?trainStep \(.*allreduce\.test\.ts:\d+:\d+\)$/);
  });

  it('with callerStacks, rejects with the stack of the call site even when nothing awaits it there', async () => {
    const binding = await startFake({ rank: 1, size: 2, callerStacks: true });
    binding.failWith = mismatch;
    function trainStep() {
      return allreduce(new Float32Array(3), { name: 'w' });
    }
    const error = (await trainStep().catch((e: unknown) => e)) as MismatchError;
    expect([MismatchError.isInstance(error), error.rank, error.opName]).toEqual([true, 1, 'w']);
    expect(error.stack?.split('\n')[1]).toMatch(/^ {4}at allreduce \(.*allreduce\.ts:\d+:\d+\)$/);
    expect(error.stack?.split('\n')[2]).toMatch(/^ {4}at trainStep \(.*allreduce\.test\.ts:\d+:\d+\)$/);
  });
});
