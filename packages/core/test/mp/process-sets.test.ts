import { describe, expect, it } from 'vitest';
import { type Launcher, perRank, runJob } from './run-job.js';

const cases = (['kolorun', 'mpirun'] as Launcher[]).flatMap((launcher) => [3, 4].map((size) => ({ launcher, size })));

describe.each(cases)('process sets on $size workers started by $launcher', ({ launcher, size }) => {
  it('run every collective among the members only, with global roots and set-sized averages', async () => {
    const job = await runJob(size, 'process-sets.mjs', { launcher });
    expect(job.code, job.stderr).toBe(0);
    const last = size - 1;
    expect(perRank(job, 'ids', size)).toEqual(Array.from({ length: size }, () => [1, 2, [0, last], [0, 1]]));
    const ends = job.results.get('ends')!;
    expect(ends.get(0)).toEqual({ avg: last / 2, bcast: last * 7, gathered: [0, last, last], a2a: [0, last], rs: [2, 4], setRank: 0 });
    expect(ends.get(last)).toEqual({ avg: last / 2, bcast: last * 7, gathered: [0, last, last], a2a: [100, last + 100], rs: [6, 8], setRank: 1 });
    for (let r = 1; r < last; r += 1) {
      expect(job.results.get('outsider')!.get(r)).toEqual({
        code: 'KOLO_MISMATCH',
        // Process-set requests carry an @ps<id> suffix on the wire (names are per set).
        message: `ends.avg@ps1 failed on rank ${r}: Rank ${r} is not a member of process set 1; only its members may submit 'ends.avg@ps1'.`,
      });
    }
    const evens = [0, 1];
    for (const r of evens) expect(job.results.get('evens')!.get(r)).toBe(evens.length);
    expect(perRank(job, 'everyone', size)).toEqual(Array.from({ length: size }, () => size));
    expect(perRank(job, 'removed', size)).toEqual(Array.from({ length: size }, () => ({ code: 'KOLO_MISMATCH' })));
  });
});
