import { beforeAll, describe, expect, it } from 'vitest';
import { type JobResult, perRank, runJob } from './run-job.js';

describe('model state on 3 workers', () => {
  let job: JobResult;
  beforeAll(async () => {
    job = await runJob(3, 'model-state.mjs', { timeoutMs: 60_000 });
  }, 70_000);

  it('averageInitializers gives every rank the exact mean of every float initializer', () => {
    expect(job.code, job.stderr).toBe(0);
    expect(perRank(job, 'average', 3)).toEqual([true, true, true]);
  });

  it("broadcastInitializers gives every rank the root's initializers", () => {
    const root = [['W1', ['2.5']], ['b1', ['2.5']], ['W2', ['2.5']], ['b2', ['2.5']]];
    expect(perRank(job, 'broadcast', 3)).toEqual([root, root, root]);
    expect(perRank(job, 'list', 3)).toEqual([[1, -1], [1, -1], [1, -1]]);
  });

  it('averages floats but leaves integer constants alone', () => {
    expect(perRank(job, 'mixed', 3)).toEqual([0, 1, 2].map((r) => ({ zero: 1, axis1: String(r) })));
  });

  it('rejects different layouts on every rank with one message', () => {
    const error = {
      name: 'MismatchError', code: 'KOLO_MISMATCH', isKoloError: true,
      message: "averageInitializers needs the same tensors on every rank: tensor 0 is 'w' float32 [2] on rank 0 but 'w' float32 [3] on rank 1",
    };
    expect(perRank(job, 'mismatch', 3)).toEqual([error, error, error]);
  });

  it('starts every trainer rank from the weights only broadcastFrom loaded', () => {
    expect(perRank(job, 'trainerStart', 3)).toEqual([true, true, true]);
  });

  it('rejects on every rank when the root cannot load the initial weights', () => {
    const message = "ENOENT: no such file or directory, open '/nonexistent/w.onnx'";
    const others = { name: 'Error', code: 'ENOENT', message: `Rank 0 could not load the initial weights: ${message}` };
    expect(perRank(job, 'trainerFailure', 3)).toEqual([{ name: 'Error', code: 'ENOENT', message }, others, others]);
  });
});
