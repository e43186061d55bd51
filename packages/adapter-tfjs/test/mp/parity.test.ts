import { describe, expect, it } from 'vitest';
import { perRank, runJob } from './run-job.js';

interface Difference {
  maxRel: number;
  maxAbs: number;
}

// Relative differences are |distributed − reference| / max(|reference|, 1e-3) per element, maximum
// over all weights; float32 sums in a different order differ by a few ulps, ~1e-7 relative.
const weightTolerance = 1e-5;
// Gradients of magnitude ~1e-3 differ by ~6e-8 absolute (one float32 ulp of the summed terms).
const gradientTolerance = 1e-4;

describe.each([2, 3])('parity on %i ranks with batch B/N against one process on batch B', (np) => {
  it('SGD, Momentum, Adam (also through step()), backwardPassesPerStep 4 and SyncBatchNormalization match after 20 steps', { timeout: 90_000 }, async () => {
    const job = await runJob(np, 'parity.mjs', { timeoutMs: 85_000 });
    expect(job.code, job.stderr).toBe(0);
    for (const key of ['optimizer.sgd', 'optimizer.momentum', 'optimizer.adam', 'step', 'backwardPassesPerStep']) {
      for (const [r, d] of (perRank(job, key, np) as Difference[]).entries()) {
        expect(d.maxRel, `${key} on rank ${r}`).toBeLessThanOrEqual(weightTolerance);
      }
    }
    // b's gradient is 1 on rank 0 and null elsewhere: the average is 1/np on every rank.
    expect(perRank(job, 'partialNull', np)).toEqual(Array(np).fill([0, Math.fround(5 - 1 / np)]));
    for (const key of ['syncbn.sync', 'syncbn.sync-local']) {
      const all = perRank(job, key, np) as Record<'outputs' | 'gradients' | 'weights' | 'movingStatistics', Difference>[];
      for (const [r, d] of all.entries()) {
        expect(d.outputs.maxRel, `${key} outputs on rank ${r}`).toBeLessThanOrEqual(weightTolerance);
        expect(d.gradients.maxRel, `${key} gradients on rank ${r}`).toBeLessThanOrEqual(gradientTolerance);
        expect(d.weights.maxRel, `${key} weights on rank ${r}`).toBeLessThanOrEqual(weightTolerance);
        expect(d.movingStatistics.maxRel, `${key} moving statistics on rank ${r}`).toBeLessThanOrEqual(weightTolerance);
      }
    }
  });
});
