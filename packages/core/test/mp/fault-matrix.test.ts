// Random faults under kolorun: SIGKILL or SIGSTOP of a random rank at a random step, at 2, 3 and
// 4 ranks. `npm test` runs 2 cases per world size (one of each signal); KOLO_FAULT_RUNS=20 runs
// the full matrix. Every case derives from KOLO_FAULT_SEED (printed), so a failure reproduces.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { perRank, runJob } from './run-job.js';

const seed = Number(process.env.KOLO_FAULT_SEED ?? 10);
const runs = Number(process.env.KOLO_FAULT_RUNS ?? 2);
const timeoutMs = 3000;
const causes = { SIGKILL: 'killed by signal SIGKILL', SIGSTOP: 'stopped by SIGSTOP or SIGTSTP and unresponsive' } as const;
console.log(`fault matrix: KOLO_FAULT_SEED=${seed} KOLO_FAULT_RUNS=${runs}`);

/** mulberry32: a small seeded PRNG, so every case is reproducible from the printed seed. */
function prng(state: number): () => number {
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Case {
  size: number;
  run: number;
  victim: number;
  step: number;
  signal: keyof typeof causes;
}

const random = prng(seed);
const cases: Case[] = [2, 3, 4].flatMap((size) =>
  Array.from({ length: runs }, (_, run) => ({
    size,
    run,
    victim: Math.floor(random() * size),
    step: Math.floor(random() * 40),
    signal: run % 2 === 0 ? ('SIGKILL' as const) : ('SIGSTOP' as const),
  })),
);

/** True while any process is left in the process group led by `pid` (each worker leads one). */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every /dev/shm file some live process has mapped. */
function mappedShm(): Set<string> {
  const names = new Set<string>();
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      for (const m of readFileSync(`/proc/${pid}/maps`, 'utf8').matchAll(/\/dev\/shm\/(\S+)/g)) names.add(m[1] as string);
    } catch {
      // The process exited meanwhile, or is not ours to read.
    }
  }
  return names;
}

/**
 * This job's /dev/shm files (named after kolorun's `tag`) that appeared during the job and are
 * still there a second later with no live process mapping them: leaked. Other jobs running at
 * the same time (another test's deliberately orphaned segment, say) have other tags.
 */
async function leakedShm(before: Set<string>, tag: string): Promise<string[]> {
  const fresh = (): string[] => readdirSync('/dev/shm').filter((f) => !before.has(f) && f.startsWith(`kolo-${tag}-`));
  if (fresh().length === 0) return [];
  await sleep(1000);
  const mapped = mappedShm();
  return fresh().filter((f) => !mapped.has(f));
}

describe(`fault matrix (seed ${seed})`, () => {
  for (const c of cases) it(`${c.size} ranks, run ${c.run}: ${c.signal} of rank ${c.victim} at step ${c.step}`, { timeout: 60_000 }, async () => {
    const jobTmp = mkdtempSync(join(tmpdir(), 'kolo-fault-'));
    const shmBefore = new Set(readdirSync('/dev/shm'));
    const env = {
      KOLO_TEST_VICTIM: String(c.victim),
      KOLO_TEST_STEP: String(c.step),
      KOLO_TEST_SIGNAL: c.signal,
      KOLO_TEST_TIMEOUT_MS: String(timeoutMs),
      TMPDIR: jobTmp,
    };
    const job = await runJob(c.size, 'fault-matrix.mjs', { env, timeoutMs: 50_000 });
    const endedAt = Date.now();
    const dump = `seed ${seed} case ${JSON.stringify(c)}\nstdout:\n${job.stdout}\nstderr:\n${job.stderr}`;
    const pids = perRank(job, 'pid', c.size) as number[];
    const signalAt = job.results.get('signalAt')?.get(c.victim) as number;

    expect(job.code, dump).toBe(1);
    expect(endedAt - signalAt, dump).toBeLessThan(timeoutMs + 10_000);
    const firstLauncherLine = job.stderr.split('\n').find((l) => l.startsWith('kolorun:'));
    expect(firstLauncherLine, dump).toBe(`kolorun: rank ${c.victim} (pid ${pids[c.victim]}) failed first: ${causes[c.signal]}`);
    for (let r = 0; r < c.size; r += 1) {
      if (r === c.victim) continue;
      const err = job.results.get('error')?.get(r) as Record<string, unknown>;
      expect(err, `rank ${r}\n${dump}`).toMatchObject({ name: 'CommunicationError', code: 'KOLO_COMMUNICATION', failedRank: c.victim, isKoloError: true });
      expect(err.message, dump).toContain(`Rank ${c.victim} failed first (${causes[c.signal]}).`);
      expect(err.afterMs as number, dump).toBeLessThan(timeoutMs + 10_000);
    }
    expect(pids.filter(groupAlive), dump).toEqual([]);
    const tag = job.results.get('shmTag')?.get(0) as string;
    expect(tag, dump).toMatch(/^r[0-9a-z]+$/);
    expect(await leakedShm(shmBefore, tag), dump).toEqual([]);
    // Every rank attached before the fault, so the engine unlinked the segment itself: kolorun's
    // sweep (for ranks killed before attaching) finds nothing.
    expect(job.stderr, dump).not.toContain('shared-memory segment(s) that killed workers left behind');
    expect(readdirSync(jobTmp), dump).toEqual([]);
    rmSync(jobTmp, { recursive: true, force: true });
  });
});
