import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './run-job.js';

// examples/kvstore-style end to end under kolorun: one epoch must already classify most digits.
function runExample(args: string[]): Promise<{ code: number | null; accuracy: number; output: string }> {
  const kolorun = join(repoRoot, 'packages', 'launcher', 'dist', 'cli.js');
  const script = join(repoRoot, 'examples', 'kvstore-style', 'index.mjs');
  const child = spawn(process.execPath, [kolorun, '-np', '2', process.execPath, script, '--epochs', '1', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 170_000);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      const match = /held-out accuracy (\d\.\d+)/.exec(output);
      resolve({ code, accuracy: match ? Number(match[1]) : NaN, output });
    });
  });
}

describe('examples/kvstore-style on 2 workers', () => {
  it('learns MNIST in one epoch with dist_sync_kolo', { timeout: 180_000 }, async () => {
    const run = await runExample([]);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain('kvstore dist_sync_kolo: 2 worker(s), rank 0 on cpu:0, compression none');
    expect(run.accuracy, run.output).toBeGreaterThanOrEqual(0.85);
  });

  it('still learns with 2-bit gradient compression (plain SGD)', { timeout: 180_000 }, async () => {
    const run = await runExample(['--gc-type', '2bit', '--gc-threshold', '0.5', '--momentum', '0']);
    expect(run.code, run.output).toBe(0);
    expect(run.accuracy, run.output).toBeGreaterThanOrEqual(0.85);
  });
});
