// enqueueBatch on a one-rank engine: many calls in one crossing, each settling on its own, and
// packed groups (requests with parts). The packed layout itself: pack-batch.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NativeEngine } from '../lib/index.js';
import { dtypes, reduceOps, request, requestTypes, run, start } from './one-rank-engine.js';

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
