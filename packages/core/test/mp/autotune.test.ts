import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { perRank, runJob } from './run-job.js';

const MiB = 1024 * 1024;
const header = 'fusion_threshold_bytes,cycle_time_ms,score_bytes_per_us,best';
// Small enough to finish quickly: (1 warm-up + 4 samples x 5 windows) x 2 cycles = 42 cycles
// that allreduce something; every step below is at least one such cycle.
const knobs = { WARMUP_SAMPLES: '1', STEPS_PER_SAMPLE: '2', BAYES_OPT_MAX_SAMPLES: '4' };
const steps = 60;

interface Tuning {
  fusionThresholdBytes: number;
  cycleTimeMs: number;
  searching: boolean;
}

function env(prefix: 'KOLO' | 'HOROVOD', log: string, extra: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = { [`${prefix}_AUTOTUNE`]: '1', [`${prefix}_AUTOTUNE_LOG`]: log, ...extra };
  for (const [k, v] of Object.entries(knobs)) out[`${prefix}_AUTOTUNE_${k}`] = v;
  return out;
}

function readLog(path: string): { header: string; samples: number[][]; best: number[][] } {
  const [first, ...lines] = readFileSync(path, 'utf8').trimEnd().split('\n');
  const rows = lines.map((l) => l.split(',').map(Number));
  return { header: first!, samples: rows.filter((r) => r[3] === 0), best: rows.filter((r) => r[3] === 1) };
}

describe('autotune (2 ranks)', () => {
  it.each([
    {
      what: 'KOLO_* names, fusion threshold held at KOLO_FUSION_THRESHOLD, cycle times searched (shared memory)',
      prefix: 'KOLO' as const,
      extra: { KOLO_FUSION_THRESHOLD: '65536' },
      tensors: [4, 8192],
      // The first candidates do not depend on scores: the start, then Horovod's initial points.
      sequence: [[65536, 1], [65536, 5], [65536, 50], [65536, 25]],
      start: { fusionThresholdBytes: 65536, cycleTimeMs: 1, searching: true },
    },
    {
      what: 'HOROVOD_* names, cycle time held at HOROVOD_CYCLE_TIME, fusion thresholds searched (Gloo, no response cache)',
      prefix: 'HOROVOD' as const,
      // Without the cache no cycle votes: the parameters travel in the coordinator's response list.
      extra: { HOROVOD_CYCLE_TIME: '1', KOLO_SHM: '0', HOROVOD_CACHE_CAPACITY: '0' },
      tensors: [6, 256 * 1024],
      sequence: [[128 * MiB, 1], [4 * MiB, 1], [32 * MiB, 1], [16 * MiB, 1]],
      start: { fusionThresholdBytes: 128 * MiB, cycleTimeMs: 1, searching: true },
    },
  ])('$what: exact sums, one log row per sample then the best, the same final tuning on every rank', async (c) => {
    const log = join(mkdtempSync(join(tmpdir(), 'kolo-autotune-')), 'autotune.csv');
    const args = [...c.tensors, steps].map(String);
    const job = await runJob(2, 'autotune.mjs', { env: env(c.prefix, log, c.extra), args });
    expect(job.code, job.stderr).toBe(0);
    expect(perRank(job, 'wrong', 2)).toEqual([0, 0]);
    expect(perRank(job, 'before', 2)).toEqual([c.start, c.start]);

    const { header: first, samples, best } = readLog(log);
    expect(first).toBe(header);
    expect(samples.map(([fusion, cycle]) => [fusion, cycle])).toEqual(c.sequence);
    for (const [, , score] of samples) expect(score).toBeGreaterThan(0);
    const top = samples.reduce((a, b) => (b[2]! > a[2]! ? b : a));
    expect(best).toEqual([[top[0], top[1], top[2], 1]]);

    const chosen: Tuning = { fusionThresholdBytes: top[0]!, cycleTimeMs: top[1]!, searching: false };
    expect(perRank(job, 'after', 2)).toEqual([chosen, chosen]);
  });
});
