import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { perRank, runJob } from './run-job.js';

// Whether this kernel lets sibling processes read each other's memory (Yama's ptrace_scope 0,
// or no Yama): where it does, `on` must give one copy.
function siblingsMayRead(): boolean {
  try {
    return readFileSync('/proc/sys/kernel/yama/ptrace_scope', 'utf8').trim() === '0';
  } catch {
    return true;
  }
}

async function job(mode: string): Promise<{ singleCopy: boolean; wrong: number }[]> {
  const run = await runJob(2, 'single-copy.mjs', { env: { KOLO_SHM_SINGLE_COPY: mode } });
  expect(run.code, run.stdout + run.stderr).toBe(0);
  return perRank(run, 'singleCopy', 2) as { singleCopy: boolean; wrong: number }[];
}

describe('KOLO_SHM_SINGLE_COPY and singleCopy()', () => {
  it('off never reads the peers\' memory, on does where the kernel allows, auto agrees on every rank; results are right each way', { timeout: 120_000 }, async () => {
    const off = await job('off');
    const on = await job('on');
    const auto = await job('auto');
    expect(off).toEqual([{ singleCopy: false, wrong: 0 }, { singleCopy: false, wrong: 0 }]);
    expect(on.map((r) => r.wrong)).toEqual([0, 0]);
    expect(on[0]!.singleCopy).toBe(on[1]!.singleCopy);
    if (siblingsMayRead() && process.platform === 'linux') expect(on[0]!.singleCopy).toBe(true);
    expect(auto.map((r) => r.wrong)).toEqual([0, 0]);
    expect(auto[0]!.singleCopy).toBe(auto[1]!.singleCopy);
    // The trial can only turn one copy off. (Where it turns it off anyway, as on a VM whose
    // kernel copies slowly, `off` and `auto` look alike; `on` still tells the override works.)
    if (auto[0]!.singleCopy) expect(on[0]!.singleCopy).toBe(true);
  });
});
