// The addon on its own: constants, capabilities and a one-rank engine (Gloo with a single
// member) driven through both entry points. The loader's errors are in loader.test.ts.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadNative, type NativeEngine, type NativeRequest } from '../lib/index.js';

const native = loadNative();
const { dtypes, requestTypes, reduceOps } = native.constants;

function request(over: Partial<NativeRequest> & Pick<NativeRequest, 'type' | 'name'>): NativeRequest {
  return { dtype: dtypes['float32']!, shape: [], reduceOp: reduceOps['sum']!, root: 0, prescale: 1, postscale: 1, splits: [], ...over };
}

describe('constants and capabilities', () => {
  it('exports every dtype, request type, reduction and error code by name', () => {
    expect(Object.keys(dtypes)).toEqual(['float32', 'float64', 'int32', 'int64', 'uint8', 'int8', 'float16']);
    expect(Object.keys(requestTypes)).toEqual([
      'allreduce', 'allgather', 'broadcast', 'alltoall', 'reducescatter', 'barrier', 'join', 'addProcessSet', 'removeProcessSet',
    ]);
    // Horovod's numbering, so mismatch messages print the same integers.
    expect(reduceOps).toEqual({ average: 0, sum: 1, min: 3, max: 4, product: 5 });
    expect(native.constants.errorCodes).toEqual([
      'KOLO_SHUT_DOWN', 'KOLO_MISMATCH', 'KOLO_DUPLICATE_NAME', 'KOLO_TIMEOUT', 'KOLO_COMMUNICATION', 'KOLO_UNSUPPORTED', 'KOLO_INTERNAL',
    ]);
    expect(Object.isFrozen(dtypes)).toBe(true);
  });

  it('reports the Gloo transport', () => {
    expect(native.capabilities().transports).toContain('gloo');
  });
});

