// RequestQueue on its own, over a stub engine: which call each outcome settles, what `finish`
// makes of it, failure handlers, and a binding that throws.
import type { NativeCall, NativeEngine, NativeResult, NativeSettle } from '@kolo/native';
import { describe, expect, it } from 'vitest';
import { RequestQueue, type QueuedCall } from '../../src/runtime/request-queue.js';

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

/** A call whose value is its results as they are. */
const call = (name: string): QueuedCall<readonly NativeResult[]> => ({
  requests: [{ name } as never],
  grouped: false,
  finish: (results) => results,
});

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
    let later: Promise<unknown> | undefined;
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

  it("resolves with the call's finish of its results, and rejects with what finish throws", async () => {
    const stub = stubEngine();
    const queue = new RequestQueue(stub.engine);
    const broken = new RangeError('output of allgather has the wrong length');
    const counted = queue.submit({ ...call('n'), finish: (results) => results.length * 10 });
    const throwing = queue.submit({
      ...call('t'),
      finish: () => {
        throw broken;
      },
    });
    await Promise.resolve();
    stub.batches[0]!.settle(new Uint32Array([0, 1]), [], [{}, {}]);
    expect(await Promise.allSettled([counted, throwing])).toEqual([
      { status: 'fulfilled', value: 20 },
      { status: 'rejected', reason: broken },
    ]);
  });

  it('a call with a failure handler follows what it returns, told whether the engine or finish failed', async () => {
    const stub = stubEngine();
    const queue = new RequestQueue(stub.engine);
    const seen: [string, unknown, string, boolean][] = [];
    const fail = (error: unknown, c: QueuedCall<unknown>, context: string, fromEngine: boolean): Promise<never> => {
      seen.push([c.requests[0]!.name, error, context, fromEngine]);
      return Promise.reject(new Error(`mapped ${(error as Error).message}`));
    };
    const engineError = Object.assign(new Error('engine'), { code: 'KOLO_MISMATCH' });
    const finishError = new Error('finish');
    const failed = queue.submit(call('e'), 'ctx-e', fail);
    const threw = queue.submit(
      {
        ...call('f'),
        finish: () => {
          throw finishError;
        },
      },
      'ctx-f',
      fail,
    );
    const fine = queue.submit({ ...call('ok'), finish: () => 'value' }, 'ctx-ok', fail);
    await Promise.resolve();
    stub.batches[0]!.settle(new Uint32Array([0, 1, 2]), [engineError, undefined as never, undefined as never], [{}]);
    const outcomes = await Promise.allSettled([failed, threw, fine]);
    expect(outcomes.map((o) => (o.status === 'rejected' ? (o.reason as Error).message : o.value))).toEqual([
      'mapped engine',
      'mapped finish',
      'value',
    ]);
    expect(seen).toEqual([
      ['e', engineError, 'ctx-e', true],
      ['f', finishError, 'ctx-f', false],
    ]);
  });

  it('a binding that throws goes through each call\'s failure handler as an engine failure', async () => {
    const stub = stubEngine();
    stub.throwing = new Error('binding broke its contract');
    const queue = new RequestQueue(stub.engine);
    const flags: boolean[] = [];
    const fail = (error: unknown, _c: QueuedCall<unknown>, _context: undefined, fromEngine: boolean): Promise<never> => {
      flags.push(fromEngine);
      return Promise.reject(error);
    };
    const outcome = queue.submit(call('x'), undefined, fail).catch((e: unknown) => e);
    expect(await outcome).toBe(stub.throwing);
    expect(flags).toEqual([true]);
  });
});
