// Two "hosts" for real: two network namespaces joined by a veth pair, one kolorun per namespace
// (--nnodes 2), two workers each. Needs root and iproute2; elsewhere it says why and does not run.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkMatrix } from './expected-results.js';
import { type JobResult, parseResults, repoRoot } from './run-job.js';

const tag = `k${process.pid % 100000}`;
const hosts = [`${tag}a`, `${tag}b`];
const subnet = `10.231.${process.pid % 250}`;
const address = (i: number) => `${subnet}.${i + 1}`;
const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });

function canMakeNamespaces(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root to create network namespaces';
  try {
    ip('netns', 'add', `${tag}probe`);
    ip('netns', 'delete', `${tag}probe`);
    return undefined;
  } catch (error) {
    return `cannot create network namespaces here (${(error as Error).message.split('\n')[0]})`;
  }
}
const unavailable = canMakeNamespaces();
if (unavailable) console.warn(`two-host test not run: ${unavailable}`);

const opsMatrix = join(repoRoot, 'packages/core/test/mp/workers/ops-matrix.mjs');
const tfjsParity = join(repoRoot, 'packages/adapter-tfjs/test/mp/workers/parity.mjs');

function runNode(node: number, port: number, env: Record<string, string>, worker = opsMatrix): Promise<{ code: number | null; out: string; err: string }> {
  const args = ['netns', 'exec', hosts[node]!, process.execPath, join(repoRoot, 'packages/launcher/dist/cli.js'),
    '--nnodes', '2', '--node-rank', String(node), '--master-addr', address(0), '--master-port', String(port), '-np', '2',
    process.execPath, worker];
  const child = spawn('ip', args, { env: { ...process.env, KOLO_JOB_SECRET: 'two-hosts-secret', KOLO_IFACE: 'kolo0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
  return new Promise((resolve) => child.on('close', (code) => (clearTimeout(timer), resolve({ code, out, err }))));
}

let nextPort = 20000 + (process.pid % 20000);

async function runTwoHosts(env: Record<string, string>, worker?: string): Promise<JobResult> {
  const port = (nextPort += 1);
  const [a, b] = await Promise.all([runNode(0, port, env, worker), runNode(1, port, env, worker)]);
  expect(a.code, a.err).toBe(0);
  expect(b.code, b.err).toBe(0);
  return { code: 0, stdout: a.out + b.out, stderr: a.err + b.err, results: parseResults(a.out + b.out), elapsedMs: 0 };
}

describe.runIf(unavailable === undefined)('4 workers on 2 hosts (network namespaces)', () => {
  beforeAll(() => {
    for (const h of hosts) ip('netns', 'add', h);
    ip('link', 'add', `${tag}x`, 'type', 'veth', 'peer', 'name', `${tag}y`);
    [`${tag}x`, `${tag}y`].forEach((dev, i) => {
      ip('link', 'set', dev, 'netns', hosts[i]!);
      ip('-n', hosts[i]!, 'link', 'set', dev, 'name', 'kolo0');
      ip('-n', hosts[i]!, 'addr', 'add', `${address(i)}/24`, 'dev', 'kolo0');
      ip('-n', hosts[i]!, 'link', 'set', 'kolo0', 'up');
      ip('-n', hosts[i]!, 'link', 'set', 'lo', 'up');
    });
  });
  afterAll(() => {
    for (const h of hosts) {
      try {
        ip('netns', 'delete', h);
      } catch {
        // already gone
      }
    }
  });

  it('runs every op x dtype across the hosts with the flat allreduce', { timeout: 200_000 }, async () => {
    const job = await runTwoHosts({});
    expect(job.stdout).toContain('"key":"transport","value":"gloo"');
    checkMatrix(job, 4);
  });

  it('gives the same exact results with the hierarchical allreduce, which the timeline shows', { timeout: 200_000 }, async () => {
    const timeline = join(mkdtempSync(join(tmpdir(), 'kolo-hier-')), 'timeline.json');
    const job = await runTwoHosts({ KOLO_HIERARCHICAL_ALLREDUCE: '1', KOLO_TIMELINE: timeline });
    checkMatrix(job, 4);
    const events = JSON.parse(readFileSync(timeline, 'utf8')) as { name?: string }[];
    expect(events.some((e) => e.name === 'HIERARCHICAL_ALLREDUCE')).toBe(true);
    expect(events.some((e) => e.name === 'GLOO_ALLREDUCE')).toBe(false);
  });

  it('trains tfjs models across the hosts with the same weights as one process on the whole batch', { timeout: 200_000 }, async () => {
    // adapter-tfjs's parity worker: 20 steps of SGD, Momentum and Adam on batch 12 split 4 ways,
    // compared on every rank with one process on the whole batch (hierarchical allreduce on).
    const job = await runTwoHosts({ KOLO_HIERARCHICAL_ALLREDUCE: '1' }, tfjsParity);
    for (const key of ['optimizer.sgd', 'optimizer.momentum', 'optimizer.adam', 'backwardPassesPerStep']) {
      for (let rank = 0; rank < 4; rank += 1) {
        const d = job.results.get(key)?.get(rank) as { maxRel: number } | undefined;
        expect(d, `${key} on rank ${rank}`).toBeDefined();
        expect(d!.maxRel, `${key} on rank ${rank}`).toBeLessThanOrEqual(1e-5);
      }
    }
  });
});
