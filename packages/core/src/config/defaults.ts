/**
 * Every default Kolo's configuration uses, in one place.
 *
 * @example
 * ```ts
 * configDefaults.fusionThresholdBytes; // 134217728 (128 MiB, as Horovod)
 * ```
 */
export const configDefaults = {
  /** Horovod's `HOROVOD_CYCLE_TIME` default. */
  cycleTimeMs: 1,
  /** Horovod's `HOROVOD_FUSION_THRESHOLD` default, 128 MiB. */
  fusionThresholdBytes: 128 * 1024 * 1024,
  /** Horovod's `HOROVOD_CACHE_CAPACITY` default. */
  cacheCapacity: 1024,
  /**
   * Kolo's own: how long a JS turn with async calls waits for the peers' turns (µs), while every
   * rank on the host has a CPU of its own; see `defaultCallerSpinUs` in this module.
   */
  callerSpinUs: 50,
  /** The same with more ranks on the host than CPUs: their turns wait on the scheduler. */
  callerSpinUsOversubscribed: 500,
  /** Horovod's `HOROVOD_GLOO_TIMEOUT_SECONDS` default, 30 s. */
  timeoutMs: 30_000,
  /** Horovod's `HOROVOD_STALL_CHECK_TIME_SECONDS` default, 60 s. */
  stallCheckTimeMs: 60_000,
  /** Horovod's `HOROVOD_STALL_SHUTDOWN_TIME_SECONDS` default: never shut down. */
  stallShutdownTimeMs: 0,
  /** No fixed address: the transport binds to `iface`, or to the host name. */
  hostname: '',
  /** No fixed network interface. */
  iface: '',
  /** Horovod's `HOROVOD_AUTOTUNE_WARMUP_SAMPLES` default. */
  autotuneWarmupSamples: 3,
  /** Horovod's `HOROVOD_AUTOTUNE_STEPS_PER_SAMPLE` default. */
  autotuneStepsPerSample: 10,
  /** Horovod's `HOROVOD_AUTOTUNE_BAYES_OPT_MAX_SAMPLES` default. */
  autotuneMaxSamples: 20,
  /** Job id when no launcher names one. */
  jobId: 'local',
  /** torchrun's agent owns MASTER_PORT, so Kolo's store listens one port above it. */
  torchrunStorePortOffset: 1,
  /** Secret of a store nobody configured one for (torchrun without KOLO_JOB_SECRET). */
  secret: '',
} as const;

/**
 * The caller spin when none is set: `configDefaults.callerSpinUs`, or the longer
 * `callerSpinUsOversubscribed` when this host runs more ranks than this process has CPUs. A
 * peer that has not reached its turn is then usually waiting for a CPU, not late, and the
 * spinning caller yields the CPU on every few polls; giving up after 50 µs handed most cycles to
 * the engine thread and back (4 ranks on 2 cores: a 4 KiB awaited allreduce took 170–300 µs
 * with 50 µs, 50–70 µs with 500).
 *
 * @example
 * ```ts
 * defaultCallerSpinUs(4, 2); // 500
 * defaultCallerSpinUs(2, 8); // 50
 * ```
 */
export function defaultCallerSpinUs(localSize: number, cpus: number): number {
  return localSize > cpus ? configDefaults.callerSpinUsOversubscribed : configDefaults.callerSpinUs;
}
