import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { checkTransport } from '../src/horovod-flags.js';
import { mpirunArgs } from '../src/mpirun-command.js';
import { parseCommandLine } from '../src/options.js';
import { planJob } from '../src/plan.js';
import { UsageError } from '../src/usage-error.js';
import { fixture, processExists, runKolorun } from './run-kolorun.js';

const hasMpirun = spawnSync('mpirun', ['--version'], { encoding: 'utf8' }).stdout?.includes('Open MPI') ?? false;
const wrapper = ['/usr/bin/node', '/k/mpi-worker.js'];

describe('kolorun --mpi: the mpirun command line', () => {
  it('lists hosts with slots, forwards variables by name only, and passes ssh and interface settings', () => {
    const options = parseCommandLine(['-np', '3', '--mpi', '-H', 'a:2,b:2', '-p', '2222', '-i', '/keys/id', '--network-interface', 'eth1', 'node', 'x.js', '--lr', '0.1']);
    const plan = planJob(options, {});
    const env = { KOLO_JOB_SECRET: 's3cret', KOLO_STORE_PORT: '4000', HOME: '/root', PATH: '/bin', NCCL_DEBUG: 'INFO', KOLO_UNSET: undefined };
    expect(mpirunArgs({ options, plan, env, wrapper, root: true })).toEqual([
      '--allow-run-as-root', '--bind-to', 'none', '--map-by', 'slot', '--tag-output', '-np', '3', '-H', 'a:2,b:1',
      '-x', 'KOLO_JOB_SECRET', '-x', 'KOLO_STORE_PORT', '-x', 'NCCL_DEBUG', '-x', 'PATH',
      '--mca', 'plm_rsh_args', '-p 2222 -i /keys/id',
      '--mca', 'btl_tcp_if_include', 'eth1', '--mca', 'oob_tcp_if_include', 'eth1',
      '/usr/bin/node', '/k/mpi-worker.js', 'node', 'x.js', '--lr', '0.1',
    ]);
  });

  it('runs every worker on this machine when no hosts are given, without root flags for other users', () => {
    const options = parseCommandLine(['-np', '2', '--mpi', 'node', 'x.js']);
    expect(mpirunArgs({ options, plan: planJob(options, {}), env: {}, wrapper, root: false })).toEqual([
      '--bind-to', 'none', '--map-by', 'slot', '--tag-output', '-np', '2', '-H', 'localhost:2', '/usr/bin/node', '/k/mpi-worker.js', 'node', 'x.js',
    ]);
  });

  it('refuses options mpirun cannot honour, saying why', () => {
    expect(checkTransport('mpi')).toBe('mpi');
    const nodes = { nnodes: 2, nodeRank: 0, masterAddr: 'n0', masterPort: 29500 };
    expect(() => checkTransport('mpi', { nodes })).toThrow(new UsageError(
      'Expected --mpi without --nnodes but received both: mpirun places every worker itself, from -H or --hostfile; drop --nnodes or use --gloo',
    ));
    expect(() => checkTransport('mpi', { elastic: { minNp: 2, maxNp: 4 } })).toThrow(new UsageError(
      'Expected --mpi without --min-np/--max-np but received both: mpirun places every worker itself, from -H or --hostfile; drop --min-np/--max-np or use --gloo',
    ));
    expect(() => checkTransport('mpi', { gpus: 'auto' })).toThrow(new UsageError(
      "Expected --mpi without --gpus but received both: mpirun starts the workers, so kolorun cannot set their CUDA_VISIBLE_DEVICES; each worker uses its local rank's GPU (or KOLO_GPU_DEVICE); drop --gpus or use --gloo",
    ));
    expect(() => checkTransport('nccl')).toThrow(new UsageError(`Expected 'gloo' or 'mpi' for transport but received "nccl"; pass --gloo, --mpi or nothing`));
  });
});

describe.skipIf(!hasMpirun)('kolorun --mpi: a real job under mpirun', () => {
  it('starts every rank under mpirun with the store variables and no KOLO_RANK, tagging output by rank', async () => {
    const { code, stdout } = await runKolorun(['--mpi', '-np', '2', 'node', fixture('print-env.mjs'), 'a b']);
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n').sort();
    expect(lines.map((l) => l.slice(0, 13))).toEqual(['[0]<stdout>: ', '[1]<stdout>: ']);
    for (const line of lines) {
      const { env, argv } = JSON.parse(line.slice(13)) as { env: Record<string, string>; argv: string[] };
      expect(argv).toEqual(['a b']);
      expect(Object.keys(env).sort()).toEqual(['KOLO_JOB_ID', 'KOLO_JOB_SECRET', 'KOLO_SHM_TAG', 'KOLO_STORE_ADDR', 'KOLO_STORE_PORT', 'KOLO_TRANSPORT', 'TEST_KOLO_STORE_MODULE'].filter((k) => k.startsWith('KOLO_')));
      expect([env.KOLO_STORE_ADDR, env.KOLO_TRANSPORT, env.KOLO_JOB_SECRET?.length]).toEqual(['127.0.0.1', 'mpi', 64]);
    }
  }, 60_000);

  it('prints every rank\'s lines whole, even long lines that mpirun forwards in pieces', async () => {
    const { code, stdout } = await runKolorun(['--mpi', '-np', '3', 'node', fixture('long-lines.mjs')], { LINES: '12', LINE_BYTES: '20000' });
    expect(code).toBe(0);
    const expected = [0, 1, 2].flatMap((rank) =>
      Array.from({ length: 12 }, (_, i) => `[${rank}]<stdout>: line ${rank} ${i} ${String.fromCharCode(97 + i).repeat(20000)}`));
    expect(stdout.split('\n').slice(0, -1).sort()).toEqual(expected.sort());
    // Each rank's lines keep their order.
    const order = stdout.split('\n').filter((l) => l.startsWith('[1]')).map((l) => Number(l.split(' ')[3]));
    expect(order).toEqual(Array.from({ length: 12 }, (_, i) => i));
  }, 60_000);

  it.each([
    ['exit code 3', {}, 3],
    ['killed by signal SIGKILL', { FAIL_SIGNAL: 'SIGKILL' }, 1],
  ])('names the rank that failed first (%s) before mpirun speaks, and leaves no process behind', async (how, env, exitCode) => {
    const { code, stdout, stderr } = await runKolorun(['--mpi', '-np', '3', 'node', fixture('mpi-fail-rank1.mjs')], env);
    expect(code).toBe(exitCode);
    const report = stderr.split('\n').filter((l) => !l.startsWith('['));
    expect(report.slice(0, 5)).toEqual([
      expect.stringMatching(new RegExp(`^kolorun: rank 1 on \\S+ failed first: ${how}$`)),
      "kolorun: last lines of rank 1's stderr:",
      'line 1',
      'line 2',
      'line 3',
    ]);
    const pids = [...stdout.matchAll(/pids (\d+) (\d+)/g)].flatMap((m) => [Number(m[1]), Number(m[2])]);
    expect(pids).toHaveLength(6);
    await new Promise((r) => setTimeout(r, 500));
    expect(pids.filter(processExists)).toEqual([]);
  }, 60_000);
});
