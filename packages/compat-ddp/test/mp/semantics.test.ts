import { describe, expect, it } from 'vitest';
import { perRank, runJob } from './run-job.js';

const valueError = (message: string) => ({ name: 'ValueError', code: 'ERR_KOLO_TORCH_VALUE', message });
const runtimeError = (message: string) => ({ name: 'RuntimeError', code: 'ERR_KOLO_TORCH_RUNTIME', message });
const reachedButRank0Failed = (rank: number) =>
  runtimeError(`Rank ${rank} successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank 0. Please check rank 0 logs for faulty rank.`);

describe('torch.distributed semantics on 3 ranks', () => {
  it('reports Work, group, tfjs and monitoredBarrier behaviour exactly', { timeout: 120_000 }, async () => {
    const job = await runJob(3, 'semantics.mjs');
    expect(job.code, job.stderr).toBe(0);
    const all = (key: string) => perRank(job, key, 3);
    expect(all('state')).toEqual(Array(3).fill({ initialized: true, backend: 'gloo', size: 3, world: 3 }));
    expect(all('init.twice')).toEqual(Array(3).fill(valueError('trying to initialize the default process group twice!')));
    const ok = { before: false, waited: true, after: true, success: true, exception: null, same: true, future: true, data: [6] };
    expect(all('work.ok')).toEqual([ok, ok, ok]);
    const failed = {
      name: 'MismatchError',
      code: 'KOLO_MISMATCH',
      message: "Mismatched data types: One rank had type float32, but another rank had type int32. Every rank must submit 'torch.world.1.all_reduce' with the same dtype, shape, op, root and scale factors.",
      completed: true,
      success: false,
      exception: true,
      resultThrows: true,
      mentionsDtype: true,
    };
    expect(all('work.failed')).toEqual([failed, failed, failed]);
    const timeout = { name: 'TimeoutError', code: 'KOLO_TIMEOUT', message: 'Work.wait timed out after 100 ms; the collective is still running.' };
    expect(job.results.get('work.timeout')).toEqual(new Map<number, unknown>([[0, { late: timeout, then: true }], [1, { from: 0, data: [5, 6] }]]));
    const member = (rank: number) => ({ member: true, rank, size: 2, same: true, data: [21], ranks: [0, 1], groupRankOf1: 1 });
    expect(all('group')).toEqual([member(0), member(1), { member: false, rank: -1, size: -1, same: true, data: [12], ranks: null, groupRankOf1: null }]);
    expect(all('group.broadcast')).toEqual([[0], [3], [3]]);
    expect(job.results.get('group.destroyed')).toEqual(new Map([[0, valueError('Invalid process group specified')], [1, valueError('Invalid process group specified')]]));
    const tfjs = { original: [1, 2], summed: [6, 6], dtype: 'float32', gathered: [['int32', 0], ['int32', 3], ['int32', 6]], shape: [2, 2], bcast: [2, 2, 1, 1] };
    expect(all('tfjs')).toEqual([tfjs, { ...tfjs, original: [2, 2] }, { ...tfjs, original: [3, 2] }]);
    expect(all('monitored.first')).toEqual([runtimeError('[Rank 0]: Rank 2 failed to pass monitoredBarrier in 1000 ms'), reachedButRank0Failed(1), reachedButRank0Failed(2)]);
    expect(all('monitored.all')).toEqual([runtimeError('[Rank 0]: Ranks 1, 2 failed to pass monitoredBarrier in 1000 ms'), reachedButRank0Failed(1), reachedButRank0Failed(2)]);
    const destroyed = (warnings: string[]) => ({ initialized: false, world: null, warnings });
    expect(all('destroyed')).toEqual([destroyed([]), destroyed([]), destroyed(['Running all_reduce on global rank 2 which does not belong to the given group.'])]);
  });
});
