import { beforeAll, describe, expect, it } from 'vitest';
import { perRank, runJob, type JobResult } from './run-job.js';

interface FitResult {
  weights: string;
  optimizer: string;
  names: number;
  iterations: number;
  epochLogs: Record<string, number>[];
  lrTrace: number[];
  control: string;
}

/** Horovod's warmup: initialLr / size · ((epoch + (batch + 1) / steps) · (size − 1) / warmup + 1). */
function warmupLr(options: { initialLr: number; size: number; warmupEpochs: number; steps: number; epoch: number; batch: number }): number {
  const { initialLr, size, warmupEpochs, steps, epoch, batch } = options;
  const e = epoch + (batch + 1) / steps;
  return (initialLr / size) * ((e * (size - 1)) / warmupEpochs + 1);
}

describe('model.fit under kolorun -np 2 with DistributedOptimizer and the callbacks', () => {
  let job: JobResult;
  beforeAll(async () => {
    job = await runJob(2, 'fit.mjs', { timeoutMs: 55_000 });
  }, 60_000);

  it('ends with bitwise identical weights and optimizer state on every rank', () => {
    expect(job.code, job.stderr).toBe(0);
    const [a, b] = perRank(job, 'fit', 2) as FitResult[];
    // Model weights (with SyncBatchNormalization moving statistics) and Adam state, bitwise.
    expect(b?.weights).toBe(a?.weights);
    expect(b?.optimizer).toBe(a?.optimizer);
    // iter + m and v for 6 trainable weights; 15 fit + 3 fitDataset + 2 trainOnBatch updates.
    expect([a?.names, a?.iterations]).toEqual([13, 20]);
    // The ranks started from different weights and data: without the adapter they stay apart.
    expect(b?.control).not.toBe(a?.control);
    // MetricAverageCallback: the same epoch logs everywhere.
    expect(b?.epochLogs).toEqual(a?.epochLogs);
    expect(a?.epochLogs.map((l) => l['lr'])).toEqual([0.015, 0.02, 0.02]);
  });

  it('warms the learning rate up batch by batch as Horovod does, then holds it', () => {
    expect(job.code, job.stderr).toBe(0);
    const [a] = perRank(job, 'fit', 2) as FitResult[];
    // 40 samples per rank, batch 8: 5 steps per epoch, 2 warmup epochs, then 0.02 held.
    const expected = [0, 1].flatMap((epoch) =>
      [0, 1, 2, 3, 4].map((batch) => warmupLr({ initialLr: 0.02, size: 2, warmupEpochs: 2, steps: 5, epoch, batch })),
    );
    expect(a?.lrTrace.slice(0, 10).map((v) => v.toFixed(12))).toEqual(expected.map((v) => v.toFixed(12)));
    expect(a?.lrTrace.slice(10)).toEqual([0.02, 0.02, 0.02, 0.02, 0.02]);
  });
});
