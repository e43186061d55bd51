import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkTransport } from '../src/horovod-flags.js';
import { parseCommandLine } from '../src/options.js';
import { planJob } from '../src/plan.js';
import { UsageError } from '../src/usage-error.js';
import { workerEnv } from '../src/worker-env.js';
import { fixture, runKolorun } from './run-kolorun.js';
import { scratchBuild } from './scratch-build.js';

const base = { command: ['node', 'x.js'], np: 2, startTimeoutMs: 30_000, gracePeriodMs: 10_000, verbose: false };

describe('horovodrun flags on the command line', () => {
  it('reads --gloo, --network-interface, --timeline-filename, --start-timeout, --verbose and --output-filename', () => {
    const argv = ['-np', '2', '--gloo', '--network-interface', 'eth1', '--timeline-filename', '/tmp/t.json',
      '--start-timeout', '5', '--verbose', '--output-filename', '/tmp/out', 'node', 'x.js'];
    expect(parseCommandLine(argv)).toEqual({
      ...base,
      startTimeoutMs: 5000,
      verbose: true,
      outputDir: '/tmp/out',
      transport: 'gloo',
      networkInterface: 'eth1',
      timelineFilename: '/tmp/t.json',
    });
  });

  it('takes the first of --network-interfaces and accepts horovodrun\'s -hostfile spelling', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'kolo-hvd-hosts-')), 'hosts');
    writeFileSync(file, 'localhost slots=2\n');
    const options = parseCommandLine(['-np', '2', '-hostfile', file, '--network-interfaces', 'ib0, eth0', 'node', 'x.js']);
    expect(options.hosts).toEqual([{ host: 'localhost', slots: 2 }]);
    expect(options.networkInterface).toBe('ib0');
  });

  it('adds no keys when no horovodrun flag is given', () => {
    expect(parseCommandLine(['-np', '2', 'node', 'x.js'])).toEqual(base);
  });

  it('refuses --gloo with --mpi, two interface flags and bad interface names', () => {
    expect(() => parseCommandLine(['-np', '1', '--gloo', '--mpi', 'x'])).toThrow(
      new UsageError('Expected either --gloo or --mpi but received both; pass one of them'),
    );
    expect(() => parseCommandLine(['-np', '1', '--network-interface', 'a', '--network-interfaces', 'b', 'x'])).toThrow(
      new UsageError('Expected either --network-interface or --network-interfaces but received both; pass one of them'),
    );
    expect(() => parseCommandLine(['-np', '1', '--network-interface', 'eth 0', 'x'])).toThrow(
      new UsageError('Expected a network interface name for --network-interface but received "eth 0"; e.g. --network-interface eth0'),
    );
  });

  it('reads --mpi, which hands the job to mpirun', () => {
    const options = parseCommandLine(['-np', '2', '--mpi', 'node', 'x.js']);
    expect(options.transport).toBe('mpi');
    expect(planJob(options, {}).workers).toHaveLength(2);
    expect(checkTransport('gloo')).toBe('gloo');
    expect(checkTransport(undefined)).toBeUndefined();
  });
});

describe('worker environment for horovodrun scripts', () => {
  const placement = { rank: 3, size: 4, localRank: 1, localSize: 2, crossRank: 1, crossSize: 2, host: 'node2', remote: true, bindAddress: 'node2' };
  const job = { storeAddr: 'node1', storePort: 4000, secret: 's', jobId: 'j' };

  it('sets HOROVOD_* next to KOLO_* with the same identity and the -H host name', () => {
    expect(workerEnv(placement, job)).toEqual({
      KOLO_RANK: '3', KOLO_SIZE: '4', KOLO_LOCAL_RANK: '1', KOLO_LOCAL_SIZE: '2', KOLO_CROSS_RANK: '1', KOLO_CROSS_SIZE: '2',
      KOLO_STORE_ADDR: 'node1', KOLO_STORE_PORT: '4000', KOLO_JOB_SECRET: 's', KOLO_JOB_ID: 'j', KOLO_HOSTNAME: 'node2',
      HOROVOD_RANK: '3', HOROVOD_SIZE: '4', HOROVOD_LOCAL_RANK: '1', HOROVOD_LOCAL_SIZE: '2', HOROVOD_CROSS_RANK: '1',
      HOROVOD_CROSS_SIZE: '2', HOROVOD_HOSTNAME: 'node2',
      RANK: '3', LOCAL_RANK: '1', WORLD_SIZE: '4', LOCAL_WORLD_SIZE: '2', GROUP_RANK: '1', GROUP_WORLD_SIZE: '2',
      MASTER_ADDR: 'node1', MASTER_PORT: '4000',
    });
  });

  it('records the transport, interface and timeline only when they were chosen', () => {
    const env = workerEnv(placement, { ...job, transport: 'gloo', iface: 'eth1', timeline: 't.json' });
    expect([env.KOLO_TRANSPORT, env.KOLO_IFACE, env.KOLO_TIMELINE]).toEqual(['gloo', 'eth1', 't.json']);
  });
});

describe('kolorun with horovodrun flags', () => {
  beforeAll(() => {
    scratchBuild();
  }, 120_000);

  it('gives every worker HOROVOD_* and the chosen transport, interface and timeline', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kolorun-hvd-'));
    const args = ['-np', '3', '-H', 'localhost:2,127.0.0.1:1', '--gloo', '--network-interface', 'lo', '--timeline-filename', 'tl.json',
      '--output-filename', dir, 'node', fixture('print-horovod-env.mjs')];
    const { code, stdout, stderr } = await runKolorun(args);
    expect([code, stderr]).toEqual([0, '']);
    const lines = stdout.trim().split('\n').sort();
    const env = (rank: number, local: number, localSize: number, cross: number, host: string): string =>
      `[${rank}]<stdout>: ${JSON.stringify({
        HOROVOD_CROSS_RANK: String(cross), HOROVOD_CROSS_SIZE: '2', HOROVOD_HOSTNAME: host, HOROVOD_LOCAL_RANK: String(local),
        HOROVOD_LOCAL_SIZE: String(localSize), HOROVOD_RANK: String(rank), HOROVOD_SIZE: '3',
        KOLO_IFACE: 'lo', KOLO_RANK: String(rank), KOLO_TIMELINE: 'tl.json', KOLO_TRANSPORT: 'gloo',
      })}`;
    expect(lines).toEqual([env(0, 0, 2, 0, 'localhost'), env(1, 1, 2, 0, 'localhost'), env(2, 0, 1, 1, '127.0.0.1')]);
    expect(readFileSync(join(dir, 'rank.2', 'stdout'), 'utf8')).toBe(`${lines[2]?.slice('[2]<stdout>: '.length)}\n`);
  }, 30_000);
});
