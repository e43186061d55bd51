// A worker SIGSTOPped in a two-node job (two kolorun --nnodes 2 on this machine, two workers
// each): both nodes' kolorun name it first, the other node's from the record the stopped
// worker's node wrote, and every survivor's error names it.
import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseResults, repoRoot } from './run-job.js';

const stopped = 'stopped by SIGSTOP or SIGTSTP and unresponsive';
const worker = join(repoRoot, 'packages/core/test/mp/workers/fault-matrix.mjs');
let nextPort = 30000 + (process.pid % 20000);

function runNode(node: number, port: number, env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  const args = [join(repoRoot, 'packages/launcher/dist/cli.js'), '--nnodes', '2', '--node-rank', String(node), '--master-addr', '127.0.0.1',
    '--master-port', String(port), '-np', '2', process.execPath, worker];
  const child = spawn(process.execPath, args, { env: { ...process.env, KOLO_JOB_SECRET: 'multinode-fault', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) => child.on('close', (code) => (clearTimeout(timer), resolve({ code, out, err }))));
}

const alive = (pid: number): boolean => {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('a worker stopped on one node of two', () => {
  for (const { victim, node } of [{ victim: 3, node: 1 }, { victim: 0, node: 0 }]) it(`rank ${victim} (node ${node}): both nodes name it first, and so does every survivor`, { timeout: 90_000 }, async () => {
    const env = { KOLO_TEST_VICTIM: String(victim), KOLO_TEST_STEP: '5', KOLO_TEST_SIGNAL: 'SIGSTOP', KOLO_TEST_TIMEOUT_MS: '3000' };
    const port = (nextPort += 1);
    const nodes = await Promise.all([runNode(0, port, env), runNode(1, port, env)]);
    const dump = nodes.map((n, i) => `node ${i}:\n${n.out}\n${n.err}`).join('\n');
    const results = parseResults(nodes.map((n) => n.out).join('\n'));
    const pids = [0, 1, 2, 3].map((r) => results.get('pid')?.get(r) as number);
    expect(nodes.map((n) => n.code), dump).toEqual([1, 1]);
    const firstLines = nodes.map((n) => n.err.split('\n').find((l) => l.startsWith('kolorun:')));
    expect(firstLines[node], dump).toBe(`kolorun: rank ${victim} (pid ${pids[victim]}) failed first: ${stopped}`);
    // Multi-node workers are placed on this machine's host name.
    expect(firstLines[1 - node], dump).toBe(`kolorun: rank ${victim} on ${hostname()} failed first: ${stopped}`);
    for (const r of [0, 1, 2, 3].filter((x) => x !== victim)) {
      const err = results.get('error')?.get(r) as Record<string, unknown>;
      expect(err, dump).toMatchObject({ code: 'KOLO_COMMUNICATION', failedRank: victim });
      expect(err.message, dump).toContain(`Rank ${victim} failed first (${stopped}).`);
    }
    expect(pids.filter(alive), dump).toEqual([]);
  });
});
