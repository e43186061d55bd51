import { describe, expect, it } from 'vitest';
import * as dist from '../../src/index.js';

const notInitialized = 'Default process group has not been initialized, please make sure to call init_process_group.';

describe('before initProcessGroup', () => {
  it("throws torch's ValueError from every call that needs the default group", () => {
    expect(dist.isInitialized()).toBe(false);
    expect(dist.GroupMember.WORLD).toBe(null);
    expect(() => dist.getRank()).toThrow(notInitialized);
    expect(() => dist.getWorldSize()).toThrow(expect.objectContaining({ name: 'ValueError', code: 'ERR_KOLO_TORCH_VALUE', message: notInitialized }));
    expect(() => dist.allReduce(new Float32Array(1))).toThrow(notInitialized);
    expect(() => dist.barrier()).toThrow(notInitialized);
    expect(() => dist.isend(new Float32Array(1), { dst: 1 })).toThrow(notInitialized);
  });

  it('checks initProcessGroup options synchronously', () => {
    expect(() => dist.initProcessGroup({ backend: 'nccl' })).toThrow("Backend 'nccl' needs CUDA tensors");
    expect(() => dist.initProcessGroup({ backend: 'ucc' as 'gloo' })).toThrow("Expected 'gloo', 'mpi' or 'nccl' for backend but received 'ucc'");
    expect(() => dist.initProcessGroup({ timeoutMs: 0 })).toThrow(RangeError);
    expect(() => dist.initProcessGroup({ initMethod: 'foo://x' })).toThrow('No rendezvous handler for foo://');
    expect(() => dist.initProcessGroup({ worldSzie: 2 } as never)).toThrow("Unknown option 'worldSzie' for initProcessGroup; did you mean 'worldSize'?");
  });

  it("keeps torch's default timeouts and enum values", () => {
    expect(dist.defaultTimeoutMs).toEqual({ gloo: 1_800_000, mpi: 1_800_000, nccl: 600_000 });
    expect(dist.ReduceOp).toEqual({ SUM: 'sum', AVG: 'avg', PRODUCT: 'product', MIN: 'min', MAX: 'max', BAND: 'band', BOR: 'bor', BXOR: 'bxor' });
    expect(dist.Backend).toEqual({ GLOO: 'gloo', MPI: 'mpi', NCCL: 'nccl' });
    expect(dist.isNcclAvailable()).toBe(false);
  });
});

describe('Work', () => {
  it('reports completion, result and failure of the promise it wraps', async () => {
    let resolve!: (v: Float32Array) => void;
    const t = new Float32Array(1);
    const work = new dist.Work(new Promise<Float32Array>((r) => (resolve = r)));
    expect(work.isCompleted()).toBe(false);
    expect(() => work.result()).toThrow('Work.result() called before the work completed; await work.wait() first.');
    resolve(t);
    expect(await work.wait()).toBe(true);
    expect([work.isCompleted(), work.isSuccess(), work.exception()]).toEqual([true, true, undefined]);
    expect(work.result()[0]).toBe(t);

    const boom = new Error('peer died');
    const failed = new dist.Work(Promise.reject(boom));
    await expect(failed.wait()).rejects.toBe(boom);
    expect([failed.isCompleted(), failed.isSuccess(), failed.exception()]).toEqual([true, false, boom]);
    expect(() => failed.result()).toThrow(boom);
    await expect(failed.getFuture()).rejects.toBe(boom);
  });

  it('gives up waiting after timeoutMs with a TimeoutError', async () => {
    const work = new dist.Work(new Promise(() => undefined));
    await expect(work.wait({ timeoutMs: 20 })).rejects.toThrow('Work.wait timed out after 20 ms; the collective is still running.');
    await expect(work.wait({ timeoutMs: -1 })).rejects.toThrow('Expected a non-negative number of milliseconds for timeoutMs but received -1');
  });
});
