// enqueueBatch on a one-rank engine: many calls in one crossing, each settling on its own, and
// the packed layout the addon reads.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadNative, type NativeCall, type NativeEngine, type NativeRequest, type NativeSettle } from '../lib/index.js';
import { packBatch } from '../lib/pack-batch.js';

const native = loadNative();
const { dtypes, requestTypes, reduceOps } = native.constants;

function request(over: Partial<NativeRequest> & Pick<NativeRequest, 'type' | 'name'>): NativeRequest {
  return { dtype: dtypes['float32']!, shape: [], reduceOp: reduceOps['sum']!, root: 0, prescale: 1, postscale: 1, splits: [], ...over };
}

/** A batch's fields as the addon's packed methods take them: as arguments, in order. */
function fields(b: { numbers: unknown; names: unknown; count: unknown; arrays: unknown }): [unknown, unknown, unknown, unknown] {
  return [b.numbers, b.names, b.count, b.arrays];
}

function start(prefix: string): Promise<NativeEngine> {
  return native.startEngine({
    rank: 0, size: 1, localRank: 0, localSize: 1, crossRank: 0, crossSize: 1,
    store: { kind: 'file', path: mkdtempSync(join(tmpdir(), 'kolo-batch-')) },
    storePrefix: prefix, hostname: '127.0.0.1', iface: '', cycleTimeMs: 1, fusionThresholdBytes: 1 << 20, timeoutMs: 10_000,
  });
}

/** Runs one batch; resolves with every call's outcome by index and which ones settled at once. */
function run(engine: NativeEngine, calls: NativeCall[]): Promise<{ outcomes: unknown[]; atOnce: number[] }> {
  return new Promise((resolve) => {
    const outcomes: unknown[] = [];
    let settled = 0;
    let returned = false;
    const atOnce: number[] = [];
    engine.enqueueBatch(calls, (indices, results, done, count) => {
      // The addon always says how many it settles (its `indices` is reused, and may be longer).
      expect(count).toBeTypeOf('number');
      Array.from(indices).slice(0, count).forEach((index, i) => {
        outcomes[index] = results[i] ?? done;
        if (!returned) atOnce.push(index);
      });
      settled += count ?? 0;
      if (settled === calls.length) resolve({ outcomes, atOnce });
    });
    returned = true;
  });
}

describe('enqueueBatch', () => {
  let engine: NativeEngine;
  beforeAll(async () => {
    engine = await start('batch-test');
  });
  afterAll(() => engine.shutdown());

  it('settles every call with its own results', async () => {
    const data = new Int32Array([2, 5, -3]);
    const gathered = new Int8Array([1, 2, 3, 4]);
    const { outcomes, atOnce } = await run(engine, [
      { requests: [request({ type: requestTypes['allreduce']!, name: 'b.sum', dtype: dtypes['int32']!, shape: [3], prescale: 3, postscale: 0.5, input: data, output: data })], grouped: false },
      { requests: [request({ type: requestTypes['allgather']!, name: 'b.gather', dtype: dtypes['int8']!, shape: [2, 2], input: gathered })], grouped: false },
      { requests: [request({ type: requestTypes['barrier']!, name: 'b.barrier' })], grouped: false },
    ]);
    expect(atOnce).toEqual([]);
    expect([...data]).toEqual([3, 7, -4]);
    const [[allreduced], [allgathered], [barrier]] = outcomes as [unknown[], { data: ArrayBuffer; splits: number[] }[], unknown[]];
    expect([allreduced, barrier]).toEqual([{}, {}]);
    expect([...new Int8Array(allgathered!.data), ...allgathered!.splits]).toEqual([1, 2, 3, 4, 2]);
  });

  it('settles a malformed call and a name already in flight before returning, and runs the rest', async () => {
    const x = new Float32Array([1.5]);
    const { outcomes, atOnce } = await run(engine, [
      { requests: [request({ type: requestTypes['allreduce']!, name: 'b.bad', shape: [3], input: new Float32Array(2), output: new Float32Array(2) })], grouped: false },
      { requests: [request({ type: requestTypes['allreduce']!, name: 'b.twice', shape: [1], input: x, output: x })], grouped: false },
      { requests: [request({ type: requestTypes['allreduce']!, name: 'b.twice', shape: [1], input: x, output: x })], grouped: false },
    ]);
    expect(atOnce).toEqual([0, 2]);
    expect(outcomes[0]).toBeInstanceOf(TypeError);
    expect((outcomes[0] as Error).message).toBe("Expected input of 12 bytes for 'b.bad' (shape [3]) but received 8");
    expect(outcomes[1]).toEqual([{}]);
    expect(outcomes[2]).toMatchObject({ code: 'KOLO_DUPLICATE_NAME' });
  });

  it('completes a grouped call as one and keeps calls with shapes and splits apart', async () => {
    const a = new Float64Array([1, 2, 3, 4, 5, 6]);
    const b = new Float64Array([7]);
    const c = new Float32Array([2, 4]);
    const { outcomes } = await run(engine, [
      { requests: [request({ type: requestTypes['allreduce']!, name: 'g.a', dtype: dtypes['float64']!, shape: [2, 3], postscale: 2, input: a, output: a }), request({ type: requestTypes['allreduce']!, name: 'g.b', dtype: dtypes['float64']!, shape: [1], input: b, output: b })], grouped: true },
      { requests: [request({ type: requestTypes['alltoall']!, name: 'g.c', shape: [2], splits: [2], input: c })], grouped: false },
    ]);
    expect([...a, ...b]).toEqual([2, 4, 6, 8, 10, 12, 7]);
    const [, [alltoall]] = outcomes as [unknown, { data: ArrayBuffer; splits: number[] }[]];
    expect([...new Float32Array(alltoall!.data), ...alltoall!.splits]).toEqual([2, 4, 2]);
    expect(outcomes[0]).toEqual([{}, {}]);
  });

  it('after shutdown, settles every call with KOLO_SHUT_DOWN before returning', async () => {
    const own = await start('batch-test-2');
    await own.shutdown();
    const x = new Float32Array(1);
    const { outcomes, atOnce } = await run(own, [
      { requests: [request({ type: requestTypes['allreduce']!, name: 'late', shape: [1], input: x, output: x })], grouped: false },
      { requests: [request({ type: requestTypes['barrier']!, name: 'late.b' })], grouped: false },
    ]);
    expect(atOnce).toEqual([0, 1]);
    expect(outcomes.map((o) => (o as { code: string }).code)).toEqual(['KOLO_SHUT_DOWN', 'KOLO_SHUT_DOWN']);
  });
});

