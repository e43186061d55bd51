import { beforeAll, describe, expect, it } from 'vitest';
import { type JobResult, perRank, runJob } from './run-job.js';

const messages: Record<string, string> = {
  dtype: 'Mismatched data types: One rank had type float32, but another rank had type int32.',
  operation: 'Mismatched operations: One rank did an ALLREDUCE, but another rank did an ALLGATHER.',
  shape:
    'Mismatched ALLREDUCE tensor shapes: One rank sent a tensor of shape [17, 17, 17], but another rank sent a tensor of shape [18, 18, 18].',
  scale:
    'Mismatched prescale and/or postscale factors: One rank sent factors (1, 0.5), but another rank sent factors (1, 1).',
  reduceOp: 'Mismatched reduction operation: One rank sent reduction op 0, but another rank sent reduction op 1.',
  gatherRank: 'Mismatched ALLGATHER tensor shapes: One rank sent a tensor of rank 2, but another rank sent a tensor of rank 3.',
  gatherDim:
    'Mismatched ALLGATHER tensor shapes: One rank sent a tensor with dimension 1 equal to 3, but another rank sent a tensor with dimension 1 equal to 4.',
  root: 'Mismatched BROADCAST root ranks: One rank specified root rank 0, but another rank specified root rank 1.',
  groupShape:
    'Mismatched ALLREDUCE tensor shapes: One rank sent tensor 2 of 2 in the group with shape [3, 2], but another rank sent it with shape [2, 3].',
  groupCount: 'Mismatched ALLREDUCE tensor shapes: One rank sent a group of 2 tensors, but another rank sent a group of 3 tensors.',
};

describe('cross-rank validation on 2 workers', () => {
  let job: JobResult;
  beforeAll(async () => {
    // The job is killed after 100 s, so a hang shows up as missing results, not a hook timeout.
    job = await runJob(2, 'mismatch.mjs', { timeoutMs: 100_000 });
  }, 150_000);

  it('gives every rank the same exact message, and the next op succeeds', () => {
    expect(job.code, job.stderr).toBe(0);
    for (const [rule, message] of Object.entries(messages)) {
      const full = `${message} Every rank must submit '${rule}' with the same dtype, shape, op, root and scale factors.`;
      expect(perRank(job, rule, 2), rule).toEqual([0, 1].map(() => ({ name: 'MismatchError', code: 'KOLO_MISMATCH', message: full })));
      expect(perRank(job, `after.${rule}`, 2), `after ${rule}`).toEqual([[3], [3]]);
    }
  });

  it('rejects a rank-zero allgather at the TS edge on every rank, before the engine sees it', () => {
    // The coordinator's "Process-set rank zero tried to ALLGATHER a rank-zero tensor." is covered by
    // the C++ unit tests; core refuses the call first, so no rank ever waits for the others.
    const error = { name: 'RangeError', code: 'ERR_KOLO_INVALID_ARG', message: 'Expected a shape with at least one dimension for shape but received []' };
    expect(perRank(job, 'gatherScalar', 2)).toEqual([error, error]);
    expect(perRank(job, 'after.gatherScalar', 2)).toEqual([[3], [3]]);
  });

  it('fails a duplicate in-flight name at once on that rank only', () => {
    const dup = perRank(job, 'duplicate', 2) as { code: string; message: string }[];
    for (const d of dup) {
      expect(d.code).toBe('KOLO_DUPLICATE_NAME');
      expect(d.message).toContain(
        'Requested to allreduce, allgather, or broadcast a tensor with the same name as another tensor that is currently being processed.  If you want to request another tensor, use a different tensor name.',
      );
    }
    expect(perRank(job, 'duplicate.first', 2)).toEqual(['KOLO_SHUT_DOWN', 'KOLO_SHUT_DOWN']);
  });
});
