import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { perRank, runJob } from './run-job.js';

interface TraceEvent {
  name?: string;
  ph: string;
  pid: number;
  ts?: number;
  args?: { name?: string; dtype?: string; shape?: string };
}

describe('timeline', () => {
  it('writes valid Chrome-trace JSON with negotiation, fusion and transport phases per named tensor', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'kolo-timeline-')), 'timeline.json');
    const job = await runJob(2, 'timeline.mjs', { env: { KOLO_TIMELINE: path } });
    expect(job.code, job.stderr).toBe(0);
    const events = JSON.parse(readFileSync(path, 'utf8')) as TraceEvent[];
    const rows = new Map(events.filter((e) => e.name === 'process_name' && e.pid > 0).map((e) => [e.args!.name!, e.pid]));
    expect([...rows.keys()].sort()).toEqual(['grad.b1', 'grad.w1', 'grad.w2', 'step']);
    for (const tensor of ['grad.w1', 'grad.b1', 'grad.w2']) {
      const mine = events.filter((e) => e.pid === rows.get(tensor));
      const names = mine.filter((e) => e.ph === 'B').map((e) => e.name);
      expect(names).toContain('NEGOTIATE_ALLREDUCE');
      expect(names).toContain('ALLREDUCE');
      expect(names).toContain('GLOO_ALLREDUCE');
      // One tick per rank during negotiation.
      expect(mine.filter((e) => e.ph === 'X').map((e) => e.name).sort()).toEqual(['0', '1']);
      expect(mine.filter((e) => e.ph === 'B').length).toBe(mine.filter((e) => e.ph === 'E').length);
      expect(mine.find((e) => e.ph === 'E' && e.args?.dtype)?.args).toEqual({ dtype: 'float32', shape: '[256]' });
    }
    const step = events.filter((e) => e.pid === rows.get('step') && e.ph === 'B').map((e) => e.name);
    expect(step).toEqual(['NEGOTIATE_BROADCAST', 'BROADCAST', 'GLOO_BCAST']);
  });
});

describe('stall inspector', () => {
  it('warns with the missing rank and tensor, then ends the job naming the stalled rank', async () => {
    const job = await runJob(2, 'stall.mjs', {
      env: { KOLO_STALL_CHECK_TIME_SECONDS: '1', KOLO_STALL_SHUTDOWN_TIME_SECONDS: '2', KOLO_TEST_SLEEP_MS: '4000', KOLO_TEST_SKIP: '1' },
    });
    expect(job.stderr).toContain(
      '[0]<stderr>: Kolo WARNING: One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for remainder of ranks for more than 1 seconds.',
    );
    expect(job.stderr).toContain('[0]<stderr>: 1: [skipped]');
    expect(job.stderr).toContain('[0]<stderr>: 1!: [skipped]');
    for (const err of perRank(job, 'error', 2) as { code: string; message: string; afterMs: number }[]) {
      expect(err.code).toBe('KOLO_TIMEOUT');
      expect(err.message).toContain('Kolo stopped the job because rank(s) 1 stalled');
    }
    const rank0 = perRank(job, 'error', 2)[0] as { afterMs: number };
    expect(rank0.afterMs).toBeGreaterThanOrEqual(2000);
    expect(rank0.afterMs).toBeLessThan(10_000);
  });

  it('stays quiet when every rank submits in time', async () => {
    const job = await runJob(2, 'stall.mjs', { env: { KOLO_STALL_CHECK_TIME_SECONDS: '3', KOLO_TEST_SLEEP_MS: '1000' } });
    expect(job.stderr).not.toContain('Kolo WARNING');
    expect(perRank(job, 'error', 2)).toEqual([null, null]);
  });
});
