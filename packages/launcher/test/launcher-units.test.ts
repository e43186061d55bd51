import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseHostList, readHostfile } from '../src/hosts.js';
import { MpirunOutputJoiner, type RankLine, mpirunTagPattern } from '../src/mpirun-output.js';
import { LinePrefixer, LineTail } from '../src/output-prefix.js';
import { parseCommandLine } from '../src/options.js';
import { placeWorkers, planJob, type WorkerPlacement } from '../src/plan.js';
import { shellQuote, sshArgs, sshOptionArgs } from '../src/remote-command.js';
import { UsageError } from '../src/usage-error.js';
import { workerEnv } from '../src/worker-env.js';

describe('parseCommandLine', () => {
  it('stops at the first positional so worker flags pass through', () => {
    const options = parseCommandLine(['-np', '2', '--grace-period', '1.5', 'node', 'x.js', '--foo', '-np', '9']);
    expect(options).toEqual({
      command: ['node', 'x.js', '--foo', '-np', '9'],
      np: 2,
      startTimeoutMs: 30_000,
      gracePeriodMs: 1500,
      verbose: false,
    });
  });

  it('reads the multi-node flags with the torchrun default port', () => {
    const options = parseCommandLine(['--nnodes', '2', '--node-rank', '1', '--master-addr', 'n0', '-np', '4', 'python']);
    expect(options.nodes).toEqual({ nnodes: 2, nodeRank: 1, masterAddr: 'n0', masterPort: 29500 });
  });

  it('refuses -H together with --nnodes', () => {
    expect(() => parseCommandLine(['-np', '1', '-H', 'a:1', '--nnodes', '1', 'x'])).toThrow(
      new UsageError('Expected either -H/--hostfile (ssh) or --nnodes (one kolorun per node) but received both; pass one of them'),
    );
  });
});

describe('hosts', () => {
  it('parses -H lists, defaulting to one slot and merging repeated hosts', () => {
    expect(parseHostList('a:2,b,a:1')).toEqual([
      { host: 'a', slots: 3 },
      { host: 'b', slots: 1 },
    ]);
    expect(() => parseHostList('a:x')).toThrow('Expected host:slots for -H but received "a:x"; e.g. -H node1:4,node2:4');
  });

  it('reads hostfiles in "host slots=N", "host:N" and bare form with comments', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'kolo-hosts-')), 'hosts');
    writeFileSync(file, '# cluster\nnode1 slots=4\n\nnode2:2  # two GPUs\nnode3\n');
    expect(readHostfile(file)).toEqual([
      { host: 'node1', slots: 4 },
      { host: 'node2', slots: 2 },
      { host: 'node3', slots: 1 },
    ]);
    writeFileSync(file, 'node1 gpus=4\n');
    expect(() => readHostfile(file)).toThrow(`Expected "host slots=N" on line 1 of ${file} but received "node1 gpus=4"`);
  });
});

describe('placement', () => {
  it('fills hosts in order and drops hosts without workers', () => {
    const placed = placeWorkers([{ host: 'a', slots: 2 }, { host: 'b', slots: 2 }, { host: 'c', slots: 2 }], 3);
    expect(placed.map((w) => [w.rank, w.host, w.localRank, w.localSize, w.crossRank, w.crossSize, w.remote])).toEqual([
      [0, 'a', 0, 2, 0, 2, true],
      [1, 'a', 1, 2, 0, 2, true],
      [2, 'b', 0, 1, 1, 2, true],
    ]);
  });

  it('binds local workers of a multi-host job to the host name, not loopback', () => {
    const plan = planJob({ command: ['x'], np: 2, hosts: [{ host: 'localhost', slots: 1 }, { host: 'far', slots: 1 }] }, { KOLO_HOSTNAME: 'me.example' });
    expect(plan.workers.map((w) => w.bindAddress)).toEqual(['me.example', 'far']);
    expect(plan.store).toEqual({ role: 'host', bind: '0.0.0.0', port: 0 });
    expect(plan.storeAddr).toBe('me.example');
  });

  it('derives the same job id on every node of a multi-node job', () => {
    const nodes = { nnodes: 2, nodeRank: 0, masterAddr: 'n0', masterPort: 29500 };
    const a = planJob({ command: ['x'], np: 1, nodes }, { KOLO_JOB_SECRET: 's' });
    const b = planJob({ command: ['x'], np: 1, nodes: { ...nodes, nodeRank: 1 } }, { KOLO_JOB_SECRET: 's' });
    expect(a.jobId).toBe(b.jobId);
    expect([a.store.role, b.store.role]).toEqual(['host', 'join']);
    expect(() => planJob({ command: ['x'], np: 1, nodes: { ...nodes, nodeRank: 2 } }, { KOLO_JOB_SECRET: 's' })).toThrow(
      'Expected an integer from 0 to 1 for --node-rank but received 2',
    );
  });
});

