import { describe, expect, it } from 'vitest';
import { perRank, runJob } from './run-job.js';

describe("'@kolo/compat-horovod/onnx' on 2 ranks", () => {
  it('broadcast_parameters gives every rank rank 0\'s initializers, and DistributedTrainer keeps ranks identical', { timeout: 120_000 }, async () => {
    const job = await runJob(2, 'horovod-onnx.mjs');
    expect(job.code, job.stderr).toBe(0);
    expect(perRank(job, 'perturbed', 2)).toEqual([false, true]);
    expect(perRank(job, 'broadcast', 2)).toEqual([{ same: true }, { same: true }]);
    const [a, b] = perRank(job, 'trained', 2) as { losses: number[]; weights: string }[];
    // Gradients are averaged in one allreduce (loss included), so both ranks see the same losses
    // and end with bitwise identical weights.
    expect(b).toEqual(a);
    expect(a!.losses).toHaveLength(3);
  });
});
