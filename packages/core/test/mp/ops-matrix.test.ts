import { describe, expect, it } from 'vitest';
import { checkMatrix } from './expected-results.js';
import { type Launcher, runJob } from './run-job.js';

const transports: [Launcher, string][] = [
  ['kolorun', 'gloo'],
  ['mpirun', 'mpi'],
  ['kolorun-mpi', 'mpi'],
];

describe.each(transports.flatMap(([launcher, transport]) => [2, 3, 4].map((size) => ({ launcher, transport, size }))))(
  'every op x every dtype on $size workers over $transport',
  ({ launcher, transport, size }) => {
  it('gives the exact results on every rank', { timeout: 180_000 }, async () => {
    const job = await runJob(size, 'ops-matrix.mjs', { launcher, env: { KOLO_TRANSPORT: transport } });
    expect(job.stdout).toContain(`"key":"transport","value":"${transport}"`);
    expect(job.code, job.stderr).toBe(0);
    checkMatrix(job, size);
  });
},
);
