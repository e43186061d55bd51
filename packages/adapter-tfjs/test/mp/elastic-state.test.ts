import { describe, expect, it } from 'vitest';
import { runJob } from './run-job.js';

describe('TfjsState under elastic.run', () => {
  it('3 workers, one SIGKILLed at step 5: the other 2 restore the commit and finish with identical weights', { timeout: 120_000 }, async () => {
    const job = await runJob(3, 'elastic-state.mjs', { launcherArgs: ['--min-np', '2', '--max-np', '3'], timeoutMs: 100_000 });
    const dump = `stdout:\n${job.stdout}\nstderr:\n${job.stderr}`;
    expect(job.code, dump).toBe(0);
    const starts = [0, 1].map((id) => job.results.get('start.2')?.get(id) as { step: number; size: number; weights: string });
    expect(starts.map(({ step, size }) => ({ step, size })), dump).toEqual([{ step: 5, size: 2 }, { step: 5, size: 2 }]);
    // Both survivors resume from the weights committed after step 5 on every rank.
    expect(starts[0]?.weights).toBe(starts[1]?.weights);
    const finals = [0, 1].map((id) => job.results.get('final')?.get(id) as Record<string, unknown>);
    expect(finals[0], dump).toMatchObject({ step: 12, size: 2, attempts: 2 });
    expect(finals[1]).toEqual(finals[0]);
    expect(job.results.get('final')?.has(2)).toBe(false);
  });
});
