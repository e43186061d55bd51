import * as core from '@kolo/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as hvd from '../../src/index.js';
import { useCleanEnv } from './env.js';
import { createFakeBinding, fakeIds } from './fake-binding.js';

/** The error a call throws or rejects with, as plain fields. */
async function failure(call: () => unknown): Promise<{ name: string; code?: unknown; message: string }> {
  try {
    await call();
  } catch (error) {
    const e = error as Error & { code?: unknown };
    return { name: e.name, code: e.code, message: e.message };
  }
  throw new Error('expected a failure');
}

const notInit = { name: 'NotInitializedError', code: 'KOLO_NOT_INITIALIZED', message: hvd.notInitializedText };
const typeError = (message: string) => ({ name: 'TypeError', code: 'ERR_KOLO_INVALID_ARG', message });
const unsupported = (message: string) => ({ name: 'UnsupportedError', code: 'KOLO_UNSUPPORTED', message });

useCleanEnv();

describe('before init()', () => {
  it("throws Horovod's not-initialized message as core's NotInitializedError, synchronously", async () => {
    const calls = [
      hvd.rank, hvd.size, hvd.local_rank, hvd.localSize, hvd.cross_rank, hvd.crossSize, hvd.is_homogeneous,
      hvd.mpi_threads_supported, () => hvd.start_timeline('t.json'), () => hvd.allreduce(new Float32Array(1)),
      () => hvd.broadcast_object({}), () => hvd.join(), () => hvd.barrier(),
    ];
    for (const call of calls) expect(await failure(call)).toEqual(notInit);
    let thrown: unknown;
    try {
      hvd.allreduce_async(new Float32Array(1));
    } catch (error) {
      thrown = error;
    }
    expect(core.NotInitializedError.isInstance(thrown)).toBe(true);
    expect((thrown as Error).stack?.split('\n')[0]).toBe(`NotInitializedError: ${hvd.notInitializedText}`);
    expect([hvd.isInitialized(), hvd.glooEnabled(), hvd.mpiEnabled()]).toEqual([false, false, false]);
  });
});

