import { describe, expect, it } from 'vitest';
import { perRank, runJob } from './run-job.js';

const unusedMessage =
  'Expected to have finished reduction in the prior iteration before starting a new one. This error indicates that your module has parameters that were not used in producing loss. You can enable unused parameter detection by passing the keyword argument `find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by \n' +
  'making sure all `forward` function outputs participate in calculating loss. \n' +
  "If you already have done the above, then the distributed data parallel module wasn't able to locate the output tensors in the return value of your module's `forward` function. Please include the loss function and the structure of the return value of `forward` of your module when reporting this issue (e.g. list, dict, iterable).\n" +
  'Parameter indices which did not receive grad for rank RANK: 2 3 4 5\n' +
  ' In addition, you can set the environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or DETAIL to print out information about which particular parameters did not receive gradient on this rank as part of this error';

describe('DistributedDataParallel on 2 ranks', () => {
  it('matches one process on the whole batch after 20 steps, with noSync and unused parameters', { timeout: 240_000 }, async () => {
    const job = await runJob(2, 'ddp-parity.mjs', { timeoutMs: 230_000 });
    expect(job.code, job.stderr).toBe(0);
    for (const label of ['sgd', 'adam', 'noSync.sgd', 'noSync.adam']) {
      // Rank 1 started from other weights: construction broadcast rank 0's.
      expect(perRank(job, `${label}.initEqual`, 2)).toEqual([0, 0]);
      const [diff] = perRank(job, `${label}.maxRelDiff`, 1) as number[];
      expect(diff, label).toBeLessThanOrEqual(1e-5);
      const [d0, d1] = perRank(job, `${label}.digest`, 2);
      expect(d1, `${label}: both ranks hold the same weights`).toBe(d0);
    }
    // A 1 MiB kernel closes the first bucket; the rest follow in reverse order, one bucket each
    // because bucketCapMb is tiny; the small models fit in one bucket.
    expect(perRank(job, 'sgd.buckets', 2)).toEqual([[[5, 4, 3, 2], [1], [0]], [[5, 4, 3, 2], [1], [0]]]);
    expect(perRank(job, 'noSync.sgd.buckets', 1)).toEqual([[[5, 4, 3, 2, 1, 0]]]);
    expect(perRank(job, 'unused.strict', 2)).toEqual([0, 1].map((rank) => ({ name: 'RuntimeError', code: 'ERR_KOLO_TORCH_RUNTIME', message: unusedMessage.replace('RANK', String(rank)) })));
    expect(perRank(job, 'unused.tolerant.gradNames', 2)).toEqual([2, 2]);
    expect(perRank(job, 'unused.tolerant.unchanged', 2)).toEqual([true, true]);
  });

  it('joins uneven inputs: zeros from joined ranks, the last joiner\'s model everywhere, aligned numbering', { timeout: 120_000 }, async () => {
    const job = await runJob(2, 'ddp-join.mjs');
    expect(job.code, job.stderr).toBe(0);
    expect(perRank(job, 'join.true.maxRelDiff', 2)).toEqual([0, 0]);
    expect(perRank(job, 'join.false.maxRelDiff', 2)).toEqual([0, 0]);
    expect(perRank(job, 'after', 2)).toEqual([[3], [3]]);
  });
});
