import { describe, expect, it } from 'vitest';
import { runJob } from './run-job.js';

describe('elastic.run under kolorun --min-np', () => {
  it('keeps 3 of 4 workers training after one is SIGKILLed at step 5, from the last commit', { timeout: 60_000 }, async () => {
    const job = await runJob(4, 'elastic.mjs', { launcherArgs: ['--min-np', '2', '--max-np', '4'], timeoutMs: 55_000 });
    const dump = `stdout:\n${job.stdout}\nstderr:\n${job.stderr}`;
    expect(job.code, dump).toBe(0);
    expect(job.elapsedMs).toBeLessThan(60_000);
    expect(job.stderr).toMatch(/kolorun: rank 3 \(pid \d+\) failed: killed by signal SIGKILL; continuing with 3 worker\(s\) as elastic generation 1/);
    const expectedSums = [...Array(5).fill(4), ...Array(15).fill(3)];
    for (const id of [0, 1, 2]) {
      expect(job.results.get('env')?.get(id), dump).toEqual({ elastic: '1', workerId: String(id) });
      expect(job.results.get('start.1')?.get(id)).toEqual({ step: 0, rank: id, size: 4, generation: 0 });
      // Step 5 never completed anywhere, so every survivor resumes at the last commit: step 5.
      expect(job.results.get('start.2')?.get(id)).toEqual({ step: 5, rank: id, size: 3, generation: 1 });
      expect(job.results.get('final')?.get(id), dump).toEqual({
        step: 20,
        total: 5 * 4 + 15 * 3,
        sums: expectedSums,
        rank: id,
        size: 3,
        attempts: 2,
      });
    }
    expect(job.results.get('final')?.has(3)).toBe(false);
  });

  it('names the second failure by its rank in the generation that failed, not the first failure\'s rank', { timeout: 60_000 }, async () => {
    const job = await runJob(4, 'elastic.mjs', {
      launcherArgs: ['--min-np', '2', '--max-np', '4'],
      env: { KOLO_TEST_VICTIM2: '1', KOLO_TEST_VICTIM2_STEP: '10' },
      timeoutMs: 55_000,
    });
    const dump = `stdout:\n${job.stdout}\nstderr:\n${job.stderr}`;
    expect(job.code, dump).toBe(0);
    // Generation 1 is workers 0, 1, 2 as ranks 0, 1, 2; worker 1's death leaves workers 0 and 2.
    expect(job.stderr).toMatch(/kolorun: rank 1 \(pid \d+\) failed: killed by signal SIGKILL; continuing with 2 worker\(s\) as elastic generation 2/);
    for (const id of [0, 2]) {
      expect(job.results.get('failure.1')?.get(id), dump).toBe('Rank 3 failed first (killed by signal SIGKILL)');
      expect(job.results.get('failure.2')?.get(id), dump).toBe('Rank 1 failed first (killed by signal SIGKILL)');
      expect(job.results.get('final')?.get(id), dump).toMatchObject({ step: 20, total: 5 * 4 + 5 * 3 + 10 * 2, size: 2, attempts: 3 });
    }
  });

  it('fails the job as before when fewer than --min-np workers would be left', { timeout: 60_000 }, async () => {
    const job = await runJob(4, 'elastic.mjs', { launcherArgs: ['--min-np', '4', '--grace-period', '1'], timeoutMs: 55_000 });
    expect(job.code).toBe(1);
    expect(job.stderr.split('\n').find((l) => l.startsWith('kolorun:'))).toMatch(/^kolorun: rank 3 \(pid \d+\) failed first: killed by signal SIGKILL$/);
    expect(job.stderr).not.toMatch(/elastic generation/);
  });
});
