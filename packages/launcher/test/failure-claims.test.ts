// Two nodes' launchers race to claim a job's first failure in node 0's store. The winner claims,
// then writes its record: the loser must wait for that record, not report its own worker as
// the first failure (a two-node CI run once printed node 0's survivor as "failed first").
import { describe, expect, it } from 'vitest';
import { blameFailure } from '../src/blame-failure.js';
import { claimFailure, JobStore } from '../src/job-store.js';
import type { JobPlan } from '../src/plan.js';
import { reportEnd } from '../src/supervise.js';
import { fakeWorker } from './fake-worker.js';

const plan: JobPlan = { workers: [], store: { role: 'host', bind: '127.0.0.1', port: 0 }, storeAddr: '127.0.0.1', secret: 's', jobId: 'j', nodes: undefined };

const worker = (rank: number) => fakeWorker(rank, 'node0');

describe('failure claims across nodes', () => {
  it("a lost claim resolves false, and the report waits for the winner's record written after it", async () => {
    const store = await JobStore.open(plan, 1000);
    try {
      const kv = store['kv'];
      const winner = { rank: 3, exitCode: null, signal: 'SIGSTOP', host: 'node1' };
      // The other node's launcher has claimed (its add landed) but not yet written its record.
      await kv.add('kolo/failure/claims', 1);
      const first = blameFailure(worker(0), { code: 1, signal: null }, new Set([worker(1)]), store);
      expect(await first.claimed).toBe(false);
      expect(await store.readFailure()).toBeUndefined();
      let text = '';
      const stderr = { write: (chunk: string) => ((text += chunk), true) } as never;
      const code = reportEnd(first, undefined, store, stderr);
      setTimeout(() => void kv.set('kolo/failure', JSON.stringify(winner)), 100);
      expect(await code).toBe(1);
      expect(text.split('\n')[0]).toBe('kolorun: rank 3 on node1 failed first: stopped by SIGSTOP or SIGTSTP and unresponsive');
      expect(text).toContain('kolorun: rank 0 (pid none) failed: exit code 1');
    } finally {
      await store.finish(0);
    }
  });

  it('a claim that wins resolves true and its record is readable at once; a wait for a record that never comes ends empty', async () => {
    const store = await JobStore.open(plan, 1000);
    try {
      expect(await store.readFailure(50)).toBeUndefined();
      const first = blameFailure(worker(1), { code: 2, signal: null }, new Set(), store);
      expect(await first.claimed).toBe(true);
      expect(await store.readFailure()).toEqual({ rank: 1, exitCode: 2, signal: null, host: 'node0' });
      expect(await claimFailure(store['kv'], { rank: 0, exitCode: 1, signal: null, host: 'node0' })).toBe(false);
    } finally {
      await store.finish(0);
    }
  });
});