describe('ssh command', () => {
  it('quotes every word and keeps the secret off the command line', () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(sshArgs('node2', '/work dir', { KOLO_RANK: '2', KOLO_JOB_SECRET: 'hidden' }, ['node', 'train.js', '--lr', '0.1 x'])).toEqual([
      '-o',
      'BatchMode=yes',
      'node2',
      "IFS= read -r KOLO_JOB_SECRET && export KOLO_JOB_SECRET && cd '/work dir' && exec env KOLO_RANK=2 node train.js --lr '0.1 x'",
    ]);
  });
});

describe('line output', () => {
  it('prefixes whole lines across chunk boundaries, including split UTF-8', () => {
    const out = new PassThrough();
    const writes: string[] = [];
    out.on('data', (c: Buffer) => writes.push(c.toString('utf8')));
    const prefixer = new LinePrefixer('[3]<stdout>: ', out);
    const euro = Buffer.from('€');
    prefixer.push(Buffer.concat([Buffer.from('a\nb'), euro.subarray(0, 1)]));
    prefixer.push(Buffer.concat([euro.subarray(1), Buffer.from('\nc')]));
    prefixer.flush();
    expect(writes).toEqual(['[3]<stdout>: a\n', '[3]<stdout>: b€\n', '[3]<stdout>: c\n']);
  });

  it("rebuilds each rank's lines from mpirun's tagged fragments (Open MPI 4 and 5 tags)", () => {
    const text = (lines: RankLine[]): [number | undefined, string][] => lines.map(({ rank, line }) => [rank, line.toString('utf8')]);
    const four = new MpirunOutputJoiner(mpirunTagPattern(4));
    const euro = Buffer.from('€');
    // As Open MPI 4.1 printed it for `printf 'a\nb'; sleep; printf 'c\n'` on two ranks, cut mid-tag
    // and mid-character by the pipe.
    const stream = Buffer.concat([
      Buffer.from('[1,0]<stdout>:a\n[1,0]<stdout>:b'), euro.subarray(0, 2), Buffer.from('[1,1]<stdout>:a\n[1,1]<stdout>:b[1,0]<stdout>:'),
      euro.subarray(2), Buffer.from('c\n[1,1]<stdout>:c\nmpirun noticed\n[1,0]<stdout>:tail'),
    ]);
    const got = [...four.push(stream.subarray(0, 20)), ...four.push(stream.subarray(20, 50)), ...four.push(stream.subarray(50))];
    expect(text(got)).toEqual([[0, 'a'], [1, 'a'], [0, 'b€c'], [1, 'bc'], [undefined, 'mpirun noticed']]);
    expect(text(four.flush())).toEqual([[0, 'tail']]);
    const five = new MpirunOutputJoiner(mpirunTagPattern(5));
    expect(text(five.push(Buffer.from('[prterun-n1-77@1,2]<stderr>: x[prterun-n1-77@1,0]<stderr>:  y\n[prterun-n1-77@1,2]<stderr>: z\n'))))
      .toEqual([[0, ' y'], [2, 'xz']]);
    expect(five.flush()).toEqual([]);
  });

  it('keeps a `[` that ends a fragment right before the next tag', () => {
    // A RESULT line that rank 1 wrote in two pieces, cut right after a '[' (an ops-matrix run lost
    // that '[' when the tag pattern let the job's name start with one).
    const joiner = new MpirunOutputJoiner(mpirunTagPattern(4));
    const lines = joiner.push(Buffer.from('[1,1]<stdout>:{"value":[[1],[2,4],[[1,0]<stdout>:x\n[1,1]<stdout>:1,2]]}\n'));
    expect(lines.map(({ rank, line }) => [rank, line.toString()])).toEqual([[0, 'x'], [1, '{"value":[[1],[2,4],[1,2]]}']]);
    const five = new MpirunOutputJoiner(mpirunTagPattern(5));
    expect(five.push(Buffer.from('[prterun-n1-77@1,0]<stdout>: [[prterun-n1-77@1,0]<stdout>: 1]\n')).map(({ line }) => line.toString())).toEqual(['[1]']);
  });

  it('keeps the last N lines, including an unterminated one', () => {
    const tail = new LineTail(2);
    tail.push(Buffer.from('1\n2\n3\npar'));
    tail.push(Buffer.from('tial'));
    expect(tail.lines()).toEqual(['3', 'partial']);
  });
});

