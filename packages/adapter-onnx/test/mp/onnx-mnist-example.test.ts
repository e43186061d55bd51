import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobResult, repoRoot, runJob } from './run-job.js';

const out = mkdtempSync(join(tmpdir(), 'kolo-onnx-mnist-'));

function accuracy(job: JobResult, label: string): number {
  const match = new RegExp(`held-out accuracy, ${label}: (\\d\\.\\d+)`).exec(job.stdout);
  if (!match) throw new Error(`no '${label}' accuracy in the output:\n${job.stdout}\n${job.stderr}`);
  return Number(match[1]);
}

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('examples/onnx-mnist on 2 workers', () => {
  let job: JobResult;
  beforeAll(async () => {
    const example = join(repoRoot, 'examples', 'onnx-mnist', 'index.mjs');
    // 6 epochs instead of the default 8 keeps the job well under a minute on a busy 2-core machine (93.5% here).
    job = await runJob(2, example, { args: ['--epochs', '6', '--out', out], timeoutMs: 55_000 });
  }, 60_000);

  it('reaches >= 90% on held-out digits, and the saved model scores the same in a plain InferenceSession', () => {
    expect(job.code, job.stderr).toBe(0);
    const distributed = accuracy(job, 'distributed over 2 workers');
    const served = accuracy(job, 'plain InferenceSession on the saved model');
    console.log(`onnx-mnist: distributed ${distributed}, served ${served}`);
    expect(distributed).toBeGreaterThanOrEqual(0.9);
    expect(served).toBe(distributed);
    expect(existsSync(join(out, 'mnist-mlp.onnx'))).toBe(true);
  });
});
