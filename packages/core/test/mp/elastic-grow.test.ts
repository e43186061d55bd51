// Elastic membership under kolorun --min-np/--max-np: a SIGKILLed worker at step 30 of 4, then
// (with --host-discovery-script) a worker added back, a job that grows from 3 to 4, and one that
// shrinks from 4 to 3 when the script lists a slot fewer.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type JobResult, runJob } from './run-job.js';

interface Final {
  step: number;
  sums: number[];
  weights: number[];
  size: number;
  generation: number;
}

/** Runs elastic-grow.mjs with a discovery script that prints `hosts` (a file the worker may rewrite). */
function runGrow(np: number, hosts: string | undefined, env: Record<string, string>): Promise<JobResult> {
  const dir = mkdtempSync(join(tmpdir(), 'kolo-elastic-'));
  const hostsFile = join(dir, 'hosts');
  writeFileSync(hostsFile, `${hosts ?? ''}\n`);
  const discovery = hosts === undefined ? [] : ['--host-discovery-script', `cat ${hostsFile}`];
  return runJob(np, 'elastic-grow.mjs', {
    launcherArgs: ['--min-np', '2', '--max-np', '4', ...discovery],
    env: { KOLO_TEST_HOSTS_FILE: hostsFile, ...env },
    timeoutMs: 100_000,
  });
}

/** Every listed worker's final state, which must be one and the same (attempts aside: an added worker has had fewer). */
function sharedFinal(job: JobResult, ids: number[], dump: string): Final {
  const finals = ids.map((id) => {
    const final = { ...(job.results.get('final')?.get(id) as Final & { attempts?: number }) };
    delete final.attempts;
    return final as Final;
  });
  for (const f of finals) expect(f, dump).toEqual(finals[0]);
  return finals[0] as Final;
}

/** Run lengths of `sums`: [[4, 30], [3, 12], …]. */
const runs = (sums: number[]): [number, number][] =>
  sums.reduce<[number, number][]>((out, n) => {
    const last = out.at(-1);
    if (last?.[0] === n) last[1] += 1;
    else out.push([n, 1]);
    return out;
  }, []);

/** The weights after these steps: each averages (i + 1) * 0.01 * (rank + 1) over `size` ranks. */
function expectedWeights(sums: number[]): number[] {
  let w = [1, 2, 3, 4];
  for (const size of sums) w = w.map((x, i) => x - 0.1 * ((i + 1) * 0.01 * (size + 1)) / 2);
  return w;
}