describe('ssh port and identity, and --gpus', () => {
  it('passes -p/--ssh-port and -i/--ssh-identity-file to every ssh command', () => {
    const options = parseCommandLine(['-np', '2', '-H', 'n1:1,n2:1', '-p', '2222', '--ssh-identity-file', '/k/id', 'node', 'x.js']);
    expect(options.ssh).toEqual({ port: 2222, identityFile: '/k/id' });
    expect(sshArgs('n2', '/w', {}, ['node', 'x.js'], options.ssh)).toEqual([
      '-o', 'BatchMode=yes', '-p', '2222', '-i', '/k/id', 'n2', 'IFS= read -r KOLO_JOB_SECRET && export KOLO_JOB_SECRET && cd /w && exec env node x.js',
    ]);
    expect(sshOptionArgs({})).toEqual(['-o', 'BatchMode=yes']);
    expect(() => parseCommandLine(['-np', '2', '--ssh-port', '70000', 'x'])).toThrow(
      new UsageError('Expected a port from 1 to 65535 for --ssh-port but received "70000"; e.g. --ssh-port 2222'),
    );
  });

  it('gives each worker one GPU with --gpus auto or a list, and refuses a list too short for a host', () => {
    const job = { storeAddr: '127.0.0.1', storePort: 1, secret: 's', jobId: 'j' };
    const auto = planJob(parseCommandLine(['-np', '2', '--gpus', 'auto', 'x']), {});
    expect(auto.workers.map((w) => workerEnv(w, { ...job, gpus: 'auto' }).CUDA_VISIBLE_DEVICES)).toEqual(['0', '1']);
    const listed = parseCommandLine(['-np', '2', '--gpus', '3,1', 'x']);
    expect(listed.gpus).toEqual([3, 1]);
    expect(planJob(listed, {}).workers.map((w) => workerEnv(w, { ...job, gpus: [3, 1] }).CUDA_VISIBLE_DEVICES)).toEqual(['3', '1']);
    expect(workerEnv(auto.workers[0] as WorkerPlacement, job).CUDA_VISIBLE_DEVICES).toBeUndefined();
    expect(() => planJob(parseCommandLine(['-np', '3', '--gpus', '0,1', 'x']), {})).toThrow(new UsageError(
      'Expected at least 3 GPU indices for --gpus (one per worker on a host) but received 2 (0,1); list more GPUs or use --gpus auto',
    ));
    expect(() => parseCommandLine(['-np', '2', '--gpus', '0,0', 'x'])).toThrow(new UsageError(
      'Expected \'auto\' or distinct GPU indices for --gpus but received "0,0"; e.g. --gpus auto or --gpus 0,1,2,3',
    ));
  });
});
