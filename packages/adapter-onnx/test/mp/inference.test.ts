import { beforeAll, describe, expect, it } from 'vitest';
import { type JobResult, perRank, runJob } from './run-job.js';

describe('DistributedInferenceSession on 3 workers', () => {
  let job: JobResult;
  beforeAll(async () => {
    job = await runJob(3, 'inference.mjs', { timeoutMs: 60_000 });
  }, 70_000);

  it('returns exactly the single-process outputs, in order, on every rank (100 rows: not a multiple of 3)', () => {
    expect(job.code, job.stderr).toBe(0);
    const exact = { dims: [100, 10], type: 'float32', exact: true };
    expect(perRank(job, 'all.100', 3)).toEqual([exact, exact, exact]);
  });

  it('gathers on the root only when asked, from a model only rank 0 named', () => {
    expect(perRank(job, 'root.100', 3)).toEqual(['undefined', { dims: [100, 10], exact: true }, 'undefined']);
  });

  it('handles fewer rows than ranks (rank 2 runs none)', () => {
    const exact = { dims: [2, 10], type: 'float32', exact: true };
    expect(perRank(job, 'all.2', 3)).toEqual([exact, exact, exact]);
    expect(perRank(job, 'root.2', 3)).toEqual(['undefined', { dims: [2, 10], exact: true }, 'undefined']);
  });
});
