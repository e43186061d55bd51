// Results of calls that carry per-rank sizes: built in JS by the engine's result maker
// (lib/results.ts, which loadNative installs), or by N-API calls where none is set (the raw
// addon). Both must give the same values.
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NativeBinding, NativeEngine, NativeResult } from '../lib/index.js';
import { oneResult } from '../lib/results.js';
import { dtypes, oneRankConfig, request, requestTypes, start } from './one-rank-engine.js';

// The addon itself, without loadNative's wrapper (which is what installs the maker): the very
// module loadNative loaded (one-rank-engine calls it), from Node's module cache. Its engines share
// the prototype that the wrapper completes once `start` has run.
const require = createRequire(import.meta.url);
const addonPath = Object.keys(require.cache).find((path) => path.endsWith('.node'));
const raw = require(addonPath!) as NativeBinding;

type WithMaker = NativeEngine & { useResultMaker(maker: unknown): void };

// An allgather with new data, one into an output (done: no data, no splits), one into an output
// whose rows have no elements (its splits, and no bytes), and an alltoall: [data bytes, splits,
// keys, output].
function calls(engine: NativeEngine): unknown[] {
  const gathered = engine.enqueueSync([request({ type: requestTypes['allgather']!, name: 'rm.g', dtype: dtypes['int8']!, shape: [2, 2], input: new Int8Array([1, 2, 3, 4]) })], false);
  const output = new Int32Array(2);
  const into = engine.enqueueSync([request({ type: requestTypes['allgather']!, name: 'rm.into', dtype: dtypes['int32']!, shape: [2], input: new Int32Array([5, 6]), output })], false);
  const rows = engine.enqueueSync([request({ type: requestTypes['allgather']!, name: 'rm.rows', dtype: dtypes['int32']!, shape: [3, 0], input: new Int32Array(0), output: new Int32Array(0) })], false);
  const sent = engine.enqueueSync([request({ type: requestTypes['alltoall']!, name: 'rm.a2a', shape: [2], splits: [2], input: new Float32Array([7, 8]) })], false);
  const bytes = (r: NativeResult[]) => (r[0]!.data === undefined ? undefined : [...new Uint8Array(r[0]!.data)]);
  return [
    [bytes(gathered), gathered[0]!.splits, Object.keys(gathered[0]!)],
    [bytes(into), into[0]!.splits, Object.keys(into[0]!), [...output]],
    [bytes(rows), rows[0]!.splits, Object.keys(rows[0]!)],
    [[...new Float32Array(sent[0]!.data!)], sent[0]!.splits, Object.keys(sent[0]!)],
  ];
}

describe('result maker', () => {
  let made: WithMaker;
  let plain: NativeEngine;
  beforeAll(async () => {
    made = (await start('rm.made')) as WithMaker;
    plain = await raw.startEngine(oneRankConfig('rm.plain'));
  });
  afterAll(async () => {
    await made.shutdown();
    await plain.shutdown();
  });

  it('gives the same results as the N-API path, value for value', () => {
    const expected = [
      [[1, 2, 3, 4], [2], ['data', 'splits']],
      [undefined, undefined, [], [5, 6]],
      [[], [3], ['data', 'splits']],
      [[7, 8], [2], ['data', 'splits']],
    ];
    expect(calls(made)).toEqual(expected);
    expect(calls(plain)).toEqual(expected);
  });

  it('is called with the data (undefined where none came back) and each rank\'s size', () => {
    const seen: unknown[][] = [];
    made.useResultMaker((...args: unknown[]) => {
      seen.push(args.map((a) => (a instanceof ArrayBuffer ? [...new Uint8Array(a)] : a)));
      return [{ splits: [42] }];
    });
    try {
      // Nothing gathered, and an output of another size (which the caller then refuses).
      const into = made.enqueueSync([request({ type: requestTypes['allgather']!, name: 'rm.spy', dtype: dtypes['int8']!, shape: [0], input: new Int8Array(0), output: new Int8Array(2) })], false);
      const fresh = made.enqueueSync([request({ type: requestTypes['allgather']!, name: 'rm.spy2', dtype: dtypes['int8']!, shape: [1], input: new Int8Array([11]) })], false);
      // An output of the gathered size whose rows have elements: done, without the maker.
      const done = made.enqueueSync([request({ type: requestTypes['allgather']!, name: 'rm.spy3', dtype: dtypes['int8']!, shape: [2], input: new Int8Array([9, 10]), output: new Int8Array(2) })], false);
      expect([into, fresh, done, seen]).toEqual([[{ splits: [42] }], [{ splits: [42] }], [{}], [[undefined, 0], [[11], 1]]]);
    } finally {
      made.useResultMaker(oneResult);
    }
  });

  it('refuses anything but a function', () => {
    expect(() => made.useResultMaker(42)).toThrow(new TypeError('Expected a function for useResultMaker'));
  });
});
