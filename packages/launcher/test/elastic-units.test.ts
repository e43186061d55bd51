import { describe, expect, it } from 'vitest';
import { checkElastic, survivorTopology } from '../src/elastic.js';
import { ElasticMembership } from '../src/elastic-membership.js';
import { JobStore } from '../src/job-store.js';
import { parseCommandLine } from '../src/options.js';
import { workerEnv } from '../src/worker-env.js';
import { placeWorkers, type JobPlan } from '../src/plan.js';
import type { RunningWorker } from '../src/spawn-workers.js';
import { fakeWorker } from './fake-worker.js';

describe('kolorun --min-np/--max-np', () => {
  it('parses the bounds, defaulting the missing one to -np, and passes the command through', () => {
    expect(parseCommandLine(['-np', '4', '--min-np', '2', '--max-np', '6', 'node', 'x.js']).elastic).toEqual({ minNp: 2, maxNp: 6 });
    expect(parseCommandLine(['-np', '4', '--min-np', '2', 'node', 'x.js', '--min-np', '9']).elastic).toEqual({ minNp: 2, maxNp: 4 });
    expect(parseCommandLine(['-np', '4', 'node', 'x.js']).elastic).toBeUndefined();
  });

  it('refuses bounds that do not contain -np, with the exact message', () => {
    expect(() => parseCommandLine(['-np', '2', '--min-np', '3', 'node', 'x.js'])).toThrow('Expected an integer from 1 to -np (2) for --min-np but received 3');
    expect(() => parseCommandLine(['-np', '4', '--max-np', '3', 'node', 'x.js'])).toThrow('Expected an integer of at least -np (4) for --max-np but received 3');
    expect(() => checkElastic({ minNp: 0, maxNp: 2 }, 2)).toThrow('Expected an integer from 1 to -np (2) for --min-np but received 0');
  });

  it('gives elastic workers KOLO_ELASTIC=1 and their first rank as KOLO_WORKER_ID', () => {
    const [, second] = placeWorkers([{ host: 'localhost', slots: 2 }], 2);
    const job = { storeAddr: '127.0.0.1', storePort: 1, secret: 's', jobId: 'j' };
    expect(workerEnv(second!, { ...job, elastic: true })).toMatchObject({ KOLO_ELASTIC: '1', KOLO_WORKER_ID: '1' });
    expect(workerEnv(second!, job).KOLO_ELASTIC).toBeUndefined();
  });

  it('renumbers survivors 0..n-1 in old rank order and regroups them by host', () => {
    const topology = survivorTopology([
      { rank: 4, host: 'b' },
      { rank: 0, host: 'a' },
      { rank: 3, host: 'b' },
    ]);
    expect(Object.fromEntries(topology)).toEqual({
      '0': { rank: 0, size: 3, localRank: 0, localSize: 1, crossRank: 0, crossSize: 2 },
      '3': { rank: 1, size: 3, localRank: 0, localSize: 2, crossRank: 1, crossSize: 2 },
      '4': { rank: 2, size: 3, localRank: 1, localSize: 2, crossRank: 1, crossSize: 2 },
    });
  });
});

describe('failure keys of elastic generations', () => {
  const worker = (rank: number) => fakeWorker(rank);
  const plan: JobPlan = { workers: [], store: { role: 'host', bind: '127.0.0.1', port: 0 }, storeAddr: '127.0.0.1', secret: 's', jobId: 'j', nodes: undefined };

  it('names each failure under the generation it happened in, by its rank there', async () => {
    const store = await JobStore.open(plan, 1000);
    const read = async (key: string): Promise<string | undefined> =>
      (await store['kv'].get(key, { timeoutMs: 0 }).catch(() => undefined))?.toString('utf8');
    try {
      const workers = [0, 1, 2, 3].map(worker);
      const membership = new ElasticMembership(workers, { minNp: 2, maxNp: 4, placements: [] }, store, { write: () => true } as never, () => {});
      const killed = { code: null, signal: 'SIGKILL' as const };
      expect(membership.onExit(workers[3] as RunningWorker, killed, new Set(workers.slice(0, 3)), false)).toBe(true);
      // Worker 2 becomes rank 1 of generation 2 once worker 1 (rank 1 of generation 1) fails.
      expect(membership.onExit(workers[1] as RunningWorker, killed, new Set([workers[0], workers[2]] as RunningWorker[]), false)).toBe(true);
      await membership.settled();
      clearTimeout(membership.onStopped(workers[2] as RunningWorker));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await Promise.all(['kolo/', 'kolo/elastic/gen1/', 'kolo/elastic/gen2/'].flatMap((p) => [read(`${p}failure_rank`), read(`${p}failure_reason`)]))).toEqual([
        '3', 'killed by signal SIGKILL',
        '1', 'killed by signal SIGKILL',
        '1', 'stopped by SIGSTOP or SIGTSTP and unresponsive',
      ]);
    } finally {
      await store.finish(0);
    }
  });
});
