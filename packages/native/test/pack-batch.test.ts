// The packed layout the addon reads (packBatch), and how the addon's packed methods take it: a
// malformed batch, arrays as trailing arguments, names in one string, enqueueSync as one call.
import { describe, expect, it } from 'vitest';
import type { NativeEngine, NativeSettle } from '../lib/index.js';
import { packBatch } from '../lib/pack-batch.js';
import { fields, request, requestTypes, run, start } from './one-rank-engine.js';

describe('packBatch', () => {
  it('lays every number of every request out in one Float64Array', () => {
    const x = new Float32Array(6);
    const batch = packBatch([
      { requests: [request({ type: 2, name: 'p', dtype: 0, shape: [2, 3], reduceOp: 1, root: 1, prescale: 0.5, postscale: 4, splits: [1, 1], processSet: 3, input: x, output: x })], grouped: false },
      { requests: [request({ type: 5, name: 'q' }), request({ type: 5, name: 'rr' })], grouped: true },
    ]);
    expect([...batch.numbers]).toEqual([
      1, 0, 15, 1, 2, 2, 0, 1, 1, 0.5, 4, 3, 1, 2, 2, 3, 2, 1, 1, 0,
      2, 1, 22, 3, 4, 5, 0, 1, 0, 1, 1, 0, 1, 0, 0, 0, 5, 0, 1, 0, 1, 1, 0, 2, 0, 0, 0,
    ]);
    expect(batch.names).toBe('pqrr');
    expect(batch.arrays).toEqual([x, x, undefined, undefined, undefined, undefined]);
  });

  it('lays out a batch larger than the last one whole, in a view of exactly its numbers', () => {
    const small = packBatch([{ requests: [request({ type: 5, name: 's' })], grouped: false }]);
    expect(small.numbers.length).toBe(5 + 11);
    const many = Array.from({ length: 40 }, (_, i) => request({ type: 0, name: `m${i}`, shape: [i, 2] }));
    const big = packBatch([{ requests: many, grouped: false }]);
    expect(big.numbers.length).toBe(5 + 40 * 13);
    expect([...big.numbers.subarray(0, 5)]).toEqual([40, 0, 40 * 13, many.reduce((n, r) => n + r.name.length, 0), 80]);
    // Request 39: its scalars, then shape [39, 2], no splits, no parts.
    expect([...big.numbers.subarray(5 + 39 * 13)]).toEqual([0, 0, 1, 0, 1, 1, 0, 3, 2, 39, 2, 0, 0]);
    // Batches of one length share one view (made once), over the grown buffer after growth.
    const again = packBatch([{ requests: [request({ type: 5, name: 't' })], grouped: false }]);
    expect(again.numbers).toBe(packBatch([{ requests: [request({ type: 5, name: 'u' })], grouped: false }]).numbers);
    expect([again.numbers.buffer === big.numbers.buffer, again.numbers === small.numbers]).toEqual([true, false]);
  });

  it("lays a packed group out as its parts' shapes and each part's input and output", () => {
    const [a, b, c, d] = [new Float32Array(6), new Float32Array(1), new Float32Array(6), new Float32Array(1)];
    const group = request({ type: 0, name: 'g', shape: [7], parts: { shapes: [[2, 3], []], inputs: [a, b], outputs: [c, d] } });
    const batch = packBatch([{ requests: [group, request({ type: 5, name: 'h' })], grouped: true }]);
    expect([...batch.numbers]).toEqual([
      2, 1, 27, 2, 6,
      0, 0, 1, 0, 1, 1, 0, 1, 1, 7, 0, 4, 2, 2, 3, 0,
      5, 0, 1, 0, 1, 1, 0, 1, 0, 0, 0,
    ]);
    expect(batch.names).toBe('gh');
    expect(batch.arrays).toEqual([a, c, b, d, undefined, undefined]);
    expect(batch.arrays[0]).toBe(a);
    expect(batch.arrays[1]).toBe(c);
  });

  it('the addon refuses a batch whose layout does not add up, and fails a call whose numbers stop short', async () => {
    const own = (await start('batch-test-3')) as unknown as {
      enqueuePacked(numbers: unknown, names: unknown, arrays: unknown, settle: NativeSettle): void;
      shutdown(): Promise<void>;
    };
    expect(() => own.enqueuePacked(...fields({ numbers: new Float64Array([5, 0, 0, 0, 0]), names: '', arrays: [] }), () => {})).toThrow(
      'Expected a batch from packBatch() for enqueuePacked (a call header at 0 does not fit)',
    );
    // The header claims more name units than `names` holds.
    expect(() => own.enqueuePacked(...fields({ numbers: new Float64Array([1, 0, 0, 3, 2]), names: 'n', arrays: [undefined, undefined] }), () => {})).toThrow(
      'Expected a batch from packBatch() for enqueuePacked (a call header at 0 does not fit)',
    );
    expect(() => own.enqueuePacked(...fields({ numbers: new Float64Array([1, 0, 1, 1, 2, 0]), names: 'nn', arrays: [undefined, undefined] }), () => {})).toThrow(
      'Expected a batch from packBatch() for enqueuePacked (1 requests, 2 arrays for 2 slots and 1 of 2 name units)',
    );
    // The header claims more arrays than `arrays` holds.
    expect(() => own.enqueuePacked(...fields({ numbers: new Float64Array([1, 0, 0, 1, 4]), names: 'n', arrays: [undefined, undefined] }), () => {})).toThrow(
      'Expected a batch from packBatch() for enqueuePacked (a call header at 0 does not fit)',
    );
    expect(() => own.enqueuePacked(...fields({ numbers: new Float64Array([1, 0, 0, 0, 0]), names: ['n'], arrays: [] }), () => {})).toThrow(
      'Expected a batch from packBatch() for enqueuePacked (names is not a string)',
    );
    const settled: string[] = [];
    own.enqueuePacked(...fields({ numbers: new Float64Array([1, 0, 2, 1, 2, 0, 0]), names: 'n', arrays: [undefined, undefined] }), (indices, outcomes) => {
      settled.push(`${indices[0]}: ${(outcomes[0] as Error).message}`);
    });
    // A packed group of two parts in a call that gives it two array slots, not four.
    const group = [0, 0, 1, 0, 1, 1, 0, 1, 1, 2, 0, 4, 1, 1, 1, 1];
    own.enqueuePacked(...fields({ numbers: new Float64Array([1, 0, group.length, 1, 2, ...group]), names: 'g', arrays: [undefined, undefined] }), (indices, outcomes) => {
      settled.push(`${indices[0]}: ${(outcomes[0] as Error).message}`);
    });
    expect(settled).toEqual([
      "0: Expected a batch from packBatch() for enqueuePacked (call 0's numbers do not match its requests)",
      "0: Expected a batch from packBatch() for enqueuePacked (call 0's numbers do not match its requests)",
    ]);
    await own.shutdown();
  });

  it('reads the arrays from the trailing arguments when they match the slots one for one, else from batch.arrays', async () => {
    const own = (await start('batch-test-6')) as unknown as {
      enqueuePacked(numbers: unknown, names: unknown, arrays: unknown, settle: NativeSettle, ...arrays: unknown[]): void;
      enqueueSyncPacked(numbers: unknown, names: unknown, arrays: unknown, ...arrays: unknown[]): unknown;
      shutdown(): Promise<void>;
    };
    const settle = (calls: number): Promise<void> => new Promise((resolve) => {
      let left = calls;
      pending = () => (--left === 0 ? resolve() : undefined);
    });
    let pending = (): void => {};
    const inBatch = new Float32Array([1, 2]);
    const outBatch = new Float32Array(2);
    const inArgs = new Float32Array([10, 20]);
    const outArgs = new Float32Array(2);
    const call = (name: string) => ({ requests: [request({ type: requestTypes['allreduce']!, name, shape: [2], prescale: 3, input: inBatch, output: outBatch })], grouped: false });
    // Arguments that match the two slots are what the addon reads.
    let done = settle(1);
    own.enqueuePacked(...fields(packBatch([call('args')])), () => pending(), inArgs, outArgs);
    await done;
    expect([...outArgs, ...outBatch]).toEqual([30, 60, 0, 0]);
    // One argument short: batch.arrays, and the argument is ignored.
    done = settle(1);
    own.enqueuePacked(...fields(packBatch([call('short')])), () => pending(), inArgs);
    await done;
    expect([...outBatch]).toEqual([3, 6]);
    outBatch.fill(0);
    expect(own.enqueueSyncPacked(...fields(packBatch([call('sync')])), inArgs, outBatch)).toEqual([{}]);
    expect([...outBatch]).toEqual([30, 60]);
    await own.shutdown();
  });

  it('names travel in one string and reach the engine as UTF-8, whatever their characters', async () => {
    const own = await start('batch-test-5');
    // A lone surrogate is not valid UTF-16: it arrives as U+FFFD, as V8 writes such a string.
    const names = ['plain', 'é', '層.重み', 'grad🙂', 'lone\uD800x', ''];
    const calls = names.flatMap((name) => [0, 1].map(() => ({
      requests: [request({ type: requestTypes['barrier']!, name: `${name}|` })], grouped: false,
    })));
    const { outcomes } = await run(own, calls);
    // The second call of each pair repeats its name, and the engine's refusal quotes it.
    const quoted = outcomes.filter((_, i) => i % 2 === 1).map((o) => /\(name: '(.*)'\)/su.exec((o as Error).message)?.[1]);
    expect(quoted).toEqual(['plain|', 'é|', '層.重み|', 'grad🙂|', 'lone\uFFFDx|', '|']);
    expect(outcomes.filter((_, i) => i % 2 === 0)).toEqual(names.map(() => [{}]));
    await own.shutdown();
  });

  it('enqueueSync goes packed: the addon takes a batch of exactly one call', async () => {
    const own = (await start('batch-test-4')) as unknown as NativeEngine & {
      enqueueSyncPacked(numbers: unknown, names: unknown, arrays: unknown): unknown;
    };
    const x = new Float32Array([2, 3]);
    const out = new Float32Array(2);
    const call = { requests: [request({ type: requestTypes['allreduce']!, name: 'one', shape: [2], input: x, output: out })], grouped: false };
    expect(() => own.enqueueSyncPacked(...fields(packBatch([call, call])))).toThrow('Expected a batch of one call for enqueueSyncPacked');
    const first = own.enqueueSync(call.requests, false);
    expect(first).toEqual([{}]);
    expect([...out]).toEqual([2, 3]);
    // A call that carries nothing gets the one frozen [{}] every such call shares.
    expect(own.enqueueSync(call.requests, false)).toBe(first);
    expect([Object.isFrozen(first), Object.isFrozen(first[0])]).toEqual([true, true]);
    const gathered = own.enqueueSync([request({ type: requestTypes['allgather']!, name: 'g', shape: [2], input: x })], false);
    expect(gathered).not.toBe(first);
    expect([...new Float32Array((gathered[0] as { data: ArrayBuffer }).data)]).toEqual([2, 3]);
    await own.shutdown();
  });
});
