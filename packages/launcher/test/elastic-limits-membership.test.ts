import { describe, expect, it } from 'vitest';
import { ElasticMembership, type ElasticSupervision } from '../src/elastic-membership.js';
import type { JobStore } from '../src/job-store.js';
import type { WorkerPlacement } from '../src/plan.js';
import type { RunningWorker } from '../src/spawn-workers.js';

const worker = (rank: number, host: string, signals: string[] = []): RunningWorker => ({
  rank,
  host,
  pid: 1000 + rank,
  exited: new Promise(() => {}),
  drained: Promise.resolve(),
  stderrTail: () => [],
  signalGroup: (signal) => (signals.push(`${rank} ${String(signal)}`), true),
});
const store = { generationReady: async () => true, publishGeneration: async () => {} } as unknown as JobStore;
const placements = [{ host: 'a', remote: false, bindAddress: '127.0.0.1' }, { host: 'b', remote: false, bindAddress: '127.0.0.1' }] as WorkerPlacement[];
const failed = { code: 3, signal: null };

/** A membership over `initial` whose stderr lines, spawned hosts and stop calls the test reads. */
function membershipOf(initial: RunningWorker[], options: Partial<ElasticSupervision>) {
  const lines: string[] = [];
  const spawned: string[] = [];
  let stops = 0;
  const stderr = { write: (text: string) => (lines.push(...text.trimEnd().split('\n')), true) } as never;
  const spawn = (p: WorkerPlacement): RunningWorker => (spawned.push(p.host), worker(p.rank + 10, p.host));
  const membership = new ElasticMembership(initial, { minNp: 1, maxNp: 2, placements, spawn, ...options }, store, stderr, () => {}, () => void (stops += 1));
  return { membership, lines, spawned, stops: () => stops };
}

describe('elastic membership with host blacklisting and --reset-limit', () => {
  it('places the replacement on a host with free slots, never on the host where a worker failed', async () => {
    const [w0, w1] = [worker(0, 'a'), worker(1, 'b')];
    const { membership, lines, spawned } = membershipOf([w0, w1], {});
    const hosts = new Map([['b', 2], ['a', 2]]);
    membership.onDiscovered(hosts);
    expect(membership.onExit(w1, failed, new Set([w0]), false)).toBe(true);
    expect(await membership.grow(hosts, new Set([w0]))).toHaveLength(1);
    expect(spawned).toEqual(['a']);
    expect(lines).toEqual([
      'kolorun: rank 1 (pid 1001) failed: exit code 3; continuing with 1 worker(s) as elastic generation 1',
      'kolorun: blacklisting host b for the rest of the job after rank 1 (pid 1001) failed there; no new workers will be placed on it',
      'kolorun: host discovery added 1 worker(s) on a; continuing with 2 worker(s) as elastic generation 2',
    ]);
  });

  it('lets a host back after its cooldown, on the next host discovery result', async () => {
    let now = 0;
    const clock = { now: () => now, random: () => 0 };
    const [w0, w1] = [worker(0, 'a'), worker(1, 'b')];
    const { membership, lines, spawned } = membershipOf([w0, w1], { maxNp: 3, blacklistCooldownRangeMs: [1000, 5000], blacklistClock: clock });
    const hosts = new Map([['a', 1], ['b', 2]]);
    membership.onDiscovered(hosts);
    membership.onExit(w1, failed, new Set([w0]), false);
    expect(await membership.grow(hosts, new Set([w0]))).toEqual([]);
    now = 2000;
    membership.onDiscovered(hosts);
    expect((await membership.grow(hosts, new Set([w0]))).map((w) => w.host)).toEqual(['b', 'b']);
    expect(spawned).toEqual(['b', 'b']);
    expect(lines.slice(1, 3)).toEqual([
      'kolorun: blacklisting host b for 2 s (time 1 for this host) after rank 1 (pid 1001) failed there; no new workers will be placed on it',
      'kolorun: host b is off the blacklist after its 2 s cooldown; new workers may be placed on it again',
    ]);
  });

  it('hands the failure back to supervise (job fails) once every host is blacklisted', () => {
    const [w0, w1, w2] = [worker(0, 'a'), worker(1, 'a'), worker(2, 'b')];
    const { membership, lines } = membershipOf([w0, w1, w2], { maxNp: 3 });
    expect(membership.onExit(w2, failed, new Set([w0, w1]), false)).toBe(true);
    expect(membership.onExit(w1, failed, new Set([w0]), false)).toBe(false);
    expect(lines.slice(2)).toEqual([
      'kolorun: blacklisting host a for the rest of the job after rank 1 (pid 1001) failed there; no new workers will be placed on it',
      'kolorun: every host of the job is blacklisted (b, a); stopping the job',
    ]);
  });

  it('--reset-limit 1: the first failure re-forms the job, the second fails it', () => {
    const [w0, w1, w2] = [worker(0, 'localhost'), worker(1, 'localhost'), worker(2, 'localhost')];
    const { membership, lines } = membershipOf([w0, w1, w2], { maxNp: 3, resetLimit: 1 });
    expect(membership.onExit(w2, failed, new Set([w0, w1]), false)).toBe(true);
    expect(membership.onExit(w1, { code: null, signal: 'SIGKILL' }, new Set([w0]), false)).toBe(false);
    expect(lines).toEqual([
      'kolorun: rank 2 (pid 1002) failed: exit code 3; continuing with 2 worker(s) as elastic generation 1',
      'kolorun: not blacklisting host localhost after rank 2 (pid 1002) failed there: it is the only host the job has had',
      'kolorun: not blacklisting host localhost after rank 1 (pid 1001) failed there: it is the only host the job has had',
      'kolorun: Job has been reset 1 times, exceeding the limit (--reset-limit 1), so it stops instead of re-forming after rank 1 (pid 1001) failed: killed by signal SIGKILL; raise --reset-limit, or leave it out for no limit',
    ]);
  });

  it('--reset-limit stops a healthy job rather than grow or shrink it past the limit', async () => {
    const signals: string[] = [];
    const [w0, w1] = [worker(0, 'a', signals), worker(1, 'a', signals)];
    const grower = membershipOf([w0], { resetLimit: 0 });
    expect(await grower.membership.grow(new Map([['a', 2]]), new Set([w0]))).toEqual([]);
    expect([grower.spawned, grower.stops(), grower.lines]).toEqual([[], 1, [
      'kolorun: Job has been reset 0 times, exceeding the limit (--reset-limit 0), so it stops instead of re-forming to add 1 worker(s) on a; raise --reset-limit, or leave it out for no limit',
    ]]);
    const shrinker = membershipOf([w0, w1], { resetLimit: 0 });
    expect(shrinker.membership.shrink(new Map([['a', 1]]), new Set([w0, w1]))).toEqual([]);
    expect([signals, shrinker.stops(), shrinker.lines]).toEqual([[], 1, [
      'kolorun: Job has been reset 0 times, exceeding the limit (--reset-limit 0), so it stops instead of re-forming to remove rank(s) 1; raise --reset-limit, or leave it out for no limit',
    ]]);
  });
});
