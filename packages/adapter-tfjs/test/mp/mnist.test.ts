import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { perRank, runJob, type JobResult } from './run-job.js';

// The example itself, run under kolorun -np 2. runJob resolves workers relative to ./workers.
const example = join('..', '..', '..', '..', '..', 'examples', 'tfjs-mnist', 'index.mjs');

interface MnistResult {
  accuracy: number;
  seconds: number;
  weights: string;
}

async function runExample(args: string[]): Promise<JobResult> {
  const directory = args.includes('--checkpoint-dir') ? [] : ['--checkpoint-dir', await mkdtemp(join(tmpdir(), 'kolo-mnist-'))];
  const job = await runJob(2, example, { args: [...args, ...directory], timeoutMs: 110_000 });
  expect(job.code, `${job.stdout}\n${job.stderr}`).toBe(0);
  return job;
}

/** The `weights sha256` each rank printed last, in rank order. */
function finalHashes(job: JobResult, label = 'weights'): string[] {
  return [0, 1].map((r) => {
    const lines = job.stdout.split('\n').filter((l) => l.includes(`rank ${r} ${label} sha256 `));
    return lines.at(-1)?.split(' sha256 ')[1] ?? `rank ${r} printed no ${label} hash`;
  });
}

// A short run (a quarter of the digits, 2 epochs) keeps each job near 20 s on 2 busy cores. The
// example is seeded end to end (weights, sampler, augmentation), so it is deterministic: it
// scores 0.859 (chance is 0.10), and 0.80 catches a broken pipeline without depending on the last
// digit. The full run (8,006 digits, 6 epochs: 0.966) is `npm run demo`.
const shortRun = ['--train-samples', '2000', '--epochs', '2'];

describe('examples/tfjs-mnist under kolorun -np 2', () => {
  let fp32: number | undefined;

  it('learns real digits: held-out accuracy above 0.80 after a short run, same weights on both ranks', { timeout: 120_000 }, async () => {
    const job = await runExample(shortRun);
    const [a, b] = perRank(job, 'mnist', 2) as MnistResult[];
    expect(a?.accuracy).toBe(b?.accuracy);
    expect(a?.accuracy).toBeGreaterThan(0.8);
    expect(b?.weights).toBe(a?.weights);
    expect(job.stdout).toMatch(/\[0\]<stdout>: epoch 2\/2 {2}loss \d\.\d{4} {2}accuracy 0\.\d{4} {2}\d+ samples\/s/);
    fp32 = a?.accuracy;
  });

  it('trains as well with fp16 gradient compression (within 1 point of fp32)', { timeout: 120_000 }, async () => {
    const job = await runExample([...shortRun, '--fp16']);
    const [a] = perRank(job, 'mnist', 2) as MnistResult[];
    expect(fp32, 'the fp32 run above must pass first').toBeDefined();
    expect(Math.abs((a?.accuracy ?? 0) - (fp32 ?? 1))).toBeLessThanOrEqual(0.01);
  });

  it('stopped after epoch 2 and started again, resumes at epoch 3 from the checkpoint with identical weights', { timeout: 120_000 }, async () => {
    const directory = await mkdtemp(join(tmpdir(), 'kolo-mnist-resume-'));
    const args = ['--train-samples', '1000', '--epochs', '3', '--checkpoint-dir', directory];
    const first = await runExample([...args, '--stop-after-epoch', '2']);
    const stopped = finalHashes(first);
    expect(stopped[1]).toBe(stopped[0]);
    expect(first.stdout).not.toContain('epoch 3/3');

    const second = await runExample(args);
    expect(second.stdout).toContain(`resumed from the checkpoint of epoch 2 in ${directory}; continuing at epoch 3`);
    expect(finalHashes(second, 'restored weights')).toEqual(stopped);
    expect(second.stdout).not.toMatch(/epoch [12]\/3 /);
    expect(second.stdout).toContain('epoch 3/3');
    const [a, b] = perRank(second, 'mnist', 2) as MnistResult[];
    expect(b?.weights).toBe(a?.weights);
  });
});