describe('on one rank (fake engine)', () => {
  const binding = createFakeBinding(['gloo']);
  const last = () => binding.requests[binding.requests.length - 1];
  beforeAll(() => hvd.init({ binding }));
  afterAll(() => hvd.shutdown());

  it('learns homogeneity at init with one named int32 allgather', () => {
    expect(binding.requests[0]).toMatchObject({ type: fakeIds.requestTypes.allgather, name: 'hvd.init.local_sizes', dtype: fakeIds.dtypes.int32, shape: [1] });
    expect([hvd.rank(), hvd.size(), hvd.local_rank(), hvd.is_homogeneous(), hvd.is_initialized()]).toEqual([0, 1, 0, true, true]);
  });

  it('reports the build from capabilities().transports', async () => {
    expect([hvd.gloo_built(), hvd.gloo_enabled(), hvd.mpi_built(), hvd.mpi_enabled(), hvd.nccl_built(), hvd.cuda_built()]).toEqual([true, true, false, false, 0, false]);
    expect(await failure(hvd.mpi_threads_supported)).toEqual(typeError(hvd.mpiNotEnabledText));
  });

  it('defaults to Average and maps the deprecated average argument, warning once', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const x = new Float32Array([2]);
    await hvd.allreduce(x);
    expect(last()?.reduceOp).toBe(fakeIds.reduceOps.average);
    await hvd.allreduce(x, { average: false });
    expect(last()?.reduceOp).toBe(fakeIds.reduceOps.sum);
    await hvd.allreduce(x, { average: true });
    expect(last()?.reduceOp).toBe(fakeIds.reduceOps.average);
    expect(warn.mock.calls).toEqual([[hvd.averageDeprecation, { type: 'DeprecationWarning', code: 'KOLO_HVD_AVERAGE' }]]);
    warn.mockRestore();
  });

  it('refuses bad reduction arguments with exact messages', async () => {
    const x = new Float32Array([1]);
    expect(await failure(() => hvd.allreduce(x, { op: hvd.Sum, average: true }))).toEqual(typeError(hvd.opSupersedesAverage));
    expect(await failure(() => hvd.allreduce(x, { average: 'yes' as never }))).toEqual(typeError("Expected a boolean for average but received 'yes'"));
    expect(await failure(() => hvd.allreduce(x, { op: 'mean' as never }))).toEqual(
      typeError("Expected one of 'average', 'sum', 'min', 'max', 'product' for op but received 'mean'"),
    );
    expect(await failure(() => hvd.allreduce(x, { op: hvd.Adasum }))).toEqual(unsupported(hvd.adasumMessage('allreduce')));
    expect(await failure(() => hvd.reducescatter(x, { op: hvd.Product }))).toEqual(unsupported(`reducescatter: ${hvd.reducescatterOpsText}`));
    expect(await failure(() => hvd.reducescatter(x, { op: hvd.Adasum }))).toEqual(unsupported(hvd.adasumMessage('reducescatter')));
  });

  it("accepts Horovod's snake_case keywords and refuses unknown or doubled ones", async () => {
    const out = await hvd.allreduce(new Float32Array([1, 2]), { op: hvd.Sum, prescale_factor: 2, postscale_factor: 3 });
    expect([last()?.prescale, last()?.postscale, Array.from(out)]).toEqual([2, 3, [6, 12]]);
    const x = new Float32Array([1]);
    expect(await failure(() => hvd.allreduce(x, { prescaleFactor: 2, prescale_factor: 2 }))).toEqual(
      typeError('Expected either prescaleFactor or prescale_factor, not both for allreduce options but received an object'),
    );
    expect(await failure(() => hvd.allreduce(x, { prescaleFacter: 2 } as never))).toEqual({
      name: 'TypeError',
      code: 'ERR_KOLO_UNKNOWN_OPTION',
      message: "Unknown option 'prescaleFacter' for allreduce; did you mean 'prescaleFactor'?",
    });
    expect(await failure(() => hvd.allgather(x, { process_set: 'evens' } as never))).toEqual(
      typeError("Expected a ProcessSet from addProcessSet() for processSet but received 'evens'"),
    );
    expect(await failure(() => hvd.allreduce(x, { compression: 'fp16' as never }))).toEqual(
      typeError("Expected hvd.Compression.none, hvd.Compression.fp16 or another { compress, decompress } for compression but received 'fp16'"),
    );
  });

  it('returns new arrays, fills in-place variants and compresses to float16 on the wire', async () => {
    const x = new Float32Array([1.5, 2]);
    const out = await hvd.allreduce(x, { op: hvd.Sum });
    expect([out !== x, Array.from(x)]).toEqual([true, [1.5, 2]]);
    expect(await hvd.allreduce_(x, { postscaleFactor: 2 })).toBe(x);
    expect(Array.from(x)).toEqual([3, 4]);
    const packed = await hvd.allreduce(new Float32Array([0.1]), { compression: hvd.Compression.fp16 });
    expect([last()?.dtype, packed.constructor.name, Array.from(packed)]).toEqual([fakeIds.dtypes.float16, 'Float32Array', [0.0999755859375]]);
    const group = [new Float64Array([0.5]), new Int32Array([7])] as const;
    const same = await hvd.grouped_allreduce_([...group], { compression: hvd.Compression.fp16, postscale_factor: 2 });
    expect([same[0] === group[0], same[1] === group[1], Array.from(group[0]), Array.from(group[1])]).toEqual([true, true, [1], [14]]);
  });

  it('returns alltoall data alone without splits and [data, receivedSplits] with them', async () => {
    const plain = await hvd.alltoall(new Int32Array([4, 5]));
    const [data, received] = await hvd.alltoall(new Int32Array([4, 5, 6]), [2], { shape: [3] });
    expect([Array.from(plain), Array.from(data), received]).toEqual([[4, 5], [4, 5], new Int32Array([2])]);
    expect(last()?.shape).toEqual([2]);
  });

  it('keeps handles until synchronize and refuses unknown or reused ones', async () => {
    const handle = hvd.allreduce_async(new Int32Array([3]), { op: hvd.Sum });
    expect(hvd.poll(handle)).toBe(false);
    expect(Array.from(await hvd.synchronize(handle))).toEqual([3]);
    const reused = `Expected a handle from an …Async call that was not yet synchronized (synchronize) for handle but received ${handle}`;
    expect(await failure(() => hvd.synchronize(handle))).toEqual({ name: 'RangeError', code: 'ERR_KOLO_INVALID_ARG', message: reused });
    expect(await failure(() => hvd.poll(-1 as hvd.Handle<unknown>))).toEqual({
      name: 'RangeError',
      code: 'ERR_KOLO_INVALID_ARG',
      message: 'Expected a handle from an …Async call that was not yet synchronized (poll) for handle but received -1',
    });
  });

  it('registers, uses and removes process sets; the global set means every rank', async () => {
    const x = new Float32Array([1]);
    const set = await hvd.add_process_set([0]);
    expect([set instanceof hvd.ProcessSet, set.id, set.ranks, last()?.type, last()?.splits]).toEqual([true, 5, [0], fakeIds.requestTypes.addProcessSet, [0]]);
    await hvd.allreduce(x, { process_set: set });
    expect(last()?.processSet).toBe(5);
    await hvd.allgather(x, { processSet: hvd.global_process_set });
    expect([last()?.processSet, hvd.global_process_set.ranks]).toEqual([0, [0]]);
    expect(await hvd.addProcessSet(set)).toEqual(set);
    expect(await hvd.remove_process_set(set)).toBe(true);
    expect([last()?.type, last()?.root]).toEqual([fakeIds.requestTypes.removeProcessSet, 5]);
    expect(await failure(() => hvd.broadcast_object({}, 0, { process_set: set } as never))).toEqual(
      unsupported('broadcast_object: process sets are not supported for this call yet; remove the process_set argument (it then runs over all ranks).'),
    );
  });

  it("passes start/stop_timeline to core, with Horovod's mark_cycles keyword", () => {
    hvd.start_timeline('t.json', { mark_cycles: true });
    hvd.stopTimeline();
    hvd.startTimeline('u.json');
    expect(binding.timeline).toEqual([['start', 't.json', true], ['stop'], ['start', 'u.json', false]]);
  });
});

