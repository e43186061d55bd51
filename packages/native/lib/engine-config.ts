/**
 * What `startEngine` takes (part of the addon's contract, binding.ts): the fully resolved
 * configuration of one engine, its rendezvous store and its autotuner, and the tuning it
 * reports back.
 */

/** Where ranks meet to exchange transport addresses. */
export type NativeStoreConfig =
  | {
      /** The launcher's TCP store (kolorun, or rank 0 under torchrun-style variables). */
      readonly kind: 'tcp';
      /** The store's address. */
      readonly host: string;
      /** The store's TCP port. */
      readonly port: number;
      /** The per-job secret both sides prove with HMAC-SHA256. */
      readonly secret: string;
    }
  | {
      /** A directory of files on a file system every rank sees (single host, or mpirun jobs). */
      readonly kind: 'file';
      /** The directory. */
      readonly path: string;
    };

/** The autotuner's settings, resolved from `KOLO_AUTOTUNE*` / `HOROVOD_AUTOTUNE*` and init options. */
export interface NativeAutotuneConfig {
  /** Rank 0 searches the fusion threshold and cycle time; every rank applies its choice. */
  readonly enabled: boolean;
  /** CSV file rank 0 writes, one row per sample and a final best row; empty for none. */
  readonly logPath: string;
  /** Scoring windows discarded at the start, while caches and buffers warm up. */
  readonly warmupSamples: number;
  /** Engine cycles that allreduced something per scoring window. */
  readonly stepsPerSample: number;
  /** Most candidates scored before the best is kept for the rest of the job. */
  readonly maxSamples: number;
  /** The user set the fusion threshold explicitly, so it is held, not searched. */
  readonly fusionThresholdFixed: boolean;
  /** The user set the cycle time explicitly, so it is held, not searched. */
  readonly cycleTimeFixed: boolean;
}

/** The fusion threshold and cycle time an engine applies now. */
export interface NativeTuning {
  /** Largest fused allreduce buffer in bytes. */
  readonly fusionThresholdBytes: number;
  /** Milliseconds between engine cycles once nothing is moving. */
  readonly cycleTimeMs: number;
  /** Rank 0's autotuner is still trying candidates (false when it finished or is off). */
  readonly searching: boolean;
}

/** The fully resolved configuration handed to the engine; C++ reads no environment of its own. */
export interface NativeEngineConfig {
  /** This process's rank in the job, 0 … size - 1. */
  readonly rank: number;
  /** The number of processes in the job. */
  readonly size: number;
  /** This process's rank among the processes on its host. */
  readonly localRank: number;
  /** The number of processes on this host. */
  readonly localSize: number;
  /** This host's index among the hosts (the rank among processes with the same localRank). */
  readonly crossRank: number;
  /** The number of hosts (processes with the same localRank). */
  readonly crossSize: number;
  /** Where the ranks meet to exchange transport addresses. */
  readonly store: NativeStoreConfig;
  /** Key prefix for this engine generation, so several generations share one store. */
  readonly storePrefix: string;
  /**
   * Where the launcher records the rank that failed first (`failure_rank`, `failure_reason` after
   * it): `kolo/`, or `kolo/elastic/gen<g>/` in elastic generation g > 0, so that a failure named
   * in one generation is not blamed for the next one's.
   */
  readonly failureKeyPrefix: string;
  /** Address the transport binds to (e.g. `127.0.0.1`); empty means `iface` or the host name. */
  readonly hostname: string;
  /** Network interface for the transport; empty means use `hostname`. */
  readonly iface: string;
  /** How long the background thread waits between negotiation cycles. */
  readonly cycleTimeMs: number;
  /** Largest fused allreduce buffer; 0 disables fusion. */
  readonly fusionThresholdBytes: number;
  /** Response-cache entries (Horovod's `HOROVOD_CACHE_CAPACITY`); 0 disables the cache. */
  readonly cacheCapacity: number;
  /** How long a rendezvous or collective may wait for a peer before failing with KOLO_TIMEOUT. */
  readonly timeoutMs: number;
  /** Reduce within each host, allreduce across hosts among local rank 0s, broadcast back. */
  readonly hierarchicalAllreduce: boolean;
  /**
   * Use the shared-memory transport when every rank is on this host (localSize == size), and
   * for the per-host stage of the hierarchical allreduce. Applies to `gloo` only.
   */
  readonly sharedMemory: boolean;
  /**
   * Whether shared-memory collectives may read the peers' memory with one copy
   * (`process_vm_readv`): `auto` (default) where the kernel allows it and a trial when the group
   * starts finds it no slower than two copies through the segment, `on` wherever the kernel
   * allows it, `off` never.
   */
  readonly singleCopy?: 'auto' | 'on' | 'off';
  /**
   * `gloo`, `mpi` or `nccl` (the last two when compiled in; MPI needs the process to have been
   * started by mpirun, NCCL one GPU per process: device `localRank % deviceCount`).
   */
  readonly transport: 'gloo' | 'mpi' | 'nccl';
  /** NCCL only: the CUDA device (index within CUDA_VISIBLE_DEVICES); -1 picks `localRank % deviceCount`. */
  readonly gpuDevice: number;
  /** Stall inspector: warn after this many ms (0 disables); end the job after stallShutdownMs (0: never). */
  readonly stallCheckMs: number;
  /** End the job after a tensor has stalled this long; 0 never ends it. */
  readonly stallShutdownMs: number;
  /** Chrome-trace file written by rank 0; empty for none. */
  readonly timelinePath: string;
  /** Also mark each engine cycle in the timeline. */
  readonly timelineMarkCycles: boolean;
  /** The autotuner; absent means off. */
  readonly autotune?: NativeAutotuneConfig;
  /**
   * Let the JS thread run negotiation cycles itself (a blocking call, or async calls whose peers
   * already wait) instead of handing them to the engine thread; default true. Must be false
   * when this process hosts the rendezvous store on its JS event loop: a cycle that adds a
   * process set waits on the store, which that blocked loop would never answer.
   */
  readonly callerCycles?: boolean;
  /**
   * Microseconds an async call's turn waits, after queueing its requests, for every other rank
   * to queue theirs (shared-memory transport only), so that each rank runs the cycle on its JS
   * thread instead of handing it to the engine thread and back; 0 hands it off at once unless
   * every peer already waits. Default 50; a batch of several calls adds 1 µs for each call
   * after the first.
   */
  readonly callerSpinUs?: number;
}
