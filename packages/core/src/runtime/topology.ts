import { requireRunning } from './runtime-state.js';

const engineConfig = () => requireRunning().config.engine;

/**
 * This process's rank in [0, size()). Throws NotInitializedError before `init()`.
 *
 * @example
 * ```ts
 * if (rank() === 0) console.log('I log for everyone');
 * ```
 */
export function rank(): number {
  return engineConfig().rank;
}

/**
 * Number of processes in the job.
 *
 * @example
 * ```ts
 * const lr = 0.01 * size(); // scale the learning rate with the number of workers
 * ```
 */
export function size(): number {
  return engineConfig().size;
}

/**
 * Rank among the processes on this host, e.g. to pick a GPU.
 *
 * @example
 * ```ts
 * const device = `cuda:${localRank()}`;
 * ```
 */
export function localRank(): number {
  return engineConfig().localRank;
}

/**
 * Number of processes on this host.
 *
 * @example
 * ```ts
 * const threadsEach = Math.floor(os.availableParallelism() / localSize());
 * ```
 */
export function localSize(): number {
  return engineConfig().localSize;
}

/**
 * Index of this host among the hosts (Horovod's cross rank).
 *
 * @example
 * ```ts
 * if (localRank() === 0) console.log(`host ${crossRank()} ready`);
 * ```
 */
export function crossRank(): number {
  return engineConfig().crossRank;
}

/**
 * Number of hosts.
 *
 * @example
 * ```ts
 * const multiHost = crossSize() > 1;
 * ```
 */
export function crossSize(): number {
  return engineConfig().crossSize;
}

/**
 * The transport this engine runs on: `gloo`, `mpi` or `nccl`.
 *
 * @example
 * ```ts
 * if (transport() === 'mpi') console.log('started by mpirun');
 * ```
 */
export function transport(): 'gloo' | 'mpi' | 'nccl' {
  return engineConfig().transport;
}
