import { availableParallelism } from 'node:os';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseCommandLine } from '../src/options.js';
import { torchrunEnv, torchrunSpelling } from '../src/torchrun-flags.js';
import { UsageError } from '../src/usage-error.js';
import { fixture, freePort, runKolorun, startKolorun } from './run-kolorun.js';
import { scratchBuild } from './scratch-build.js';

const base = { command: ['node', 'x.js'], np: 2, startTimeoutMs: 30_000, gracePeriodMs: 10_000, verbose: false };

describe('torchrun flags on the command line', () => {
  it('takes --nproc-per-node and --nproc_per_node (also with =) as -np', () => {
    expect(parseCommandLine(['--nproc-per-node', '2', 'node', 'x.js'])).toEqual(base);
    expect(parseCommandLine(['--nproc_per_node', '2', 'node', 'x.js'])).toEqual(base);
    expect(parseCommandLine(['--nproc_per_node=2', '--standalone', 'node', 'x.js'])).toEqual(base);
    expect(parseCommandLine(['--nproc-per-node', 'cpu', 'node', 'x.js']).np).toBe(availableParallelism());
  });

  it('reads the underscore spellings of --node-rank, --master-addr and --master-port, and --nnodes N:N', () => {
    const argv = ['--nnodes=2:2', '--node_rank', '1', '--master_addr=n0', '--master_port', '29600', '--nproc_per_node', '4', 'node', 'x.js'];
    const options = parseCommandLine(argv);
    expect(options.np).toBe(4);
    expect(options.nodes).toEqual({ nnodes: 2, nodeRank: 1, masterAddr: 'n0', masterPort: 29600 });
    expect(parseCommandLine(['--nnodes', '1:1', '--nproc-per-node', '2', 'node', 'x.js']).nodes).toEqual({ nnodes: 1, nodeRank: 0, masterAddr: '127.0.0.1', masterPort: 29500 });
  });

  it('leaves worker arguments that look like torchrun flags alone', () => {
    expect(parseCommandLine(['-np', '2', 'node', 'x.js', '--node_rank', '3']).command).toEqual(['node', 'x.js', '--node_rank', '3']);
    expect(torchrunSpelling('--nproc_per_node=8')).toBe('--nproc-per-node=8');
    expect(torchrunSpelling('--verbose')).toBe('--verbose');
  });

  it('refuses -np with --nproc-per-node, elastic --nnodes ranges, --standalone across nodes and GPU counts', () => {
    expect(() => parseCommandLine(['-np', '2', '--nproc-per-node', '2', 'x'])).toThrow(new UsageError('Expected either -np or --nproc-per-node but received both; pass one of them'));
    expect(() => parseCommandLine(['--nnodes', '1:4', '--nproc-per-node', '2', 'x'])).toThrow(
      new UsageError('Expected a fixed number of nodes for --nnodes but received "1:4"; kolorun runs no elastic jobs, pass e.g. --nnodes 4'),
    );
    expect(() => parseCommandLine(['--standalone', '--nnodes', '2', '--master-addr', 'n0', '--nproc-per-node', '2', 'x'])).toThrow(
      new UsageError('Expected --nnodes 1 with --standalone but received --nnodes 2; drop --standalone for a multi-node job'),
    );
    expect(() => parseCommandLine(['--nproc-per-node', 'gpu', 'x'])).toThrow(
      new UsageError('Expected a positive integer, cpu or auto for --nproc-per-node but received "gpu"; e.g. --nproc-per-node 2 (this launcher has no GPUs to count)'),
    );
  });

  it("gives workers torchrun's variables with the KOLO_* identity and the store as MASTER_ADDR:MASTER_PORT", () => {
    const placement = { rank: 5, size: 8, localRank: 1, localSize: 4, crossRank: 1, crossSize: 2, host: 'n1', remote: false, bindAddress: 'n1' };
    expect(torchrunEnv(placement, { storeAddr: 'n0', storePort: 29500, secret: 's', jobId: 'j' })).toEqual({
      RANK: '5', LOCAL_RANK: '1', WORLD_SIZE: '8', LOCAL_WORLD_SIZE: '4', GROUP_RANK: '1', GROUP_WORLD_SIZE: '2', MASTER_ADDR: 'n0', MASTER_PORT: '29500',
    });
  });
});

describe('kolorun with torchrun flags', () => {
  beforeAll(() => {
    scratchBuild();
  }, 120_000);

  const printed = (stdout: string): Map<string, Record<string, string>> =>
    new Map(stdout.trim().split('\n').map((line) => {
      const match = /^\[(\d+)\]<stdout>: (.*)$/.exec(line);
      if (match === null) throw new Error(`unexpected line ${JSON.stringify(line)}`);
      return [match[1] as string, JSON.parse(match[2] as string) as Record<string, string>];
    }));

  it('starts --nproc_per_node workers with RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR, MASTER_PORT', async () => {
    const { code, stdout, stderr } = await runKolorun(['--standalone', '--nproc_per_node=2', 'node', fixture('print-torchrun-env.mjs')]);
    expect([code, stderr]).toEqual([0, '']);
    const workers = printed(stdout);
    const port = workers.get('0')?.KOLO_STORE_PORT as string;
    expect(port).toMatch(/^[1-9]\d*$/);
    for (const r of [0, 1]) {
      expect(workers.get(String(r))).toEqual({
        RANK: String(r), LOCAL_RANK: String(r), WORLD_SIZE: '2', LOCAL_WORLD_SIZE: '2', GROUP_RANK: '0', GROUP_WORLD_SIZE: '1',
        MASTER_ADDR: '127.0.0.1', MASTER_PORT: port, KOLO_STORE_ADDR: '127.0.0.1', KOLO_STORE_PORT: port,
      });
    }
  }, 30_000);

  it('numbers two torchrun-style nodes with GROUP_RANK and the shared master port', async () => {
    const port = await freePort();
    const env = { KOLO_JOB_SECRET: 'torchrun-style-secret', KOLO_HOSTNAME: '127.0.0.1' };
    const node = (rank: number) =>
      startKolorun(['--nnodes=2', `--node_rank=${rank}`, '--master_addr=127.0.0.1', `--master_port=${port}`, '--nproc_per_node=1', 'node', fixture('print-torchrun-env.mjs')], env).result;
    const [r0, r1] = await Promise.all([node(0), node(1)]);
    expect([r0.code, r1.code, r0.stderr, r1.stderr]).toEqual([0, 0, '', '']);
    const workers = new Map([...printed(r0.stdout), ...printed(r1.stdout)]);
    for (const r of [0, 1]) {
      expect(workers.get(String(r))).toEqual({
        RANK: String(r), LOCAL_RANK: '0', WORLD_SIZE: '2', LOCAL_WORLD_SIZE: '1', GROUP_RANK: String(r), GROUP_WORLD_SIZE: '2',
        MASTER_ADDR: '127.0.0.1', MASTER_PORT: String(port), KOLO_STORE_ADDR: '127.0.0.1', KOLO_STORE_PORT: String(port),
      });
    }
  }, 30_000);
});
