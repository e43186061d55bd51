import { describe, expect, it } from 'vitest';
import { maxRelDiff } from './workers/fixtures.mjs';
import { perRank, runJob, type JobResult } from './run-job.js';

interface Trained {
  readonly dist: { readonly weights: number[]; readonly updateOnKvstore: boolean } | number[];
  readonly single: { readonly weights: number[]; readonly updateOnKvstore: boolean } | number[];
}
const weightsOf = (t: Trained['dist']): number[] => (Array.isArray(t) ? t : t.weights);

describe.each([2, 3, 4])('20 training steps on %i workers match one worker on the full batch', (size) => {
  let job: JobResult;
  const trained = async (key: string): Promise<Trained[]> => {
    job ??= await runJob(size, 'kvstore-training.mjs');
    expect(job.code, job.stderr).toBe(0);
    return perRank(job, key, size) as Trained[];
  };
  const check = async (key: string): Promise<void> => {
    const all = await trained(key);
    const first = weightsOf(all[0]!.dist);
    for (const t of all) expect(weightsOf(t.dist)).toEqual(first);
    const diff = maxRelDiff(first, weightsOf(all[0]!.single));
    expect(diff, `${key}: max relative difference ${diff}`).toBeLessThanOrEqual(1e-5);
  };

  it('setOptimizer (SGD with momentum) on the kvstore, plain Float32Arrays', { timeout: 180_000 }, async () => {
    await check('linear');
  });

  it('tfjs Trainer with updateOnKvstore (the default for dist types)', async () => {
    await check('trainer.onKvstore');
    expect((await trained('trainer.onKvstore')).map((t) => (t.dist as { updateOnKvstore: boolean }).updateOnKvstore)).toEqual(Array(size).fill(true));
  });

  it('tfjs Trainer with Adam, allreduceGrads() then update()', async () => {
    await check('trainer.split');
    expect((await trained('trainer.split')).map((t) => (t.dist as { updateOnKvstore: boolean }).updateOnKvstore)).toEqual(Array(size).fill(false));
  });

  it('tfjs Trainer on the horovod store (local updates of summed gradients)', async () => {
    await check('trainer.horovod');
  });
});
