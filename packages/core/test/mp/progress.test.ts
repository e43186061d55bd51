import { describe, expect, it } from 'vitest';
import { perRank, runJob } from './run-job.js';

describe('negotiation by name', () => {
  it('completes 1,000 rounds of 100 allreduces submitted in a different random order per rank', { timeout: 600_000 }, async () => {
    const job = await runJob(2, 'stress.mjs', { timeoutMs: 580_000 });
    expect(job.code, job.stderr).toBe(0);
    const [a, b] = perRank(job, 'stress', 2) as { done: number; wrong: number }[];
    expect(a).toMatchObject({ done: 100_000, wrong: 0 });
    expect(b).toMatchObject({ done: 100_000, wrong: 0 });
  });
});

describe('response cache', () => {
  it('stays exact while names change shape every step under a 4-entry cache (evicted indices reused)', { timeout: 120_000 }, async () => {
    const job = await runJob(2, 'cache-churn.mjs', { env: { HOROVOD_CACHE_CAPACITY: '4' } });
    expect(job.code, job.stderr).toBe(0);
    // sum over step < 30, i < 10 of (1 + (step + i) % 3) * ((i + step) + (1 + i + step))
    expect(perRank(job, 'churn', 2)).toEqual([23440, 23440]);
  });
});

describe('late peers', () => {
  it('stay exact when callers keep handing begun cycles to the background thread (3 ranks)', { timeout: 180_000 }, async () => {
    // A 20 µs spin: most steps' callers give up on their late peers.
    const job = await runJob(3, 'late-peers.mjs', { timeoutMs: 170_000, env: { KOLO_CALLER_SPIN_US: '20' } });
    expect(job.code, job.stderr).toBe(0);
    expect(perRank(job, 'late', 3)).toEqual([0, 1, 2].map(() => ({ done: 600, wrong: 0 })));
  });
});

describe('sync collectives', () => {
  it('complete inside a synchronous function that never yields to the event loop', { timeout: 120_000 }, async () => {
    const job = await runJob(2, 'sync.mjs');
    expect(job.code, job.stderr).toBe(0);
    // step s sums (0 + s) + (1 + s)
    const seen = Array.from({ length: 10 }, (_, s) => 2 * s + 1);
    expect(perRank(job, 'sync', 2)).toEqual([0, 1].map(() => ({ seen, gathered: [0, 1] })));
    // step s sums (0 * 100 + s) + (1 * 100 + s); async i sums (10 + i) + (20 + i)
    const mixed = { syncSums: [100, 102, 104, 106, 108], asyncSums: [30, 32, 34] };
    expect(perRank(job, 'mixed', 2)).toEqual([mixed, mixed]);
  });
});

describe('repeated turns', () => {
  it('come back exact when queued again from kept batches, and a detached array in one is refused', { timeout: 120_000 }, async () => {
    const job = await runJob(2, 'repeated-turns.mjs');
    expect(job.code, job.stderr).toBe(0);
    // Per rank: the gradients' turn repeated at steps 3–24 and 29–39 (a turn is remembered once
    // its plans are made again, at step 1, and kept at step 2; step 25 is read again for the
    // detached array; its new one is made at 26, made again at 27, kept at 28), the metric's
    // at 3–39, and so the broadcast's and the two allgathers'; the blocking call (made at 0,
    // made again and kept at 1) at 2–39.
    const refused = "Expected input of 92 bytes for 'grad.7' (shape [23]) but received 0";
    const result = { wrong: [], refused, repeats: 33 + 37 + 3 * 37, syncRepeats: 38 };
    expect(perRank(job, 'repeated', 2)).toEqual([result, result]);
  });
});
