import { describe, expect, it } from 'vitest';
import { checkElastic, survivorTopology } from '../src/elastic.js';
import { parseCommandLine } from '../src/options.js';
import { workerEnv } from '../src/worker-env.js';
import { placeWorkers } from '../src/plan.js';

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