describe('request names', () => {
  it("are core's: <op>.noname.<n> per engine, explicit names as given, groups as <base>_<i>of<n> (one request per dtype)", async () => {
    const binding = createFakeBinding();
    await hvd.init({ binding });
    const x = new Float32Array([1]);
    await hvd.allreduce(x);
    await hvd.allreduce_(x, { name: 'grad' });
    await hvd.synchronize(hvd.allreduce_async(x));
    await hvd.grouped_allreduce([x, x]);
    await hvd.broadcast(x, 0);
    await hvd.shutdown();
    expect(binding.requests.slice(1).map((r) => r.name)).toEqual([
      'allreduce.noname.0',
      'grad',
      'allreduce.noname.1',
      'grouped_allreduce.noname.0_1of1',
      'broadcast.noname.0',
    ]);
  });
});

describe('after shutdown()', () => {
  it("gives Horovod's message again, and isHomogeneous needs hvd.init()", async () => {
    const binding = createFakeBinding();
    await hvd.init({ binding });
    await hvd.shutdown();
    expect(hvd.isInitialized()).toBe(false);
    expect(await failure(() => hvd.allreduce(new Float32Array(1)))).toEqual(notInit);
    await core.init({ binding });
    expect(await failure(hvd.isHomogeneous)).toEqual({
      name: 'Error',
      code: 'ERR_KOLO_HVD_INIT_REQUIRED',
      message: "isHomogeneous() needs hvd.init(): the engine was started by @kolo/core's init(), which does not learn the hosts; call hvd.init() on every rank (it is a no-op for the engine).",
    });
    await core.shutdown();
  });
});
