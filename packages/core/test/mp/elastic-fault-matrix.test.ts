// Random faults in an elastic job (not part of `npm test` unless KOLO_ELASTIC_FAULT_RUNS is set):
// 4 workers under kolorun --min-np 2 --max-np 4 with a discovery script listing 4 slots; a random
// worker is SIGKILLed or SIGSTOPped at a random step, kolorun replaces it, and every worker must
// finish with the same state, back at 4. Cases derive from KOLO_ELASTIC_FAULT_SEED (printed).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runJob } from './run-job.js';

const runs = Number(process.env.KOLO_ELASTIC_FAULT_RUNS ?? 0);
const seed = Number(process.env.KOLO_ELASTIC_FAULT_SEED ?? 7);
if (runs > 0) console.log(`elastic fault matrix: KOLO_ELASTIC_FAULT_SEED=${seed} KOLO_ELASTIC_FAULT_RUNS=${runs}`);

/** A small linear congruential generator: enough to pick reproducible cases. */
function lcg(state: number): () => number {
  return () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}
const random = lcg(seed);
const cases = Array.from({ length: runs }, (_, run) => ({
  run,
  victim: Math.floor(random() * 4),
  step: 3 + Math.floor(random() * 22),
  signal: run % 2 === 0 ? 'SIGKILL' : 'SIGSTOP',
}));

describe.skipIf(runs === 0)(`elastic fault matrix (seed ${seed})`, () => {
  for (const c of cases) it(`run ${c.run}: ${c.signal} of worker ${c.victim} at step ${c.step}`, { timeout: 120_000 }, async () => {
    const hostsFile = join(mkdtempSync(join(tmpdir(), 'kolo-elastic-fault-')), 'hosts');
    writeFileSync(hostsFile, 'localhost:4\n');
    const job = await runJob(4, 'elastic-grow.mjs', {
      launcherArgs: ['--min-np', '2', '--max-np', '4', '--host-discovery-script', `cat ${hostsFile}`],
      env: {
        KOLO_TEST_HOSTS_FILE: hostsFile, KOLO_TEST_VICTIM: String(c.victim), KOLO_TEST_VICTIM_STEP: String(c.step), KOLO_TEST_VICTIM_SIGNAL: c.signal,
        KOLO_TEST_FINAL_SIZE: '4', KOLO_TEST_STEPS: '30', KOLO_TIMEOUT_SECONDS: '3', KOLO_TEST_TIMEOUT_MS: '3000',
      },
      timeoutMs: 100_000,
    });
    const dump = `seed ${seed} case ${JSON.stringify(c)}\nstdout:\n${job.stdout}\nstderr:\n${job.stderr}`;
    expect(job.code, dump).toBe(0);
    const finals = [...(job.results.get('final') ?? new Map()).values()].map((f: Record<string, unknown>) => ({ ...f, attempts: undefined }));
    expect(finals.length, dump).toBe(4);
    for (const f of finals) expect(f, dump).toEqual(finals[0]);
    const sums = (finals[0] as { sums: number[] }).sums;
    // No committed step is lost: one entry per step, 4 until the fault, then 3s, then 4s again.
    expect(sums.slice(0, c.step), dump).toEqual(Array(c.step).fill(4));
    expect(sums[c.step], dump).toBe(3);
    expect(sums.at(-1), dump).toBe(4);
  });
});
