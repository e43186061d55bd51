import { visibleDevice } from './device-and-ssh-flags.js';
import type { LaunchOptions } from './launch-options.js';
import type { WorkerPlacement } from './plan.js';
import { torchrunEnv } from './torchrun-flags.js';

/** What every worker of a job shares. */
export interface JobEnvironment {
  /** Address workers reach the store at (`KOLO_STORE_ADDR`). */
  readonly storeAddr: string;
  /** Port of the store (`KOLO_STORE_PORT`). */
  readonly storePort: number;
  /** The job secret (`KOLO_JOB_SECRET`); remote workers get it on stdin. */
  readonly secret: string;
  /** The job id (`KOLO_JOB_ID`). */
  readonly jobId: string;
  /** `KOLO_TRANSPORT`: the transport chosen with `--gloo`; unset lets the engine choose. */
  readonly transport?: string;
  /** `KOLO_IFACE`: the network interface from `--network-interface`. */
  readonly iface?: string;
  /** `KOLO_TIMELINE`: the timeline file from `--timeline-filename`. */
  readonly timeline?: string;
  /** `KOLO_ELASTIC=1` and `KOLO_WORKER_ID` (the worker's first rank, stable across generations). */
  readonly elastic?: boolean;
  /** `CUDA_VISIBLE_DEVICES` per local rank, from `--gpus`. */
  readonly gpus?: LaunchOptions['gpus'];
  /** `KOLO_SHM_TAG`: names this launcher's shared-memory segments (see `sweepSharedMemory`). */
  readonly shmTag?: string;
}

/**
 * The variables one worker gets: the `KOLO_*` ones core reads in `init()`, and horovodrun's
 * `HOROVOD_*` and torchrun's `RANK`, `LOCAL_RANK`, `WORLD_SIZE`, … (same values) so scripts that
 * read those directly run unchanged.
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
    ...(job.transport !== undefined && { KOLO_TRANSPORT: job.transport }),
    ...(job.iface !== undefined && { KOLO_IFACE: job.iface }),
    ...(job.timeline !== undefined && { KOLO_TIMELINE: job.timeline }),
    ...(job.elastic === true && { KOLO_ELASTIC: '1', KOLO_WORKER_ID: String(worker.rank) }),
    ...(job.shmTag !== undefined && { KOLO_SHM_TAG: job.shmTag }),
    HOROVOD_RANK: String(worker.rank),
    HOROVOD_SIZE: String(worker.size),
    HOROVOD_LOCAL_RANK: String(worker.localRank),
    HOROVOD_LOCAL_SIZE: String(worker.localSize),
    HOROVOD_CROSS_RANK: String(worker.crossRank),
    HOROVOD_CROSS_SIZE: String(worker.crossSize),
    HOROVOD_HOSTNAME: worker.host,
    ...torchrunEnv(worker, job),
    ...cudaDevices(worker, job.gpus),
  };
}

function cudaDevices(worker: WorkerPlacement, gpus: LaunchOptions['gpus']): Record<string, string> {
  const device = visibleDevice(gpus, worker.localRank, worker.localSize);
  return device === undefined ? {} : { CUDA_VISIBLE_DEVICES: device };
}
