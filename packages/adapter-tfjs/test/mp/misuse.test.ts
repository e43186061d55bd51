import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { perRank, runJob } from './run-job.js';

describe('misuse across ranks fails the same way on every rank and leaves the engine usable', () => {
  it('reports different models, Adamax state and an unreadable checkpoint', { timeout: 60_000 }, async () => {
    const directory = await mkdtemp(join(tmpdir(), 'kolo-tfjs-misuse-'));
    const job = await runJob(2, 'mismatch.mjs', { args: [directory], timeoutMs: 55_000 });
    expect(job.code, job.stderr).toBe(0);
    const hint = '; build the same model on every rank before broadcasting.';
    expect(perRank(job, 'shapes', 2)).toEqual(Array(2).fill(
      `MismatchError: Expected shape [4, 3] and dtype float32 (as on root rank 0) for variable 0 on rank 1 but received shape [4, 5] and dtype float32${hint}`,
    ));
    expect(perRank(job, 'count', 2)).toEqual(Array(2).fill(
      `MismatchError: Expected 4 variables (as on root rank 0) on rank 1 but received 2${hint}`,
    ));
    expect(perRank(job, 'adamax', 2)).toEqual(Array(2).fill(
      "UnsupportedError: broadcastOptimizerState cannot broadcast an Adamax optimizer's state: tfjs's AdamaxOptimizer does not implement getWeights()/setWeights(). Use Adam, or start every rank from a fresh Adamax and broadcast only the model.",
    ));
    expect(perRank(job, 'restore', 2)).toEqual(Array(2).fill(
      `Error: rank 0 could not restore ${directory}: ENOENT: no such file or directory, open '${directory}/epoch-00001/model.json'`,
    ));
    expect(perRank(job, 'after', 2)).toEqual([[3], [3]]);
  });
});
