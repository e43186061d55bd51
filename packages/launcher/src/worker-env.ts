import type { WorkerPlacement } from './plan.js';

/** What every worker of a job shares. */
export interface JobEnvironment {
  readonly storeAddr: string;
  readonly storePort: number;
  readonly secret: string;
  readonly jobId: string;
}

/**
 * The `KOLO_*` variables one worker gets (core reads them in `init()`).
 *
 * @example
 * ```ts
 * workerEnv(placement, { storeAddr: '127.0.0.1', storePort: 40123, secret, jobId }).KOLO_RANK; // '0'
 * ```
 */
export function workerEnv(worker: WorkerPlacement, job: JobEnvironment): Record<string, string> {
  return {
    KOLO_RANK: String(worker.rank),
    KOLO_SIZE: String(worker.size),
    KOLO_LOCAL_RANK: String(worker.localRank),
    KOLO_LOCAL_SIZE: String(worker.localSize),
    KOLO_CROSS_RANK: String(worker.crossRank),
    KOLO_CROSS_SIZE: String(worker.crossSize),
    KOLO_STORE_ADDR: job.storeAddr,
    KOLO_STORE_PORT: String(job.storePort),
    KOLO_JOB_SECRET: job.secret,
    KOLO_JOB_ID: job.jobId,
    KOLO_HOSTNAME: worker.bindAddress,
  };
}
