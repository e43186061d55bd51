import { describe, expect, it } from 'vitest';
import { expectedResults } from './expected.js';
import { perRank, runJob } from './run-job.js';

describe.each([2, 3, 4])('every torch.distributed collective x ReduceOp x dtype on %i ranks', (size) => {
  it('gives the exact results on every rank', { timeout: 180_000 }, async () => {
    const job = await runJob(size, 'collectives.mjs');
    expect(job.code, job.stderr).toBe(0);
    for (let rank = 0; rank < size; rank++) {
      const expected = expectedResults(rank, size);
      const got = new Map([...expected.keys()].map((key) => [key, perRank(job, key, size)[rank]]));
      expect(got).toEqual(expected);
      expect(job.results.size).toBe(expected.size);
    }
  });
});
