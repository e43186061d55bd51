import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { perRank, runJob } from './run-job.js';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('a worker killed mid-loop', () => {
  it('rejects every survivor\'s pending op naming the dead rank, and kolorun reports it first', { timeout: 120_000 }, async () => {
    const timeoutSeconds = 10;
    const job = await runJob(3, 'fault.mjs', { env: { KOLO_TEST_VICTIM: '2', KOLO_TIMEOUT_SECONDS: String(timeoutSeconds) } });
    expect(job.code).not.toBe(0);
    for (const survivor of [0, 1]) {
      const err = job.results.get('error')?.get(survivor) as Record<string, unknown>;
      expect(err, job.stdout + job.stderr).toBeDefined();
      expect(err.code).toBe('KOLO_COMMUNICATION');
      expect(err.name).toBe('CommunicationError');
      expect(err.failedRank).toBe(2);
      expect(err.isKoloError).toBe(true);
      expect(err.message).toMatch(/Rank 2 failed first \(killed by signal SIGKILL\)/);
      expect(err.afterMs as number).toBeLessThan((timeoutSeconds + 10) * 1000);
      // Later requests keep naming the root cause instead of a generic shut-down error.
      expect(job.results.get('later')?.get(survivor)).toEqual({ code: 'KOLO_COMMUNICATION', failedRank: 2 });
    }
    const firstLauncherLine = job.stderr.split('\n').find((l) => l.startsWith('kolorun:'));
    expect(firstLauncherLine).toMatch(/^kolorun: rank 2 \(pid \d+\) failed first: killed by signal SIGKILL$/);
    for (const pid of perRank(job, 'pid', 3) as number[]) expect(alive(pid)).toBe(false);
  });
});

describe('a rank killed before every rank attached to the shared-memory segment', () => {
  it('leaves no segment behind: kolorun sweeps its workers\' tagged segments and says so', { timeout: 120_000 }, async () => {
    const job = await runJob(2, 'shm-orphan.mjs');
    expect(job.code).toBe(1);
    const { tag, count } = job.results.get('segments')?.get(0) as { tag: string; count: number };
    expect(tag).toMatch(/^r[0-9a-z]+[0-9a-f]{6}$/);
    expect(count).toBe(1);
    expect(readdirSync('/dev/shm').filter((n) => n.startsWith(`kolo-${tag}-`))).toEqual([]);
    expect(job.stderr).toMatch(new RegExp(`kolorun: removed 1 shared-memory segment\\(s\\) that killed workers left behind: /dev/shm/kolo-${tag}-`));
  });
});