describe('a one-rank engine', () => {
  let engine: NativeEngine;
  beforeAll(async () => {
    engine = await native.startEngine({
      rank: 0, size: 1, localRank: 0, localSize: 1, crossRank: 0, crossSize: 1,
      store: { kind: 'file', path: mkdtempSync(join(tmpdir(), 'kolo-addon-')) },
      storePrefix: 'addon-test', hostname: '127.0.0.1', iface: '', cycleTimeMs: 1, fusionThresholdBytes: 1 << 20, cacheCapacity: 1024, timeoutMs: 10_000,
    });
  });
  afterAll(async () => {
    await engine.shutdown();
  });

  it('reduces in place with prescale and postscale (integers truncate)', async () => {
    const data = new Int32Array([7, -7, 3]);
    await engine.enqueue([request({ type: requestTypes['allreduce']!, name: 'i', dtype: dtypes['int32']!, shape: [3], prescale: 1, postscale: 0.5, input: data, output: data })], false);
    expect(Array.from(data)).toEqual([3, -3, 1]);
  });

  it('returns new buffers for allgather and the splits per rank', () => {
    const [result] = engine.enqueueSync([request({ type: requestTypes['allgather']!, name: 'g', dtype: dtypes['int8']!, shape: [2, 2], input: new Int8Array([1, 2, 3, 4]) })], false);
    expect(Array.from(new Int8Array(result!.data!))).toEqual([1, 2, 3, 4]);
    expect(result!.splits).toEqual([2]);
  });

  it('gathers into an output of the gathered size (done then: no data, no splits) and into a new buffer otherwise', () => {
    const input = new Int32Array([5, 6]);
    const output = new Int32Array(2);
    const [into] = engine.enqueueSync([request({ type: requestTypes['allgather']!, name: 'g.into', dtype: dtypes['int32']!, shape: [2], input, output })], false);
    expect([Object.keys(into!), Array.from(output)]).toEqual([[], [5, 6]]);
    // Rows without elements: the output's length cannot tell the rows, so the splits come back.
    const [empty] = engine.enqueueSync([request({ type: requestTypes['allgather']!, name: 'g.rows', dtype: dtypes['int32']!, shape: [2, 0], input: new Int32Array(0), output: new Int32Array(0) })], false);
    expect([empty!.data?.byteLength, empty!.splits]).toEqual([0, [2]]);
    const wrong = new Int32Array(3);
    const [fresh] = engine.enqueueSync([request({ type: requestTypes['allgather']!, name: 'g.wrong', dtype: dtypes['int32']!, shape: [2], input, output: wrong })], false);
    expect([Array.from(new Int32Array(fresh!.data!)), Array.from(wrong)]).toEqual([[5, 6], [0, 0, 0]]);
  });

  it('reduces SharedArrayBuffer-backed arrays in place', async () => {
    const shared = new Int32Array(new SharedArrayBuffer(16), 4, 2);
    shared.set([5, -5]);
    await engine.enqueue([request({ type: requestTypes['allreduce']!, name: 'sab', dtype: dtypes['int32']!, shape: [2], input: shared, output: shared })], false);
    expect(Array.from(shared)).toEqual([5, -5]);
    const [gathered] = engine.enqueueSync([request({ type: requestTypes['allgather']!, name: 'sab.g', dtype: dtypes['int32']!, shape: [2], input: shared })], false);
    expect(Array.from(new Int32Array(gathered!.data!))).toEqual([5, -5]);
  });

  it('refuses a DataView where a TypedArray goes, and reads a view at its offset', () => {
    const view = new DataView(new ArrayBuffer(8));
    const allreduce = (input: unknown) => () =>
      engine.enqueueSync([request({ type: requestTypes['allreduce']!, name: 'dv', shape: [2], input: input as Float32Array, output: new Float32Array(2) })], false);
    expect(allreduce(view)).toThrow(new TypeError("Expected a TypedArray for input of 'dv'"));
    const offset = new Float32Array(new Float32Array([9, 1.5, -2]).buffer, 4, 2);
    const out = new Float32Array(2);
    engine.enqueueSync([request({ type: requestTypes['allreduce']!, name: 'at', shape: [2], input: offset, output: out })], false);
    expect([...out]).toEqual([1.5, -2]);
  });

  it('handles zero-length tensors without calling the transport', async () => {
    const empty = new Float32Array(0);
    const [gathered] = await engine.enqueue([request({ type: requestTypes['allgather']!, name: 'z', shape: [0], input: empty })], false);
    expect(gathered!.data!.byteLength).toBe(0);
    await engine.enqueue([request({ type: requestTypes['allreduce']!, name: 'z2', shape: [0], input: empty, output: empty })], false);
  });

  it('rejects a buffer whose size disagrees with its shape, before queuing', () => {
    expect(() => engine.enqueueSync([request({ type: requestTypes['allreduce']!, name: 'bad', shape: [3], input: new Float32Array(2), output: new Float32Array(2) })], false)).toThrow(
      "Expected input of 12 bytes for 'bad' (shape [3]) but received 8",
    );
  });

  it('fails a name used twice in one call with KOLO_DUPLICATE_NAME and queues neither', async () => {
    const a = new Float64Array([1]);
    const twice = [0, 1].map(() => request({ type: requestTypes['allreduce']!, name: 'd', dtype: dtypes['float64']!, shape: [1], input: a, output: a }));
    await expect(engine.enqueue(twice, false)).rejects.toMatchObject({ code: 'KOLO_DUPLICATE_NAME' });
    // Nothing was queued, so the name is free again.
    await expect(engine.enqueue([twice[0]!], false)).resolves.toEqual([{}]);
  });

  it('after shutdown, rejects new work with KOLO_SHUT_DOWN and shuts down again quietly', async () => {
    const own = await native.startEngine({
      rank: 0, size: 1, localRank: 0, localSize: 1, crossRank: 0, crossSize: 1,
      store: { kind: 'file', path: mkdtempSync(join(tmpdir(), 'kolo-addon-')) },
      storePrefix: 'addon-test-2', hostname: '127.0.0.1', iface: '', cycleTimeMs: 1, fusionThresholdBytes: 0, cacheCapacity: 1024, timeoutMs: 10_000,
    });
    await own.shutdown();
    await own.shutdown();
    const x = new Float32Array(1);
    await expect(own.enqueue([request({ type: requestTypes['allreduce']!, name: 'late', shape: [1], input: x, output: x })], false)).rejects.toMatchObject({
      code: 'KOLO_SHUT_DOWN',
    });
  });
});
