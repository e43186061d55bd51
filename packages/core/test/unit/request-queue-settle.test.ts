// RequestQueue on its own, over a stub engine: which call each outcome settles, and a binding
// that throws.
import type { NativeCall, NativeEngine, NativeResult, NativeSettle } from '@kolo/native';
import { describe, expect, it } from 'vitest';
import { RequestQueue } from '../../src/runtime/request-queue.js';

function stubEngine(): { engine: NativeEngine; batches: { calls: readonly NativeCall[]; settle: NativeSettle }[]; throwing?: Error } {
  const state: { engine: NativeEngine; batches: { calls: readonly NativeCall[]; settle: NativeSettle }[]; throwing?: Error } = {
    batches: [],
    engine: {
      enqueueBatch: (calls: readonly NativeCall[], settle: NativeSettle) => {
        if (state.throwing) throw state.throwing;
        state.batches.push({ calls, settle });
      },
    } as unknown as NativeEngine,
  };
  return state;
}

const call = (name: string): NativeCall => ({ requests: [{ name } as never], grouped: false });

describe('RequestQueue', () => {
  it('hands a turn of calls over in order and settles each by its index, in any order', async () => {
    const stub = stubEngine();
    const queue = new RequestQueue(stub.engine);
    const calls = ['a', 'b', 'c'].map(call);
    const promises = calls.map((c) => queue.submit(c));
    expect(queue.length).toBe(3);
    await Promise.resolve();
    expect(stub.batches.map((b) => b.calls)).toEqual([calls]);
    expect(queue.length).toBe(0);
    const { settle } = stub.batches[0]!;
    const done: readonly NativeResult[] = [{}];
    const mine: readonly NativeResult[] = [{ data: new ArrayBuffer(1) } as NativeResult];
    const failure = Object.assign(new Error('nope'), { code: 'KOLO_MISMATCH' });
    // c with its own results, then a as `done` (a hole), then b rejected.
    settle(new Uint32Array([2, 0]), [mine, undefined as never], done);
    settle(new Uint32Array([1]), [failure], done);
    const outcomes = await Promise.allSettled(promises);
    expect(outcomes).toEqual([
      { status: 'fulfilled', value: done },
      { status: 'rejected', reason: failure },
      { status: 'fulfilled', value: mine },
    ]);
  });

  it('reads only the first `count` indices when the binding passes a count (its indices array is reused)', async () => {
    const stub = stubEngine();
    const queue = new RequestQueue(stub.engine);
    const promises = ['a', 'b', 'c'].map((n) => queue.submit(call(n)));
    await Promise.resolve();
    const { settle } = stub.batches[0]!;
    const done: readonly NativeResult[] = [{}];
    const failure = Object.assign(new Error('stale'), { code: 'KOLO_INTERNAL' });
    // A reused array: [1, 2] are this delivery's, the trailing 0 an earlier one's.
    settle(new Uint32Array([1, 2, 0]), [undefined as never, undefined as never, failure], done, 2);
    settle(new Uint32Array([0, 1, 2]), [], done, 1);
    expect(await Promise.allSettled(promises)).toEqual([0, 1, 2].map(() => ({ status: 'fulfilled', value: done })));
  });

  it('a call made while a batch settles goes into the next batch', async () => {
    const stub = stubEngine();
    const queue = new RequestQueue(stub.engine);
    let later: Promise<readonly NativeResult[]> | undefined;
    const first = queue.submit(call('first')).then((r) => {
      later = queue.submit(call('later'));
      return r;
    });
    await Promise.resolve();
    stub.batches[0]!.settle(new Uint32Array([0]), [], [{}]);
    await first;
    await Promise.resolve();
    expect(stub.batches.map((b) => b.calls.map((c) => c.requests[0]?.name))).toEqual([['first'], ['later']]);
    stub.batches[1]!.settle(new Uint32Array([0]), [], [{ n: 1 } as never]);
    await expect(later).resolves.toEqual([{ n: 1 }]);
  });

  it('rejects every call of the turn when the binding throws instead of settling', async () => {
    const stub = stubEngine();
    stub.throwing = new TypeError('Expected a settle function for enqueuePacked');
    const queue = new RequestQueue(stub.engine);
    const outcomes = Promise.allSettled([queue.submit(call('x')), queue.submit(call('y'))]);
    await expect(outcomes).resolves.toEqual([
      { status: 'rejected', reason: stub.throwing },
      { status: 'rejected', reason: stub.throwing },
    ]);
    expect(queue.length).toBe(0);
  });
});
