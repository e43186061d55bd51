import { describe, expect, it } from 'vitest';
import { ElasticMembership } from '../src/elastic-membership.js';
import { stoppedKillMsOf } from '../src/elastic.js';
import { discoverHosts, parseDiscoveredHosts } from '../src/host-discovery.js';
import type { JobStore } from '../src/job-store.js';
import { parseCommandLine } from '../src/options.js';
import type { WorkerPlacement } from '../src/plan.js';
import type { RunningWorker } from '../src/spawn-workers.js';

describe('kolorun --host-discovery-script', () => {
  it('makes the job elastic (bounds default to -np) and keeps the script as one string', () => {
    expect(parseCommandLine(['-np', '2', '--host-discovery-script', './hosts.sh --all', 'node', 'x.js']).elastic).toEqual({ minNp: 2, maxNp: 2, hostDiscoveryScript: './hosts.sh --all' });
    expect(parseCommandLine(['-np', '2', '--min-np', '1', '--max-np', '4', '--host-discovery-script', 'cat h', 'node', 'x.js']).elastic).toEqual({ minNp: 1, maxNp: 4, hostDiscoveryScript: 'cat h' });
  });

  it("parses horovodrun's host:slots lines (a bare host has one slot; repeats add up)", () => {
    expect([...parseDiscoveredHosts('node1:4\n\n  node2  \nnode1:2\n')]).toEqual([['node1', 6], ['node2', 1]]);
    expect(parseDiscoveredHosts('').size).toBe(0);
  });

  it('names a line it cannot read', () => {
    expect(() => parseDiscoveredHosts('node1:4\nnode2:four\n')).toThrow(
      'Expected "host" or "host:slots" on every line of the host discovery script\'s output but received "node2:four"',
    );
  });

  it('runs the script through sh and reports one that fails', async () => {
    expect([...(await discoverHosts("printf 'a:2\\nb\\n'", 10_000))]).toEqual([['a', 2], ['b', 1]]);
    await expect(discoverHosts('echo gone >&2; exit 3', 10_000)).rejects.toThrow(
      'Expected the host discovery script "echo gone >&2; exit 3" to print hosts but it failed (3): gone',
    );
  });
});

describe('ElasticMembership.grow', () => {
  const worker = (rank: number, host: string): RunningWorker => ({
    rank,
    host,
    pid: 1000 + rank,
    exited: new Promise(() => {}),
    drained: Promise.resolve(),
    stderrTail: () => [],
    signalGroup: () => true,
  });
  const fakeStore = (ready: boolean, published: unknown[]): JobStore =>
    ({
      generationReady: async () => ready,
      publishGeneration: async (g: number, assignments: Map<string, unknown>) => void published.push([g, Object.fromEntries(assignments)]),
    }) as unknown as JobStore;
  const placements = [{ host: 'localhost', remote: false, bindAddress: '127.0.0.1' }] as WorkerPlacement[];
  const quiet = { write: () => true } as never;

  it('starts workers for free slots up to --max-np, with new worker ids and the new generation', async () => {
    const published: unknown[] = [];
    const started: [WorkerPlacement, Record<string, string>][] = [];
    const initial = [worker(0, 'localhost'), worker(1, 'localhost')];
    const spawn = (p: WorkerPlacement, env: Record<string, string>): RunningWorker => (started.push([p, env]), worker(p.rank, p.host));
    const membership = new ElasticMembership(initial, { minNp: 1, maxNp: 3, placements, spawn }, fakeStore(true, published), quiet, () => {});
    const added = await membership.grow(new Map([['localhost', 8]]), new Set(initial));
    expect(added.map((w) => w.rank)).toEqual([2]);
    expect(started).toEqual([
      [
        { rank: 2, size: 3, localRank: 2, localSize: 3, crossRank: 0, crossSize: 1, host: 'localhost', remote: false, bindAddress: '127.0.0.1' },
        { KOLO_WORKER_ID: '2', KOLO_ELASTIC_GENERATION: '1' },
      ],
    ]);
    expect(published).toEqual([[1, { 0: expect.objectContaining({ rank: 0, size: 3 }), 1: expect.objectContaining({ rank: 1, size: 3 }), 2: expect.objectContaining({ rank: 2, size: 3 }) }]]);
  });

  it('adds nobody until the current generation is joined, or once a worker finished', async () => {
    const initial = [worker(0, 'localhost')];
    const spawn = (): RunningWorker => worker(9, 'localhost');
    const notReady = new ElasticMembership(initial, { minNp: 1, maxNp: 4, placements, spawn }, fakeStore(false, []), quiet, () => {});
    expect(await notReady.grow(new Map([['localhost', 4]]), new Set(initial))).toEqual([]);
    const finishing = new ElasticMembership(initial, { minNp: 1, maxNp: 4, placements, spawn }, fakeStore(true, []), quiet, () => {});
    expect(finishing.onExit(worker(5, 'localhost'), { code: 0, signal: null }, new Set(initial), false)).toBe(false);
    expect(await finishing.grow(new Map([['localhost', 4]]), new Set(initial))).toEqual([]);
  });

  it('stops the newest workers on hosts listed with fewer slots, never below --min-np', () => {
    const signals: [number, string][] = [];
    const w = (rank: number, host: string): RunningWorker => ({ ...worker(rank, host), signalGroup: (signal) => (signals.push([rank, String(signal)]), true) });
    const initial = [w(0, 'a'), w(1, 'a'), w(2, 'b'), w(3, 'b')];
    const membership = new ElasticMembership(initial, { minNp: 2, maxNp: 4, placements }, fakeStore(true, []), quiet, () => {});
    expect(membership.shrink(new Map([['a', 1], ['b', 2]]), new Set(initial)).map((x) => x.rank)).toEqual([1]);
    expect(membership.shrink(new Map([['a', 1]]), new Set(initial)).map((x) => x.rank)).toEqual([3]);
    expect(signals).toEqual([[1, 'SIGTERM'], [3, 'SIGTERM']]);
  });

  it('lets a stopped worker stay stopped for the engine timeout the workers get', () => {
    expect([stoppedKillMsOf({ KOLO_TIMEOUT_SECONDS: '5' }), stoppedKillMsOf({ HOROVOD_GLOO_TIMEOUT_SECONDS: '0.5' }), stoppedKillMsOf({}), stoppedKillMsOf({ KOLO_TIMEOUT_SECONDS: 'x' })]).toEqual([5000, 500, 30_000, 30_000]);
  });
});
