// This package's multi-process jobs: workers live in ./workers (see test-support/run-job.ts).
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runJob as runSharedJob, type JobResult, type RunJobOptions } from '../../../../test-support/run-job.js';

export { parseResults, perRank, repoRoot, type JobResult, type Launcher } from '../../../../test-support/run-job.js';

const here = dirname(fileURLToPath(import.meta.url));

/** Runs `worker` (a file in ./workers, or an absolute path) on `np` ranks. */
export function runJob(np: number, worker: string, options?: RunJobOptions): Promise<JobResult> {
  return runSharedJob(np, isAbsolute(worker) ? worker : join(here, 'workers', worker), options);
}
