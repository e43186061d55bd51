import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobResult, perRank, runJob } from './run-job.js';

const optimizers = ['sgd', 'momentum', 'adam'];
const out = mkdtempSync(join(tmpdir(), 'kolo-onnx-parity-'));
const weights = (np: number, optimizer: string, rank: number) =>
  new Float32Array(readFileSync(join(out, `np${np}-${optimizer}-r${rank}.bin`)).buffer.slice(0));

/** The weights of mlp-h16 in the order the worker writes them. */
const tensors = [['W1', 784 * 16], ['b1', 16], ['W2', 16 * 10], ['b2', 10]] as const;

/**
 * Per weight tensor, max |a - b| / max |b|: the relative difference of the tensor as a whole.
 * (Element by element, weights that pass near zero show float32 accumulation noise of ~1e-8
 * against values of ~1e-4; the parity claim is about the tensors.)
 */
function relativeDifferences(a: Float32Array, b: Float32Array): Record<string, number> {
  const result: Record<string, number> = {};
  let offset = 0;
  for (const [name, length] of tensors) {
    let diff = 0;
    let scale = 0;
    for (let i = offset; i < offset + length; i++) {
      diff = Math.max(diff, Math.abs(a[i]! - b[i]!));
      scale = Math.max(scale, Math.abs(b[i]!));
    }
    result[name] = diff / scale;
    offset += length;
  }
  return result;
}

afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('training parity: 2 workers on batch 16 each == 1 worker on batch 32, after 20 steps', () => {
  let one: JobResult;
  let two: JobResult;
  beforeAll(async () => {
    one = await runJob(1, 'train-parity.mjs', { env: { KOLO_TEST_OUT: out }, timeoutMs: 50_000 });
    two = await runJob(2, 'train-parity.mjs', { env: { KOLO_TEST_OUT: out }, timeoutMs: 50_000 });
  }, 110_000);

  it('both jobs finish', () => {
    expect(one.code, one.stderr).toBe(0);
    expect(two.code, two.stderr).toBe(0);
  });

  for (const optimizer of optimizers) {
    it(`${optimizer}: the same weights (max relative difference <= 1e-5) and losses, identical on both ranks`, () => {
      const single = weights(1, optimizer, 0);
      const [r0, r1] = [weights(2, optimizer, 0), weights(2, optimizer, 1)];
      expect(Buffer.compare(Buffer.from(r0.buffer), Buffer.from(r1.buffer))).toBe(0);
      expect(single.length).toBe(12730);
      const differences = relativeDifferences(r0, single);
      console.log(`parity ${optimizer}: ${Object.entries(differences).map(([n, d]) => `${n} ${d.toExponential(2)}`).join(', ')}`);
      for (const [name, difference] of Object.entries(differences)) expect(difference, name).toBeLessThanOrEqual(1e-5);
      const [losses1] = perRank(one, `losses.${optimizer}`, 1) as number[][];
      const [losses2] = perRank(two, `losses.${optimizer}`, 2) as number[][];
      losses2!.forEach((loss, step) => expect(loss, `step ${step}`).toBeCloseTo(losses1![step]!, 5));
      expect(losses1![19]!).toBeLessThan(losses1![0]!);
    });
  }
});
