import { requireRunning } from './runtime-state.js';

/**
 * Whether this job's collectives read the peers' memory with one copy (`process_vm_readv`), as
 * the `singleCopy` option and, under `auto`, the trial when the job started decided. False off
 * the shared-memory transport (more than one host, MPI, NCCL, `sharedMemory: false`). Throws
 * NotInitializedError before `init()`.
 *
 * @example
 * ```ts
 * await init();
 * if (rank() === 0) console.log('one copy:', singleCopy());
 * ```
 */
export function singleCopy(): boolean {
  const { engine } = requireRunning();
  return engine.singleCopy?.() ?? false;
}