describe('packed groups (NativeRequest.parts) on one rank', () => {
  let engine: NativeEngine;
  beforeAll(async () => {
    engine = await start('batch-parts');
  });
  afterAll(() => engine.shutdown());

  const allreduce = requestTypes['allreduce']!;
  const group = (name: string, parts: NativeRequest['parts'], over: Partial<NativeRequest> = {}): NativeRequest => {
    const total = parts!.shapes.reduce((sum, shape) => sum + shape.reduce((a, b) => a * b, 1), 0);
    return request({ type: allreduce, name, shape: [total], parts, ...over });
  };

  it('reduces every part where it lies, scaled, in place or not, fused with a plain allreduce', async () => {
    const a = new Float32Array([1, 2, 3, 4, 5, 6]);
    const b = new Float32Array([10]);
    const aOut = new Float32Array(6);
    const plain = new Float32Array([7, 8]);
    const { outcomes } = await run(engine, [
      { requests: [group('g1', { shapes: [[2, 3], []], inputs: [a, b], outputs: [aOut, b] }, { prescale: 3, postscale: 0.5 })], grouped: false },
      { requests: [request({ type: allreduce, name: 'plain', shape: [2], postscale: 2, input: plain, output: plain })], grouped: false },
    ]);
    expect(outcomes).toEqual([[{}], [{}]]);
    expect([...aOut, ...b, ...plain]).toEqual([1.5, 3, 4.5, 6, 7.5, 9, 15, 14, 16]);
    expect([...a]).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('stages float16 parts through float32 and averages int32 parts', () => {
    // 1.0, 2.0 and 0.5 as IEEE half bits; postscale 2 doubles them.
    const half = new Uint16Array([0x3c00, 0x4000]);
    const half2 = new Uint16Array([0x3800]);
    engine.enqueueSync([group('g2', { shapes: [[2], [1]], inputs: [half, half2], outputs: [half, half2] }, { dtype: dtypes['float16']!, postscale: 2 })], false);
    expect([...half, ...half2]).toEqual([0x4000, 0x4400, 0x3c00]);
    const ints = [new Int32Array([5, -7]), new Int32Array([9])];
    engine.enqueueSync([group('g3', { shapes: [[2], [1]], inputs: ints, outputs: ints }, { dtype: dtypes['int32']!, reduceOp: reduceOps['average']! })], false);
    expect(ints.map((x) => [...x])).toEqual([[5, -7], [9]]);
  });

  it('refuses parts that do not match their shapes, parts on other collectives, and parts through enqueue', () => {
    const x = new Float32Array(2);
    const sync = (r: NativeRequest) => () => engine.enqueueSync([r], false);
    expect(sync(group('bad1', { shapes: [[2], [2]], inputs: [x, new Float32Array(1)], outputs: [x, x] }))).toThrow(
      "Expected an input and an output of 8 bytes for part 2 of 'bad1' but received 4 and 8",
    );
    expect(sync(group('bad2', { shapes: [[2]], inputs: [[1, 2] as never], outputs: [x] }))).toThrow(
      "Expected a TypedArray for input of part 1 of 'bad2'",
    );
    expect(sync(group('bad3', { shapes: [[2]], inputs: [x], outputs: [undefined as never] }))).toThrow(
      "Expected an input and an output of 8 bytes for part 1 of 'bad3' but received 8 and 0",
    );
    expect(sync(group('bad4', { shapes: [[2]], inputs: [x], outputs: [x] }, { shape: [3] }))).toThrow(
      "Expected shape [2] for 'bad4' (the total of its parts) but received [3]",
    );
    expect(sync(group('bad5', { shapes: [[2]], inputs: [x], outputs: [x] }, { type: requestTypes['broadcast']! }))).toThrow(
      "Expected parts only on an allreduce ('bad5')",
    );
    expect(() => engine.enqueue([group('bad6', { shapes: [[2]], inputs: [x], outputs: [x] })], false)).toThrow(
      "A request with parts (a packed group) goes through enqueueBatch or enqueueSync, not enqueue ('bad6')",
    );
    // None of them was queued: every name is free again.
    engine.enqueueSync([group('bad1', { shapes: [[2]], inputs: [x], outputs: [x] })], false);
  });
});

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
    expect([batch.names, batch.count]).toEqual(['pqrr', 3]);
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
    expect([batch.names, batch.count]).toEqual(['gh', 2]);
    expect(batch.arrays).toEqual([a, c, b, d, undefined, undefined]);
    expect(batch.arrays[0]).toBe(a);
    expect(batch.arrays[1]).toBe(c);
  });

  it('the addon refuses a batch whose layout does not add up, and fails a call whose numbers stop short', async () => {
    const own = (await start('batch-test-3')) as unknown as {
      enqueuePacked(numbers: unknown, names: unknown, count: unknown, arrays: unknown, settle: NativeSettle): void;
      shutdown(): Promise<void>;
    };
    expect(() => own.enqueuePacked(...fields({ numbers: new Float64Array([5, 0, 0, 0, 0]), names: '', count: 0, arrays: [] }), () => {})).toThrow(
      'Expected a batch from packBatch() for enqueuePacked (a call header at 0 does not fit)',
    );
    // The header claims more name units than `names` holds.
    expect(() => own.enqueuePacked(...fields({ numbers: new Float64Array([1, 0, 0, 3, 2]), names: 'n', count: 1, arrays: [undefined, undefined] }), () => {})).toThrow(
      'Expected a batch from packBatch() for enqueuePacked (a call header at 0 does not fit)',
    );
    expect(() => own.enqueuePacked(...fields({ numbers: new Float64Array([1, 0, 0, 1, 2]), names: 'nn', count: 1, arrays: [undefined, undefined] }), () => {})).toThrow(
      'Expected a batch from packBatch() for enqueuePacked (1 requests, a count of 1, 2 arrays and 1 of 2 name units)',
    );
    // The header claims more arrays than `arrays` holds.
    expect(() => own.enqueuePacked(...fields({ numbers: new Float64Array([1, 0, 0, 1, 4]), names: 'n', count: 1, arrays: [undefined, undefined] }), () => {})).toThrow(
      'Expected a batch from packBatch() for enqueuePacked (a call header at 0 does not fit)',
    );
    expect(() => own.enqueuePacked(...fields({ numbers: new Float64Array([1, 0, 0, 0, 0]), names: ['n'], count: 1, arrays: [] }), () => {})).toThrow(
      'Expected a batch from packBatch() for enqueuePacked (names is not a string)',
    );
    const settled: string[] = [];
    own.enqueuePacked(...fields({ numbers: new Float64Array([1, 0, 2, 1, 2, 0, 0]), names: 'n', count: 1, arrays: [undefined, undefined] }), (indices, outcomes) => {
      settled.push(`${indices[0]}: ${(outcomes[0] as Error).message}`);
    });
    // A packed group of two parts in a call that gives it two array slots, not four.
    const group = [0, 0, 1, 0, 1, 1, 0, 1, 1, 2, 0, 4, 1, 1, 1, 1];
    own.enqueuePacked(...fields({ numbers: new Float64Array([1, 0, group.length, 1, 2, ...group]), names: 'g', count: 1, arrays: [undefined, undefined] }), (indices, outcomes) => {
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
      enqueuePacked(numbers: unknown, names: unknown, count: unknown, arrays: unknown, settle: NativeSettle, ...arrays: unknown[]): void;
      enqueueSyncPacked(numbers: unknown, names: unknown, count: unknown, arrays: unknown, ...arrays: unknown[]): unknown;
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
      enqueueSyncPacked(numbers: unknown, names: unknown, count: unknown, arrays: unknown): unknown;
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
