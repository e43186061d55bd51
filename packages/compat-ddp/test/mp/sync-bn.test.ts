import { describe, expect, it } from 'vitest';
import { perRank, runJob } from './run-job.js';

describe('SyncBatchNorm.convertSyncBatchnorm on 2 ranks', () => {
  it('swaps in SyncBatchNormalization with the same weights and global-batch statistics', { timeout: 60_000 }, async () => {
    const job = await runJob(2, 'sync-bn.mjs');
    expect(job.code, job.stderr).toBe(0);
    expect(perRank(job, 'layers', 2)).toEqual(Array(2).fill(['Dense', 'SyncBatchNormalization', 'Dense']));
    expect(perRank(job, 'weightsCopied', 2)).toEqual([true, true]);
    expect(perRank(job, 'meanMoved', 2)).toEqual([true, true]);
    for (const diff of perRank(job, 'statsDiff', 2) as number[]) expect(diff).toBeLessThan(1e-6);
    // Each rank's half alone gives other statistics: the agreement above comes from syncing.
    for (const diff of perRank(job, 'halfDiff', 2) as number[]) expect(diff).toBeGreaterThan(1e-3);
    const [d0, d1] = perRank(job, 'ddpDigest', 2);
    expect(d1, 'ranks hold the same weights and statistics after DDP steps').toBe(d0);
  });
});
