import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { perRank, repoRoot, runJob } from './run-job.js';

const example = join(repoRoot, 'examples', 'horovod-style', 'index.mjs');

describe('examples/horovod-style (Horovod\'s Keras MNIST example on \'@kolo/compat-horovod/tfjs\') on 2 ranks', () => {
  it('changes only the import, trains to > 80% held-out accuracy, and ends with identical weights', { timeout: 120_000 }, async () => {
    const lines = readFileSync(example, 'utf8').split('\n').filter((line) => /kolo/i.test(line));
    expect(lines).toEqual(["import * as hvd from '@kolo/compat-horovod/tfjs';"]);

    const job = await runJob(2, example, { args: ['--epochs', '2', '--train-samples', '2000'], timeoutMs: 110_000 });
    expect(job.code, job.stderr).toBe(0);
    const [a, b] = perRank(job, 'horovod-style', 2) as { accuracy: number; weights: string }[];
    // Gradients are averaged by one allreduce per step and rank 0's initial weights are broadcast,
    // so both ranks hold bitwise identical weights (and so score the same accuracy).
    expect(b!.weights).toBe(a!.weights);
    expect(b!.accuracy).toBe(a!.accuracy);
    // 2000 digits, 2 epochs of Adam at 0.001 × 2 on a 784-128-10 MLP measure about 0.87 on the
    // 2004 held-out digits (chance is 0.1); 0.8 leaves room for the random initialization and
    // shuffling while still catching broken averaging, broadcasting or a wrong learning rate.
    expect(a!.accuracy).toBeGreaterThan(0.8);
  });
});
