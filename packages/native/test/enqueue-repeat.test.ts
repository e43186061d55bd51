// Kept batches on a one-rank engine: enqueueBatch(calls, settle, true) keeps a batch whose every
// call was queued and returns its token; enqueueRepeat(token, settle) queues it again from what
// the engine kept, reading the same arrays where they lie. Blocking calls: keepNextBatch() then
// enqueueSync, and enqueueSyncRepeat(token). The queue that decides when a turn
// repeats one: packages/core (request-queue-repeat.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NativeCall, NativeEngine, NativeRequest } from '../lib/index.js';
import { dtypes, reduceOps, request, requestTypes, run, start } from './one-rank-engine.js';

const allreduce = requestTypes['allreduce']!;
const barrier = requestTypes['barrier']!;

/** An allreduce of `input` into `output` times `postscale` (one rank: the input scaled). */
function reduceCall(name: string, input: Float32Array, output: Float32Array, postscale = 1): NativeCall {
  return { requests: [request({ type: allreduce, name, shape: [input.length], postscale, input, output })], grouped: false };
}

/** A packed group of two arrays reduced in place (times `postscale`). */
function groupCall(name: string, a: Float32Array, b: Float32Array, postscale: number): NativeCall {
  const parts: NativeRequest['parts'] = { shapes: [[a.length], [b.length]], inputs: [a, b], outputs: [a, b] };
  return { requests: [request({ type: allreduce, name, shape: [a.length + b.length], postscale, parts })], grouped: false };
}

