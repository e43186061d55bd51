import { createServer, type AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { beforeAll, describe, expect, it } from 'vitest';
import { fixture, freePort, processExists, runKolorun, startKolorun, until } from './run-kolorun.js';
import { scratchBuild } from './scratch-build.js';

const kolorunLines = (stderr: string): string[] => stderr.split('\n').filter((l) => l.startsWith('kolorun:'));

beforeAll(() => {
  scratchBuild();
}, 120_000);

describe('kolorun when a worker fails', () => {
  it('names the rank that failed first, shows its last 20 stderr lines and leaves no process behind', async () => {
    const { code, stdout, stderr } = await runKolorun(['-np', '2', '--grace-period', '0.5', 'node', fixture('fail-rank1.mjs')]);
    expect(code).toBe(3);
    const pids = /^\[0\]<stdout>: pids (\d+) (\d+)$/m.exec(stdout);
    expect(pids).not.toBeNull();
    const [worker0, grandchild] = [Number(pids?.[1]), Number(pids?.[2])];
    const report = stderr.slice(stderr.indexOf('kolorun:'));
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 6}`);
    expect(report).toMatch(/^kolorun: rank 1 \(pid \d+\) failed first: exit code 3\n/);
    expect(report.replace(/\(pid \d+\)/, '(pid P)')).toBe(
      ['kolorun: rank 1 (pid P) failed first: exit code 3', "kolorun: last lines of rank 1's stderr:", ...lines, ''].join('\n'),
    );
    expect(processExists(worker0)).toBe(false);
    expect(processExists(grandchild)).toBe(false);
  }, 30_000);

  it('reports a worker killed by a signal', async () => {
    const { code, stderr } = await runKolorun(['-np', '2', '--grace-period', '0.2', 'node', fixture('kill-self.mjs')]);
    expect(code).toBe(1);
    expect(kolorunLines(stderr)[0]).toMatch(/^kolorun: rank 0 \(pid \d+\) failed first: killed by signal SIGKILL$/);
    expect(kolorunLines(stderr)[1]).toBe('kolorun: rank 0 wrote nothing to stderr');
  }, 30_000);

  it('records the first failure under kolo/failure for the surviving workers', async () => {
    const { code, stdout, stderr } = await runKolorun(['-np', '2', 'node', fixture('read-failure.mjs')]);
    expect(stdout).toBe('[0]<stdout>: failure {"rank":1,"exitCode":3,"signal":null,"host":"localhost"}\n');
    expect(kolorunLines(stderr)[0]).toMatch(/^kolorun: rank 1 \(pid \d+\) failed first: exit code 3$/);
    expect(code).toBe(3);
  }, 30_000);

  it('reports a command that cannot be started as exit code 127', async () => {
    const { code, stderr } = await runKolorun(['-np', '1', 'kolo-no-such-command']);
    expect(code).toBe(127);
    expect(stderr).toBe(
      [
        'kolorun: rank 0 (pid none) failed first: exit code 127',
        "kolorun: last lines of rank 0's stderr:",
        'kolorun: could not start "kolo-no-such-command": spawn kolo-no-such-command ENOENT',
        '',
      ].join('\n'),
    );
  }, 30_000);
});

describe('kolorun across nodes', () => {
  it('stops node 0 when a worker on node 1 fails first, and names that rank on both nodes', async () => {
    const port = await freePort();
    const env = { KOLO_JOB_SECRET: 'two-node-failure', FAIL_RANK: '3' };
    const node = (rank: number): ReturnType<typeof startKolorun> =>
      startKolorun(['--nnodes', '2', '--node-rank', String(rank), '--master-addr', '127.0.0.1', '--master-port', String(port), '--grace-period', '0.3', '-np', '2', 'node', fixture('fail-rank.mjs')], env);
    const [r0, r1] = await Promise.all([node(0).result, node(1).result]);
    expect([r0.code, r1.code]).toEqual([3, 3]);
    expect(kolorunLines(r1.stderr)).toEqual([
      expect.stringMatching(/^kolorun: rank 3 \(pid \d+\) failed first: exit code 3$/),
      "kolorun: last lines of rank 3's stderr:",
    ]);
    const host = hostname();
    expect(kolorunLines(r0.stderr)).toEqual([
      `kolorun: rank 3 on ${host} failed first: exit code 3`,
      `kolorun: see the kolorun output on ${host} for rank 3's stderr`,
      expect.stringMatching(/^kolorun: rank [01] \(pid \d+\) failed: killed by signal SIGTERM$/),
      expect.stringMatching(/^kolorun: rank [01] wrote nothing to stderr$/),
    ]);
  }, 30_000);
});

