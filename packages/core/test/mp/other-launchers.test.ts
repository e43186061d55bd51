import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePortPair } from '../../../../test-support/ports.js';
import { repoRoot } from './run-job.js';

const demo = join(repoRoot, 'examples', 'allreduce-demo', 'index.mjs');
const sums = ['rank 0/2 sum      [3, 6, 9, 12]', 'rank 1/2 sum      [3, 6, 9, 12]'];

function run(command: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) => child.on('close', (code) => (clearTimeout(timer), resolve({ code, out }))));
}

describe('workers started by other launchers', () => {
  it('initializes under plain mpirun (Open MPI environment)', async () => {
    const { code, out } = await run('mpirun', ['--oversubscribe', '-np', '2', process.execPath, demo], {
      OMPI_ALLOW_RUN_AS_ROOT: '1',
      OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1',
    });
    expect(code, out).toBe(0);
    for (const line of sums) expect(out).toContain(line);
  });

  it('initializes from torchrun-style variables (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT)', async () => {
    // torchrun's agent owns MASTER_PORT; Kolo's store goes on MASTER_PORT + 1, so keep both free.
    const masterPort = await freePortPair();
    const workers = [0, 1].map((rank) =>
      run(process.execPath, [demo], {
        RANK: String(rank),
        WORLD_SIZE: '2',
        LOCAL_RANK: String(rank),
        LOCAL_WORLD_SIZE: '2',
        MASTER_ADDR: '127.0.0.1',
        MASTER_PORT: String(masterPort),
      }),
    );
    const results = await Promise.all(workers);
    results.forEach(({ code, out }, rank) => {
      expect(code, out).toBe(0);
      expect(out).toContain(sums[rank]);
    });
  });

  it('rank 0 serves the store while its JS thread blocks in a collective that connects a process set', async () => {
    const masterPort = await freePortPair();
    const worker = join(repoRoot, 'packages', 'core', 'test', 'mp', 'workers', 'store-host-blocking.mjs');
    const results = await Promise.all(
      [0, 1, 2].map((rank) =>
        run(process.execPath, [worker], {
          RANK: String(rank),
          WORLD_SIZE: '3',
          LOCAL_RANK: String(rank),
          LOCAL_WORLD_SIZE: '3',
          MASTER_ADDR: '127.0.0.1',
          MASTER_PORT: String(masterPort),
          KOLO_TIMEOUT_SECONDS: '20',
        }),
      ),
    );
    const want = ['RESULT rank 0 all 6 set 40', 'RESULT rank 1 all 6 set none', 'RESULT rank 2 all 6 set 40'];
    results.forEach(({ code, out }, rank) => {
      expect(code, out).toBe(0);
      expect(out).toContain(want[rank]);
    });
  });
});
