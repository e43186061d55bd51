import type { NativeStoreConfig } from '@kolo/native';

/**
 * Everything `init()` can be told explicitly. Each field overrides the environment; fields left
 * out come from `KOLO_*`, then compatible launcher variables, then the defaults.
 *
 * @example
 * ```ts
 * await init({ cycleTimeMs: 2, fusionThresholdBytes: 64 * 1024 * 1024 });
 * ```
 */
export interface ConfigOptions {
  /** This process's rank in the job, in [0, size). */
  readonly rank?: number;
  /** Number of processes in the job. */
  readonly size?: number;
  /** Rank among the processes on this host. */
  readonly localRank?: number;
  /** Number of processes on this host. */
  readonly localSize?: number;
  /** Index of this host among the hosts (Horovod's cross rank). */
  readonly crossRank?: number;
  /** Number of hosts. */
  readonly crossSize?: number;
  /** Where ranks meet: a TCP store (`kolorun`'s) or a shared directory. */
  readonly store?: NativeStoreConfig;
  /** Names this job in store keys, so several jobs can share one store. */
  readonly jobId?: string;
  /** Address the transport binds to; empty means `iface` or the host name. */
  readonly hostname?: string;
  /** Network interface for the transport, e.g. `eth0`. */
  readonly iface?: string;
  /** Milliseconds between engine cycles; lower adds CPU, higher adds latency. */
  readonly cycleTimeMs?: number;
  /** Largest fused allreduce buffer in bytes; 0 disables fusion. */
  readonly fusionThresholdBytes?: number;
  /** Response-cache entries (names agreed by a one-byte vote once negotiated); 0 disables it. */
  readonly cacheCapacity?: number;
  /**
   * Microseconds the end of a JS turn that queued async calls waits for the other ranks to
   * queue theirs (shared memory on one host), so each runs the cycle on its own JS thread
   * without a hand-off to the engine thread; 0 hands off at once. Default 50, or 500 when the
   * host runs more ranks than this process has CPUs (`defaultCallerSpinUs`). A turn of several
   * calls waits 1 µs longer for each call after the first: the peers take about as much longer
   * to queue theirs.
   */
  readonly callerSpinUs?: number;
  /** How long a rendezvous or a collective may wait for peers before failing. */
  readonly timeoutMs?: number;
  /** Warn about tensors some ranks submitted and others did not after this long; 0 disables. */
  readonly stallCheckTimeMs?: number;
  /** End the job when such a stall lasts this long; 0 (default) never does. */
  readonly stallShutdownTimeMs?: number;
  /** Allreduce within each host, then across hosts among local rank 0s (multi-host jobs only). */
  readonly hierarchicalAllreduce?: boolean;
  /** Ranks on one host exchange data through shared memory (Gloo transport; default true). */
  readonly sharedMemory?: boolean;
  /**
   * Whether shared-memory collectives read the peers' memory with one copy (`process_vm_readv`,
   * as Open MPI's shared-memory transport): `auto` (default) where the kernel allows it and a
   * timed trial when the job starts finds it no slower than two copies through the segment
   * (allreduces of 8 MiB and more then time both ways on their first calls, per size, and keep
   * the faster), `on` wherever the kernel allows it, `off` never (`KOLO_SHM_SINGLE_COPY`).
   * `singleCopy()` tells what the job uses.
   */
  readonly singleCopy?: 'auto' | 'on' | 'off';
  /**
   * `gloo` (TCP, default), `mpi` (default when started by mpirun, if this build has MPI) or
   * `nccl` (GPU collectives on host arrays, one GPU per process, if this build has NCCL).
   */
  readonly transport?: 'gloo' | 'mpi' | 'nccl';
  /**
   * NCCL only: the CUDA device this process uses, counted within `CUDA_VISIBLE_DEVICES`
   * (`KOLO_GPU_DEVICE`). Default: the local rank, modulo the number of visible devices.
   */
  readonly gpuDevice?: number;
  /** Chrome-trace file rank 0 writes (open it in Perfetto); empty: no timeline. */
  readonly timelinePath?: string;
  /** Add a CYCLE_START marker per engine cycle to the timeline. */
  readonly timelineMarkCycles?: boolean;
  /**
   * Capture the caller's stack when an async collective is called (the first 8 of a JS turn), so
   * a failure names the exact call site even when nothing awaits it directly (`KOLO_CALLER_STACKS=1`).
   * It costs about 20 µs a call. Off by default: errors carry V8's async stack instead, the
   * functions awaiting the call (`at async trainStep`).
   */
  readonly callerStacks?: boolean;
  /**
   * Rank 0 searches the fusion threshold and cycle time for the most allreduced bytes per µs and
   * every rank applies its choice (`KOLO_AUTOTUNE`); values set explicitly are held fixed.
   */
  readonly autotune?: boolean;
  /** CSV file rank 0 writes with every autotune sample and the chosen best (`KOLO_AUTOTUNE_LOG`). */
  readonly autotuneLogPath?: string;
  /** Autotune scoring windows discarded first, while buffers warm up (default 3). */
  readonly autotuneWarmupSamples?: number;
  /** Engine cycles that allreduced something per autotune scoring window (default 10). */
  readonly autotuneStepsPerSample?: number;
  /** Most candidates the autotuner scores before keeping the best (default 20). */
  readonly autotuneMaxSamples?: number;
  /**
   * Elastic membership generation (set by `elastic.run`, not by hand). Above 0 the topology comes
   * from the `rank`/`size`/... options alone, because the launcher's `KOLO_RANK`/`KOLO_SIZE`
   * describe generation 0, and store keys are scoped `kolo/<jobId>/elastic<N>`.
   */
  readonly elasticGeneration?: number;
}

/**
 * The keys of {@link ConfigOptions}, for misspelling checks.
 *
 * @example
 * ```ts
 * configOptionKeys.includes('timeoutMs'); // true
 * ```
 */
export const configOptionKeys: readonly (keyof ConfigOptions)[] = [
  'rank',
  'size',
  'localRank',
  'localSize',
  'crossRank',
  'crossSize',
  'store',
  'jobId',
  'hostname',
  'iface',
  'cycleTimeMs',
  'fusionThresholdBytes',
  'cacheCapacity',
  'callerSpinUs',
  'timeoutMs',
  'stallCheckTimeMs',
  'stallShutdownTimeMs',
  'transport',
  'hierarchicalAllreduce',
  'sharedMemory',
  'singleCopy',
  'gpuDevice',
  'timelinePath',
  'timelineMarkCycles',
  'callerStacks',
  'autotune',
  'autotuneLogPath',
  'autotuneWarmupSamples',
  'autotuneStepsPerSample',
  'autotuneMaxSamples',
  'elasticGeneration',
];

/**
 * The environment as `resolveConfig` reads it (a plain map such as `process.env`).
 *
 * @example
 * ```ts
 * resolveConfig({}, { KOLO_RANK: '0', KOLO_SIZE: '1' } satisfies Env);
 * ```
 */
export type Env = Readonly<Record<string, string | undefined>>;