describe('kolorun signals', () => {
  it('forwards SIGINT to every worker and SIGKILLs those still alive 5 s later', async () => {
    const run = startKolorun(['-np', '2', 'node', fixture('sigint.mjs')]);
    await until(() => (run.stdoutSoFar().match(/ready \d+/g) ?? []).length === 2);
    const pids = [...run.stdoutSoFar().matchAll(/ready (\d+)/g)].map((m) => Number(m[1]));
    const sentAt = Date.now();
    run.child.kill('SIGINT');
    const { code, stdout } = await run.result;
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(4900);
    expect(code).toBe(130);
    expect(stdout).toContain('[0]<stdout>: rank 0 got SIGINT\n');
    expect(stdout).toContain('[1]<stdout>: rank 1 got SIGINT\n');
    expect(pids.map(processExists)).toEqual([false, false]);
  }, 30_000);
});

describe('kolorun launch errors', () => {
  it('exits 1 naming the port when the store port is taken', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as AddressInfo).port;
    const { code, stderr } = await runKolorun(['-np', '1', '--master-port', String(port), 'node', fixture('print-env.mjs')]);
    busy.close();
    expect(stderr).toBe(`kolorun: Expected port ${port} on 127.0.0.1 to be free for the rendezvous store but received EADDRINUSE; pick another --master-port\n`);
    expect(code).toBe(1);
  }, 30_000);

  it('exits 1 when node 0 does not come up within --start-timeout', async () => {
    const port = await freePort();
    const args = ['--nnodes', '2', '--node-rank', '1', '--master-addr', '127.0.0.1', '--master-port', String(port), '--start-timeout', '0.3', '-np', '1', 'node', fixture('print-env.mjs')];
    const { code, stdout, stderr } = await runKolorun(args, { KOLO_JOB_SECRET: 's' });
    expect(stderr).toBe(`kolorun: Expected node 0's store at 127.0.0.1:${port} to accept this launcher within 0.3 s but received ECONNREFUSED; start kolorun --node-rank 0 on 127.0.0.1 first, or raise --start-timeout\n`);
    expect([code, stdout]).toEqual([1, '']);
  }, 30_000);
});

describe('kolorun usage errors', () => {
  const cases: [string, string[], string][] = [
    ['-np 0', ['-np', '0', 'node', 'x.js'], 'Expected a positive integer for -np but received "0"; pass the number of workers, e.g. kolorun -np 2 node train.js'],
    ['-np missing', ['node', 'x.js'], 'Expected a positive integer for -np but received nothing; pass the number of workers, e.g. kolorun -np 2 node train.js'],
    ['no command', ['-np', '2'], 'Expected a command to run after the options but received nothing; e.g. kolorun -np 2 node train.js'],
    ['too few slots', ['-np', '3', '-H', 'a:1,b:1', 'node', 'x.js'], 'Expected at least 3 slots for -np 3 but received 2 (a:1,b:1); add hosts or slots to -H/--hostfile, or lower -np'],
    ['unreadable hostfile', ['-np', '1', '--hostfile', '/nonexistent/hosts', 'node', 'x.js'], 'Expected a readable hostfile for --hostfile but received "/nonexistent/hosts" (ENOENT); pass a file with one "host slots=N" per line'],
    ['misspelt option', ['-np', '1', '--verbos', 'node', 'x.js'], "unknown option '--verbos' (Did you mean --verbose?); run kolorun --help for usage"],
    ['multi-node without a secret', ['--nnodes', '2', '--node-rank', '0', '--master-addr', '127.0.0.1', '-np', '1', 'node', 'x.js'], 'Expected KOLO_JOB_SECRET in the environment for --nnodes 2 but received nothing; export the same secret on every node, e.g. KOLO_JOB_SECRET=$(openssl rand -hex 32) generated once'],
  ];
  it.each(cases)('%s: one line on stderr and exit code 2', async (_name, args, message) => {
    const { code, stdout, stderr } = await runKolorun(args, { KOLO_JOB_SECRET: '' });
    expect(stderr).toBe(`kolorun: ${message}\n`);
    expect(stdout).toBe('');
    expect(code).toBe(2);
  }, 30_000);
});
