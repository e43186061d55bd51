// RequestQueue's repeated turns, over a stub engine that logs how each turn reached it: a turn of
// the same recurring calls (QueuedCall.intact) is an ordinary batch the first time, kept the
// second, and queued again from what the engine kept after that. The engine's side of keeping:
// packages/native (enqueue-repeat.test.ts); over real processes: mp/repeated-turns.test.ts.
import { allCallsDone, type NativeCall, type NativeEngine, type NativeRequest, type NativeResult, type NativeSettle } from '@kolo/native';
import { describe, expect, it } from 'vitest';
import { RequestQueue, type QueuedCall } from '../../src/runtime/request-queue.js';

type Logged = string;

/**
 * A stub whose every call settles at once with `done`. Logs `batch`, `keep` (enqueueBatch asked
 * to keep; it answers with tokens 1, 2, ...) and `repeat <token>`, and for blocking calls `sync`,
 * `sync keep <token>` and `sync repeat <token>`; `refuse` makes the repeats refuse those tokens.
 */
function stubEngine({ repeats = true, allDone = false } = {}): { engine: NativeEngine; log: Logged[]; refuse: Set<number> } {
  const log: Logged[] = [];
  const refuse = new Set<number>();
  const kept = new Map<number, readonly NativeCall[]>();
  const done: readonly NativeResult[] = [{}];
  const settleAll = (n: number, settle: NativeSettle) => settle(Uint32Array.from({ length: n }, (_, i) => i), [], done, n);
  let nextToken = 1;
  let keepNext = false;
  const engine = {
    enqueueSync: (requests: readonly NativeRequest[], grouped: boolean) => {
      log.push(keepNext ? `sync keep ${nextToken}` : 'sync');
      if (keepNext) kept.set(nextToken++, [{ requests, grouped }]);
      keepNext = false;
      return done;
    },
    enqueueBatch: (calls: readonly NativeCall[], settle: NativeSettle, keep?: boolean) => {
      log.push(keep === true ? 'keep' : 'batch');
      settleAll(calls.length, settle);
      if (keep !== true) return undefined;
      kept.set(nextToken, calls);
      return nextToken++;
    },
    ...(repeats
      ? {
          keepNextBatch: () => {
            keepNext = true;
            return nextToken;
          },
          enqueueSyncRepeat: (token: number) => {
            if (!kept.has(token) || refuse.has(token)) return undefined;
            log.push(`sync repeat ${token}`);
            return done;
          },
          enqueueRepeat: (token: number, settle: NativeSettle) => {
            if (!kept.has(token) || refuse.has(token)) return false;
            log.push(`repeat ${token}`);
            // allDone: as the addon answers when every call finished inside the repeat.
            if (allDone) return allCallsDone;
            settleAll(kept.get(token)!.length, settle);
            return true;
          },
        }
      : {}),
  } as unknown as NativeEngine;
  return { engine, log, refuse };
}

/** A recurring call whose value is its name, intact while `state.intact` holds. */
function recurringCall(name: string, state = { intact: true }): QueuedCall<string> {
  return { requests: [{ name } as never], grouped: false, finish: () => name, intact: () => state.intact };
}

/** Submits `calls` as one turn; resolves with their values. */
async function turn(queue: RequestQueue, calls: readonly QueuedCall<string>[]): Promise<string[]> {
  return Promise.all(calls.map((c) => queue.submit(c)));
}