describe('elastic membership changes', () => {
  it('4 workers, one SIGKILLed at step 30: the other 3 finish from the last commit with equal weights', { timeout: 120_000 }, async () => {
    const job = await runGrow(4, undefined, { KOLO_TEST_VICTIM: '3', KOLO_TEST_VICTIM_STEP: '30', KOLO_TEST_FINAL_SIZE: '3', KOLO_TEST_STEPS: '40' });
    const dump = `stdout:\n${job.stdout}\nstderr:\n${job.stderr}`;
    expect(job.code, dump).toBe(0);
    for (const id of [0, 1, 2]) expect(job.results.get('start.2')?.get(id), dump).toEqual({ step: 30, size: 3, generation: 1 });
    const final = sharedFinal(job, [0, 1, 2], dump);
    expect(final.step).toBe(40);
    expect(runs(final.sums)).toEqual([[4, 30], [3, 10]]);
    final.weights.forEach((w, i) => expect(w).toBeCloseTo(expectedWeights(final.sums)[i] as number, 12));
    expect(job.results.get('final')?.has(3)).toBe(false);
  });

  it('with --host-discovery-script, a worker replaces the SIGKILLed one and training grows back to 4', { timeout: 120_000 }, async () => {
    const job = await runGrow(4, 'localhost:4', { KOLO_TEST_VICTIM: '3', KOLO_TEST_VICTIM_STEP: '30', KOLO_TEST_FINAL_SIZE: '4', KOLO_TEST_STEPS: '40' });
    const dump = `stdout:\n${job.stdout}\nstderr:\n${job.stderr}`;
    expect(job.code, dump).toBe(0);
    expect(job.stderr).toMatch(/kolorun: rank 3 \(pid \d+\) failed: killed by signal SIGKILL; continuing with 3 worker\(s\) as elastic generation 1\n/);
    expect(job.stderr).toMatch(/kolorun: host discovery added 1 worker\(s\) on localhost; continuing with 4 worker\(s\) as elastic generation 2\n/);
    const final = sharedFinal(job, [0, 1, 2, 4], dump);
    const [[, before], [, during], [, after]] = runs(final.sums) as [number, number][];
    expect(runs(final.sums).map(([size]) => size)).toEqual([4, 3, 4]);
    expect(before).toBe(30);
    expect(after).toBeGreaterThanOrEqual(5);
    // The added worker starts where the survivors resumed: the step of the last commit before the change.
    const resumed = 30 + during;
    for (const id of [0, 1, 2]) expect(job.results.get('start.3')?.get(id), dump).toEqual({ step: resumed, size: 4, generation: 2 });
    expect(job.results.get('start.1')?.get(4), dump).toEqual({ step: resumed, size: 4, generation: 2 });
    expect(final).toMatchObject({ step: final.sums.length, size: 4, generation: 2 });
    final.weights.forEach((w, i) => expect(w).toBeCloseTo(expectedWeights(final.sums)[i] as number, 12));
  });

  it('grows from 3 to 4 workers when the discovery script reports a 4th slot', { timeout: 120_000 }, async () => {
    const job = await runGrow(3, 'localhost:3', { KOLO_TEST_REHOST_STEP: '5', KOLO_TEST_REHOST_TO: 'localhost:4', KOLO_TEST_FINAL_SIZE: '4', KOLO_TEST_STEPS: '20' });
    const dump = `stdout:\n${job.stdout}\nstderr:\n${job.stderr}`;
    expect(job.code, dump).toBe(0);
    const final = sharedFinal(job, [0, 1, 2, 3], dump);
    const [[, before]] = runs(final.sums) as [number, number][];
    expect(runs(final.sums).map(([size]) => size)).toEqual([3, 4]);
    expect(before).toBeGreaterThan(5);
    expect(job.results.get('start.1')?.get(3), dump).toEqual({ step: before, size: 4, generation: 1 });
    final.weights.forEach((w, i) => expect(w).toBeCloseTo(expectedWeights(final.sums)[i] as number, 12));
  });

  it('shrinks from 4 to 3 workers when the discovery script lists a slot fewer', { timeout: 120_000 }, async () => {
    const job = await runGrow(4, 'localhost:4', { KOLO_TEST_REHOST_STEP: '10', KOLO_TEST_REHOST_TO: 'localhost:3', KOLO_TEST_FINAL_SIZE: '3', KOLO_TEST_STEPS: '20' });
    const dump = `stdout:\n${job.stdout}\nstderr:\n${job.stderr}`;
    expect(job.code, dump).toBe(0);
    expect(job.stderr).toContain('kolorun: host discovery lists fewer slots; stopping rank(s) 3\n');
    expect(job.stderr).toMatch(/kolorun: rank 3 \(pid \d+\) removed by host discovery \(killed by signal SIGTERM\); continuing with 3 worker\(s\) as elastic generation 1\n/);
    const final = sharedFinal(job, [0, 1, 2], dump);
    const [[, before]] = runs(final.sums) as [number, number][];
    expect(runs(final.sums).map(([size]) => size)).toEqual([4, 3]);
    expect(before).toBeGreaterThanOrEqual(10);
    for (const id of [0, 1, 2]) expect(job.results.get('start.2')?.get(id), dump).toEqual({ step: before, size: 3, generation: 1 });
    final.weights.forEach((w, i) => expect(w).toBeCloseTo(expectedWeights(final.sums)[i] as number, 12));
    expect(job.results.get('final')?.has(3)).toBe(false);
  });

  it('kills a worker that stays SIGSTOPped for the engine timeout, and the other 3 finish', { timeout: 120_000 }, async () => {
    const job = await runGrow(4, undefined, {
      KOLO_TEST_VICTIM: '3', KOLO_TEST_VICTIM_STEP: '10', KOLO_TEST_VICTIM_SIGNAL: 'SIGSTOP', KOLO_TEST_FINAL_SIZE: '3', KOLO_TEST_STEPS: '20',
      KOLO_TIMEOUT_SECONDS: '3', KOLO_TEST_TIMEOUT_MS: '3000',
    });
    const dump = `stdout:\n${job.stdout}\nstderr:\n${job.stderr}`;
    expect(job.code, dump).toBe(0);
    expect(job.stderr).toMatch(/kolorun: rank 3 \(pid \d+\) stayed stopped for 3 s; killing it\nkolorun: rank 3 \(pid \d+\) failed: killed by signal SIGKILL; continuing with 3 worker\(s\) as elastic generation 1\n/);
    for (const id of [0, 1, 2]) expect(job.results.get('start.2')?.get(id), dump).toEqual({ step: 10, size: 3, generation: 1 });
    const final = sharedFinal(job, [0, 1, 2], dump);
    expect(runs(final.sums)).toEqual([[4, 10], [3, 10]]);
  });
});
