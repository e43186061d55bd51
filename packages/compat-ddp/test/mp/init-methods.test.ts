import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePortPair } from '../../../../test-support/ports.js';
import { parseResults, perRank, runProcess, worker, type JobResult } from './run-job.js';

/** Starts `size` processes by hand, rank r with `argsOf(r)` and `envOf(r)`, and merges their reports. */
async function byHand(size: number, argsOf: (r: number) => string[], envOf: (r: number) => Record<string, string> = () => ({})): Promise<JobResult> {
  const jobs = await Promise.all(Array.from({ length: size }, (_, r) => runProcess('by-hand.mjs', { args: argsOf(r), env: envOf(r) })));
  const merged = new Map<string, Map<number, unknown>>();
  for (const job of jobs) for (const [key, byRank] of job.results) for (const [r, v] of byRank) merged.set(key, (merged.get(key) ?? new Map()).set(r, v));
  return {
    code: jobs.every((j) => j.code === 0) ? 0 : 1,
    stdout: jobs.map((j) => j.stdout).join(''),
    stderr: jobs.map((j, r) => `--- rank ${r} ---\n${j.stderr}`).join('\n'),
    results: merged,
  };
}

const expectRing = (job: JobResult, size: number, backend = 'gloo'): void => {
  expect(job.code, job.stderr).toBe(0);
  const sum = (size * (size + 1)) / 2;
  expect(perRank(job, 'job', size)).toEqual(Array.from({ length: size }, (_, r) => ({ size, sum, received: ((r + size - 1) % size) * 7, backend })));
};

/** Runs by-hand.mjs under `mpirun -np <np>` with env:// (Open MPI's variables, no torch ones). */
function underMpirun(np: number, backend: string): Promise<JobResult> {
  const env = { ...process.env, OMPI_ALLOW_RUN_AS_ROOT: '1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1', TEST_BACKEND: backend };
  const child = spawn('mpirun', ['--oversubscribe', '-np', String(np), '-x', 'TEST_BACKEND', process.execPath, worker('by-hand.mjs'), 'env://'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) => child.on('close', (code) => {
    clearTimeout(timer);
    resolve({ code, stdout, stderr, results: parseResults(stdout) });
  }));
}

const hasMpirun = spawnSyncOk('mpirun', ['--version']);
function spawnSyncOk(command: string, args: string[]): boolean {
  try {
    return execFileSync(command, args, { stdio: 'ignore', timeout: 10_000 }) !== undefined;
  } catch {
    return false;
  }
}

describe('initProcessGroup for processes started by hand', () => {
  it('meets over tcp://host:port with rank 0 hosting the store', { timeout: 60_000 }, async () => {
    const port = await freePortPair();
    expectRing(await byHand(3, (r) => [`tcp://127.0.0.1:${port}`, String(r), '3']), 3);
  });

  it('meets over tcp:// with rank and world_size in the URL query', { timeout: 60_000 }, async () => {
    const port = await freePortPair();
    expectRing(await byHand(2, (r) => [`tcp://127.0.0.1:${port}?rank=${r}&world_size=2`]), 2);
  });

  it('meets over file:// in a shared directory', { timeout: 60_000 }, async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'kolo-ddp-file-')), 'store');
    expectRing(await byHand(3, (r) => [`file://${dir}`, String(r), '3']), 3);
  });

  it('meets over env:// with MASTER_ADDR/MASTER_PORT and explicit ranks', { timeout: 60_000 }, async () => {
    const port = await freePortPair();
    expectRing(await byHand(2, (r) => ['env://', String(r), '2'], () => ({ MASTER_ADDR: '127.0.0.1', MASTER_PORT: String(port) })), 2);
  });

  it("meets over env:// with torchrun's variables only", { timeout: 60_000 }, async () => {
    // Rank 0 hosts the store one port above MASTER_PORT: keep both free.
    const port = await freePortPair();
    const env = (r: number) => ({ MASTER_ADDR: '127.0.0.1', MASTER_PORT: String(port), RANK: String(r), WORLD_SIZE: '2', LOCAL_RANK: String(r), LOCAL_WORLD_SIZE: '2' });
    expectRing(await byHand(2, () => ['-'], env), 2);
  });

  it("fails with torch's message when env:// lacks MASTER_ADDR", { timeout: 30_000 }, async () => {
    const job = await runProcess('by-hand.mjs', { args: ['env://', '0', '2'], env: { MASTER_PORT: '29500' } });
    expect(job.code).toBe(1);
    expect(job.stderr).toContain('ValueError: Error initializing torch.distributed using env:// rendezvous: environment variable MASTER_ADDR expected, but not set');
  });

  it.skipIf(!hasMpirun).each(['gloo', 'mpi'])('meets over env:// under mpirun with backend %s', { timeout: 90_000 }, async (backend) => {
    expectRing(await underMpirun(3, backend), 3, backend);
  });
});