describe('enqueueRepeat', () => {
  let engine: NativeEngine;
  beforeAll(async () => {
    engine = await start('repeat-test', { sharedMemory: true });
  });
  afterAll(() => engine.shutdown());

  it('queues a kept batch again over the same arrays, whatever they hold now', async () => {
    const x = new Float32Array([1, 2]);
    const out = new Float32Array(2);
    const a = new Float32Array([1]);
    const b = new Float32Array([2, 3]);
    const calls = [
      reduceCall('rep.x', x, out, 2),
      groupCall('rep.g', a, b, 10),
      { requests: [request({ type: barrier, name: 'rep.b' })], grouped: false },
    ];
    const first = await run(engine, calls, { keep: true });
    expect(first.token).toBeTypeOf('number');
    expect(first.outcomes).toEqual([[{}], [{}], [{}]]);
    expect([...out, ...a, ...b]).toEqual([2, 4, 10, 20, 30]);

    x.set([5, -1]);
    const again = await run(engine, calls, { repeat: first.token! });
    expect(again.outcomes).toEqual([[{}], [{}], [{}]]);
    expect([...out, ...a, ...b]).toEqual([10, -2, 100, 200, 300]);

    x.set([0.5, 0.25]);
    await run(engine, calls, { repeat: first.token! });
    expect([...out, ...a, ...b]).toEqual([1, 0.5, 1000, 2000, 3000]);
  });

  it('keeps no batch unless asked, nor one with a call that failed (the others still run)', async () => {
    const x = new Float32Array([3]);
    expect((await run(engine, [reduceCall('rep.plain', x, x, 2)])).token).toBeUndefined();
    expect(x[0]).toBe(6);

    const bad = reduceCall('rep.bad', new Float32Array(2), new Float32Array(1));
    const kept = await run(engine, [reduceCall('rep.ok', x, x, 2), bad], { keep: true });
    expect(kept.token).toBeUndefined();
    expect(kept.outcomes[0]).toEqual([{}]);
    expect((kept.outcomes[1] as Error).message).toBe("Expected an output of 8 bytes for 'rep.bad'");
    expect(x[0]).toBe(12);
  });

  it('refuses a token it does not keep, settling nothing', () => {
    let settled = 0;
    expect(engine.enqueueRepeat!(987654, () => (settled += 1))).toBe(false);
    expect(engine.enqueueRepeat!(Number.NaN, () => (settled += 1))).toBe(false);
    expect(settled).toBe(0);
  });

  it('keeps the 256 batches queued most recently', async () => {
    const xs = Array.from({ length: 258 }, (_, i) => new Float32Array([i]));
    const callOf = (i: number) => [reduceCall(`rep.lru.${i}`, xs[i]!, xs[i]!, 2)];
    const tokens: number[] = [];
    for (let i = 0; i < 256; i++) tokens.push((await run(engine, callOf(i), { keep: true })).token!);
    expect(new Set(tokens).size).toBe(256);
    // Batch 0 queued again is now the most recent: the next keep makes room by dropping batch 1.
    await run(engine, callOf(0), { repeat: tokens[0]! });
    tokens.push((await run(engine, callOf(256), { keep: true })).token!);
    await expect(run(engine, callOf(1), { repeat: tokens[1]! })).rejects.toThrow(`no batch under token ${tokens[1]}`);
    await run(engine, callOf(0), { repeat: tokens[0]! });
    await run(engine, callOf(256), { repeat: tokens[256]! });
    // Kept once (x2), then repeated twice more (batch 0) and once (batch 256); batch 1 only kept.
    expect([xs[0]![0], xs[1]![0], xs[256]![0]]).toEqual([0, 2, 1024]);
    xs[0]![0] = 1;
    await run(engine, callOf(0), { repeat: tokens[0]! });
    expect(xs[0]![0]).toBe(2);
  });

  it('keeps a blocking call under the token keepNextBatch gave, and runs it again', () => {
    const x = new Float32Array([1, 2]);
    const out = new Float32Array(2);
    const [call] = [reduceCall('rep.sync', x, out, 3)];
    const token = engine.keepNextBatch!();
    expect(engine.enqueueSync(call!.requests, false)).toEqual([{}]);
    expect([...out]).toEqual([3, 6]);
    x.set([-1, 10]);
    expect(engine.enqueueSyncRepeat!(token)).toEqual([{}]);
    expect([...out]).toEqual([-3, 30]);
    // The next keep gets the next token; an unknown token, or a kept batch of two calls, runs nothing.
    expect(engine.keepNextBatch!()).toBe(token + 1);
    expect(engine.enqueueSync(call!.requests, false)).toEqual([{}]);
    expect(engine.enqueueSyncRepeat!(token + 99)).toBeUndefined();
    expect(engine.enqueueSyncRepeat!(-1)).toBeUndefined();
    x.set([5, 5]);
    expect(engine.enqueueSyncRepeat!(token + 1)).toEqual([{}]);
    expect([...out]).toEqual([15, 15]);
  });

  it('runs no kept batch of several calls as a blocking call', async () => {
    const x = new Float32Array([1]);
    const { token } = await run(engine, [reduceCall('rep.two.a', x, x), reduceCall('rep.two.b', new Float32Array(1), new Float32Array(1))], { keep: true });
    expect(engine.enqueueSyncRepeat!(token!)).toBeUndefined();
  });

  it('keeps no blocking call that was refused', () => {
    const token = engine.keepNextBatch!();
    const bad = reduceCall('rep.sync.bad', new Float32Array(2), new Float32Array(1));
    expect(() => engine.enqueueSync(bad.requests, false)).toThrow("Expected an output of 8 bytes for 'rep.sync.bad'");
    expect(engine.enqueueSyncRepeat!(token)).toBeUndefined();
  });

  it('after shutdown, a repeat settles every call with KOLO_SHUT_DOWN before returning', async () => {
    const own = await start('repeat-test-2');
    const x = new Float32Array([1]);
    const calls = [reduceCall('late.x', x, x), { requests: [request({ type: barrier, name: 'late.b' })], grouped: false }];
    const { token } = await run(own, calls, { keep: true });
    await own.shutdown();
    const late = await run(own, calls, { repeat: token! });
    expect(late.atOnce).toEqual([0, 1]);
    expect(late.outcomes.map((o) => (o as { code: string }).code)).toEqual(['KOLO_SHUT_DOWN', 'KOLO_SHUT_DOWN']);
  });

  it('runs a call again from the entries its last repeat left, with fresh results each time', async () => {
    // From the second repeat on, each call's job and entries come back from the last delivery:
    // what the engine wrote into them (an allgather's data) must not carry over.
    const x = new Int32Array([1, 2]);
    const out = new Float32Array(1);
    const y = new Float32Array([3]);
    const calls = [
      { requests: [request({ type: requestTypes['allgather']!, name: 'rec.g', dtype: dtypes['int32']!, shape: [2], input: x })], grouped: false },
      reduceCall('rec.r', y, out, 2),
    ];
    const { token } = await run(engine, calls, { keep: true });
    const gathered: number[][] = [];
    for (let k = 0; k < 4; k++) {
      x.set([10 * k, 10 * k + 1]);
      y[0] = k;
      const { outcomes } = await run(engine, calls, { repeat: token! });
      const [result] = outcomes[0] as [{ data: ArrayBuffer; splits: number[] }];
      gathered.push([...new Int32Array(result.data), ...result.splits, out[0]!]);
    }
    expect(gathered).toEqual([[0, 1, 2, 0], [10, 11, 2, 2], [20, 21, 2, 4], [30, 31, 2, 6]]);
  });

  it('answers allCallsDone, calling no settle function, where every call finished inside it with nothing to report', async () => {
    // One rank runs each cycle inside the call: a repeat of reductions and a barrier finishes
    // there; one with an allgather (whose results carry data) is settled as usual.
    const x = new Float32Array([1]);
    const plain = [reduceCall('done.x', x, x, 2), { requests: [request({ type: barrier, name: 'done.b' })], grouped: false }];
    const kept = await run(engine, plain, { keep: true });
    const again = await run(engine, plain, { repeat: kept.token! });
    expect(again).toMatchObject({ allDone: true, outcomes: [[{}], [{}]] });
    expect(x[0]).toBe(4);
    const g = new Int32Array([7]);
    const mixed = [reduceCall('done.y', x, x, 2), { requests: [request({ type: requestTypes['allgather']!, name: 'done.g', dtype: dtypes['int32']!, shape: [1], input: g })], grouped: false }];
    const keptMixed = await run(engine, mixed, { keep: true });
    const settledMixed = await run(engine, mixed, { repeat: keptMixed.token! });
    expect(settledMixed.allDone).toBe(false);
    expect(settledMixed.atOnce).toEqual([0, 1]);
    expect((settledMixed.outcomes[1] as [{ splits: number[] }])[0].splits).toEqual([1]);
    expect(x[0]).toBe(16);
  });

  it('runs a kept call blocking or not, whichever ran it last', async () => {
    const x = new Float32Array([1]);
    const call = reduceCall('rec.both', x, x, 2);
    const token = engine.keepNextBatch!();
    expect(engine.enqueueSync(call.requests, false)).toEqual([{}]);
    // Each of these would hang were a call's last run to decide how the next one is told.
    await run(engine, [call], { repeat: token });
    await run(engine, [call], { repeat: token });
    expect(engine.enqueueSyncRepeat!(token)).toEqual([{}]);
    expect(engine.enqueueSyncRepeat!(token)).toEqual([{}]);
    await run(engine, [call], { repeat: token });
    expect(x[0]).toBe(64);
  });

  it('reduces with the op the kept batch was read with', async () => {
    const x = new Float32Array([4]);
    const max = { requests: [request({ type: allreduce, name: 'rep.max', shape: [1], reduceOp: reduceOps['max']!, prescale: 3, input: x, output: x })], grouped: false };
    const { token } = await run(engine, [max], { keep: true });
    expect(x[0]).toBe(12);
    await run(engine, [max], { repeat: token! });
    expect(x[0]).toBe(36);
  });
});