describe('RequestQueue: repeated turns', () => {
  it('keeps a turn of the same recurring calls the second time and repeats it from the third', async () => {
    const stub = stubEngine();
    const queue = new RequestQueue(stub.engine);
    const calls = ['a', 'b', 'c'].map((n) => recurringCall(n));
    for (let i = 0; i < 4; i++) expect(await turn(queue, calls)).toEqual(['a', 'b', 'c']);
    expect(stub.log).toEqual(['batch', 'keep', 'repeat 1', 'repeat 1']);
  });

  it('settles every call of a repeat itself where the engine answers that all finished with nothing to report', async () => {
    const stub = stubEngine({ allDone: true });
    const queue = new RequestQueue(stub.engine);
    const seen: (readonly NativeResult[])[] = [];
    const failing: QueuedCall<string> = {
      requests: [{ name: 'f' } as never],
      grouped: false,
      finish: (results) => {
        seen.push(results);
        if (seen.length === 3) throw new RangeError('finish refused');
        return 'f';
      },
      intact: () => true,
    };
    const calls = [recurringCall('a'), failing];
    for (let i = 0; i < 2; i++) expect(await turn(queue, calls)).toEqual(['a', 'f']);
    // The third turn is the first repeat: its finish sees the one result that carries nothing,
    // and what a finish throws rejects its call alone.
    const third = await Promise.allSettled(calls.map((c) => queue.submit(c)));
    expect(third.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
    expect((third[1] as PromiseRejectedResult).reason).toBeInstanceOf(RangeError);
    expect(await turn(queue, calls)).toEqual(['a', 'f']);
    expect(seen.slice(2)).toEqual([[{}], [{}]]);
    expect(stub.log).toEqual(['batch', 'keep', 'repeat 1', 'repeat 1']);
  });

  it('sends a turn with a call that is not intact now, or not recurring, as an ordinary batch', async () => {
    const stub = stubEngine();
    const queue = new RequestQueue(stub.engine);
    const state = { intact: true };
    const calls = [recurringCall('a'), recurringCall('b', state)];
    await turn(queue, calls);
    await turn(queue, calls);
    state.intact = false; // b's array was detached or shrunk: the engine must read it again
    await turn(queue, calls);
    state.intact = true;
    await turn(queue, calls);
    const plain: QueuedCall<string> = { requests: [{ name: 'p' } as never], grouped: false, finish: () => 'p' };
    const withPlain = [...calls, plain];
    for (let i = 0; i < 3; i++) expect(await turn(queue, withPlain)).toEqual(['a', 'b', 'p']);
    expect(stub.log).toEqual(['batch', 'keep', 'batch', 'repeat 1', 'batch', 'batch', 'batch']);
  });

  it('repeats only the same calls in the same order, remembering each turn by its first call', async () => {
    const stub = stubEngine();
    const queue = new RequestQueue(stub.engine);
    const [a, b, c] = ['a', 'b', 'c'].map((n) => recurringCall(n)) as [QueuedCall<string>, QueuedCall<string>, QueuedCall<string>];
    // Two turns of one step alternate: each is kept and repeated on its own.
    for (let i = 0; i < 3; i++) {
      await turn(queue, [a, b]);
      await turn(queue, [c]);
    }
    expect(stub.log.splice(0)).toEqual(['batch', 'batch', 'keep', 'keep', 'repeat 1', 'repeat 2']);
    // Another order, or a call more, is another turn (which replaces the one that began with a).
    await turn(queue, [b, a]);
    await turn(queue, [a, b, c]);
    await turn(queue, [a, b]);
    await turn(queue, [a, b]);
    expect(stub.log).toEqual(['batch', 'batch', 'batch', 'keep']);
  });

  it('remembers the 16 most recently begun turns', async () => {
    const stub = stubEngine();
    const queue = new RequestQueue(stub.engine);
    const turns = Array.from({ length: 17 }, (_, i) => [recurringCall(`t${i}`)]);
    for (const t of turns.slice(0, 16)) {
      await turn(queue, t);
      await turn(queue, t);
    }
    await turn(queue, turns[16]!); // makes room: turn 0 is forgotten
    stub.log.length = 0;
    await turn(queue, turns[1]!);
    await turn(queue, turns[0]!);
    expect(stub.log).toEqual(['repeat 2', 'batch']);
  });

  it('keeps a turn again when the engine no longer keeps it', async () => {
    const stub = stubEngine();
    const queue = new RequestQueue(stub.engine);
    const calls = [recurringCall('a')];
    for (let i = 0; i < 3; i++) await turn(queue, calls);
    stub.refuse.add(1);
    await turn(queue, calls);
    await turn(queue, calls);
    expect(stub.log).toEqual(['batch', 'keep', 'repeat 1', 'keep', 'repeat 2']);
  });

  it('sends ordinary batches to an engine that keeps none', async () => {
    const stub = stubEngine({ repeats: false });
    const queue = new RequestQueue(stub.engine);
    const calls = [recurringCall('a')];
    for (let i = 0; i < 3; i++) expect(await turn(queue, calls)).toEqual(['a']);
    expect(stub.log).toEqual(['batch', 'batch', 'batch']);
  });

  it('runs a recurring blocking call as the engine kept it, from its second time as recurring', () => {
    const stub = stubEngine();
    const queue = new RequestQueue(stub.engine);
    const state = { intact: true };
    const call = recurringCall('s', state);
    const made: QueuedCall<string> = { requests: [{ name: 'm' } as never], grouped: false, finish: () => 'm' };
    queue.enqueueSync(made);
    for (let i = 0; i < 3; i++) expect(queue.enqueueSync(call)).toEqual([{}]);
    state.intact = false;
    queue.enqueueSync(call);
    state.intact = true;
    queue.enqueueSync(call);
    stub.refuse.add(1);
    queue.enqueueSync(call);
    queue.enqueueSync(call);
    expect(stub.log).toEqual(['sync', 'sync keep 1', 'sync repeat 1', 'sync repeat 1', 'sync', 'sync repeat 1', 'sync keep 2', 'sync repeat 2']);
  });

  it('runs blocking calls as they are on an engine that keeps none', () => {
    const stub = stubEngine({ repeats: false });
    const queue = new RequestQueue(stub.engine);
    const call = recurringCall('s');
    for (let i = 0; i < 3; i++) queue.enqueueSync(call);
    expect(stub.log).toEqual(['sync', 'sync', 'sync']);
  });
});
