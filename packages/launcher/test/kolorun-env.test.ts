import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fixture, freePort, runKolorun, startKolorun } from './run-kolorun.js';
import { scratchBuild } from './scratch-build.js';

interface Printed {
  env: Record<string, string>;
  argv: string[];
}

function parseWorkers(stdout: string): Map<string, Printed> {
  const byRank = new Map<string, Printed>();
  for (const line of stdout.trim().split('\n')) {
    const match = /^\[(\d+)\]<stdout>: (.*)$/.exec(line);
    if (match === null) throw new Error(`unexpected line ${JSON.stringify(line)}`);
    byRank.set(match[1] as string, JSON.parse(match[2] as string) as Printed);
  }
  return byRank;
}

beforeAll(() => {
  scratchBuild();
}, 120_000);

describe('kolorun worker environment', () => {
  it('gives two local workers their exact KOLO_* values and passes worker flags through', async () => {
    const { code, stdout, stderr } = await runKolorun(['-np', '2', 'node', fixture('print-env.mjs'), '--foo', '-np', '7']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const workers = parseWorkers(stdout);
    expect([...workers.keys()].sort()).toEqual(['0', '1']);
    const w0 = workers.get('0') as Printed;
    const w1 = workers.get('1') as Printed;
    const shared = {
      KOLO_SIZE: '2',
      KOLO_LOCAL_SIZE: '2',
      KOLO_CROSS_RANK: '0',
      KOLO_CROSS_SIZE: '1',
      KOLO_STORE_ADDR: '127.0.0.1',
      KOLO_STORE_PORT: w0.env.KOLO_STORE_PORT,
      KOLO_JOB_SECRET: w0.env.KOLO_JOB_SECRET,
      KOLO_JOB_ID: w0.env.KOLO_JOB_ID,
      KOLO_HOSTNAME: '127.0.0.1',
      KOLO_SHM_TAG: w0.env.KOLO_SHM_TAG,
    };
    expect(w0.env).toEqual({ ...shared, KOLO_RANK: '0', KOLO_LOCAL_RANK: '0' });
    expect(w1.env).toEqual({ ...shared, KOLO_RANK: '1', KOLO_LOCAL_RANK: '1' });
    expect(w0.env.KOLO_STORE_PORT).toMatch(/^[1-9]\d*$/);
    expect(w0.env.KOLO_JOB_SECRET).toMatch(/^[0-9a-f]{64}$/);
    expect(w0.env.KOLO_JOB_ID).toMatch(/^[0-9a-f]{16}$/);
    expect(w0.env.KOLO_SHM_TAG).toMatch(/^r[0-9a-z]+[0-9a-f]{6}$/);
    expect(w0.argv).toEqual(['--foo', '-np', '7']);
    expect(w1.argv).toEqual(['--foo', '-np', '7']);
  }, 30_000);

  it('fills -H hosts in slot order and numbers them with cross ranks', async () => {
    const { code, stdout } = await runKolorun(['-np', '3', '-H', 'localhost:1,127.0.0.1:2', 'node', fixture('print-env.mjs')]);
    expect(code).toBe(0);
    const workers = parseWorkers(stdout);
    const pick = (rank: string): string[] => {
      const e = (workers.get(rank) as Printed).env;
      return [e.KOLO_RANK, e.KOLO_LOCAL_RANK, e.KOLO_LOCAL_SIZE, e.KOLO_CROSS_RANK, e.KOLO_CROSS_SIZE, e.KOLO_HOSTNAME] as string[];
    };
    expect(pick('0')).toEqual(['0', '0', '1', '0', '2', '127.0.0.1']);
    expect(pick('1')).toEqual(['1', '0', '2', '1', '2', '127.0.0.1']);
    expect(pick('2')).toEqual(['2', '1', '2', '1', '2', '127.0.0.1']);
  }, 30_000);

  it('runs a two-node job from two launchers (--nnodes) with one shared store', async () => {
    const port = await freePort();
    const env = { KOLO_JOB_SECRET: 'shared-secret-for-both-nodes', KOLO_HOSTNAME: '127.0.0.1' };
    const node = (rank: number): ReturnType<typeof startKolorun> =>
      startKolorun(['--nnodes', '2', '--node-rank', String(rank), '--master-addr', '127.0.0.1', '--master-port', String(port), '-np', '2', 'node', fixture('print-env.mjs')], env);
    const node1 = node(1);
    const node0 = node(0);
    const [r0, r1] = await Promise.all([node0.result, node1.result]);
    expect([r0.code, r1.code, r0.stderr, r1.stderr]).toEqual([0, 0, '', '']);
    const ranks = new Map([...parseWorkers(r0.stdout), ...parseWorkers(r1.stdout)]);
    expect([...ranks.keys()].sort()).toEqual(['0', '1', '2', '3']);
    const jobId = (ranks.get('0') as Printed).env.KOLO_JOB_ID;
    expect(jobId).toMatch(/^[0-9a-f]{16}$/);
    expect(ranks.get('0')?.env.KOLO_SHM_TAG).not.toBe(ranks.get('2')?.env.KOLO_SHM_TAG);
    for (const [rank, { env: e }] of ranks) {
      const r = Number(rank);
      expect(e).toEqual({
        KOLO_RANK: rank,
        KOLO_SIZE: '4',
        KOLO_LOCAL_RANK: String(r % 2),
        KOLO_LOCAL_SIZE: '2',
        KOLO_CROSS_RANK: String(Math.floor(r / 2)),
        KOLO_CROSS_SIZE: '2',
        KOLO_STORE_ADDR: '127.0.0.1',
        KOLO_STORE_PORT: String(port),
        KOLO_JOB_SECRET: 'shared-secret-for-both-nodes',
        KOLO_JOB_ID: jobId,
        KOLO_HOSTNAME: '127.0.0.1',
        // Each node's launcher tags (and sweeps) its own workers' shared-memory segments.
        KOLO_SHM_TAG: (ranks.get(String(2 * Math.floor(r / 2))) as Printed).env.KOLO_SHM_TAG,
      });
    }
  }, 30_000);
});

describe('kolorun output', () => {
  it('prefixes every line with its rank and stream, joining pieces of one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kolorun-out-'));
    const { code, stdout, stderr } = await runKolorun(['-np', '1', '--output-filename', dir, 'node', fixture('output.mjs')]);
    expect(code).toBe(0);
    expect(stdout).toBe('[0]<stdout>: hello from 0\n[0]<stdout>: second 0\n[0]<stdout>: no newline 0\n');
    expect(stderr).toBe('[0]<stderr>: warn 0\n');
    expect(readFileSync(join(dir, 'rank.0', 'stdout'), 'utf8')).toBe('hello from 0\nsecond 0\nno newline 0');
    expect(readFileSync(join(dir, 'rank.0', 'stderr'), 'utf8')).toBe('warn 0\n');
  }, 30_000);

  it('keeps each rank\'s lines whole when two workers write at once', async () => {
    const { code, stdout } = await runKolorun(['-np', '2', 'node', fixture('output.mjs')]);
    expect(code).toBe(0);
    expect(stdout.split('\n').sort()).toEqual([
      '',
      '[0]<stdout>: hello from 0',
      '[0]<stdout>: no newline 0',
      '[0]<stdout>: second 0',
      '[1]<stdout>: hello from 1',
      '[1]<stdout>: no newline 1',
      '[1]<stdout>: second 1',
    ]);
  }, 30_000);
});
