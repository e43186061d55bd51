// Horovod's elastic driver limits under kolorun: a host where a worker failed gets no new workers
// while another host has free slots (two "hosts" that are both this machine: localhost and
// 127.0.0.1), and --reset-limit 0 ends the job at its first failure.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runJob } from './run-job.js';

/** Run lengths of `sums`: [[2, 10], [1, 3], …]. */
const runs = (sums: number[]): [number, number][] =>
  sums.reduce<[number, number][]>((out, n) => {
    const last = out.at(-1);
    if (last?.[0] === n) last[1] += 1;
    else out.push([n, 1]);
    return out;
  }, []);

describe('elastic host blacklisting and --reset-limit', () => {
  it('replaces a worker that failed on 127.0.0.1 on localhost, though discovery lists 127.0.0.1 first', { timeout: 60_000 }, async () => {
    const hostsFile = join(mkdtempSync(join(tmpdir(), 'kolo-blacklist-')), 'hosts');
    writeFileSync(hostsFile, '127.0.0.1:2\nlocalhost:2\n');
    const job = await runJob(2, 'elastic-grow.mjs', {
      launcherArgs: ['-H', 'localhost:1,127.0.0.1:1', '--min-np', '1', '--max-np', '2', '--host-discovery-script', `cat ${hostsFile}`],
      env: { KOLO_TEST_VICTIM: '1', KOLO_TEST_VICTIM_STEP: '10', KOLO_TEST_FINAL_SIZE: '2', KOLO_TEST_STEPS: '20' },
      timeoutMs: 55_000,
    });
    const dump = `stdout:\n${job.stdout}\nstderr:\n${job.stderr}`;
    expect(job.code, dump).toBe(0);
    const kolorunLines = job.stderr.split('\n').filter((l) => l.startsWith('kolorun:'));
    expect(kolorunLines.map((l) => l.replace(/pid \d+/g, 'pid N')), dump).toEqual([
      'kolorun: rank 1 (pid N) failed: killed by signal SIGKILL; continuing with 1 worker(s) as elastic generation 1',
      'kolorun: blacklisting host 127.0.0.1 for the rest of the job after rank 1 (pid N) failed there; no new workers will be placed on it',
      'kolorun: host discovery added 1 worker(s) on localhost; continuing with 2 worker(s) as elastic generation 2',
    ]);
    const final = job.results.get('final')?.get(0) as { sums: number[]; size: number; generation: number };
    expect(job.results.get('final')?.get(2), dump).toMatchObject({ sums: final.sums, size: 2, generation: 2 });
    expect(runs(final.sums).map(([size]) => size)).toEqual([2, 1, 2]);
    expect(runs(final.sums)[0]).toEqual([2, 10]);
    expect(job.results.get('final')?.has(1)).toBe(false);
  });

  it('--reset-limit 0 ends the job at the first failure, naming the limit and the failed rank', { timeout: 60_000 }, async () => {
    const job = await runJob(2, 'elastic-grow.mjs', {
      launcherArgs: ['--min-np', '1', '--max-np', '2', '--reset-limit', '0', '--grace-period', '1'],
      env: { KOLO_TEST_VICTIM: '1', KOLO_TEST_VICTIM_STEP: '5', KOLO_TEST_FINAL_SIZE: '1', KOLO_TEST_STEPS: '20' },
      timeoutMs: 55_000,
    });
    const dump = `stdout:\n${job.stdout}\nstderr:\n${job.stderr}`;
    expect(job.code, dump).toBe(1);
    const kolorunLines = job.stderr.split('\n').filter((l) => l.startsWith('kolorun:')).map((l) => l.replace(/pid \d+/g, 'pid N'));
    expect(kolorunLines.slice(0, 3), dump).toEqual([
      'kolorun: not blacklisting host localhost after rank 1 (pid N) failed there: it is the only host the job has had',
      'kolorun: Job has been reset 0 times, exceeding the limit (--reset-limit 0), so it stops instead of re-forming after rank 1 (pid N) failed: killed by signal SIGKILL; raise --reset-limit, or leave it out for no limit',
      'kolorun: rank 1 (pid N) failed first: killed by signal SIGKILL',
    ]);
    expect(job.stderr).not.toMatch(/elastic generation/);
    expect(job.results.get('final')?.size ?? 0, dump).toBe(0);
  });
});
