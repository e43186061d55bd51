import { capabilities, isInitialized, size, transport } from '@kolo/core';
import { horovodCall, valueError } from './horovod-errors.js';

const built = (transport: string): boolean => capabilities().transports.includes(transport);

/** Horovod's message when MPI is asked for but not in use. */
export const mpiNotEnabledText =
  "Horovod MPI is not enabled; Please make sure it's installed and enabled.";

/**
 * True when the engine was compiled with Gloo (always, in Kolo).
 *
 * @example
 * ```ts
 * hvd.glooBuilt(); // true
 * ```
 */
export function glooBuilt(): boolean {
  return built('gloo');
}

/**
 * True when the engine was compiled with an MPI transport.
 *
 * @example
 * ```ts
 * if (!hvd.mpiBuilt()) console.log('Gloo only');
 * ```
 */
export function mpiBuilt(): boolean {
  return built('mpi');
}

/**
 * 1 when the engine was compiled with NCCL, else 0. Horovod returns the NCCL version code
 * (e.g. 21805); Kolo's capabilities do not carry the version, so only truthiness carries over.
 *
 * @example
 * ```ts
 * if (hvd.ncclBuilt()) console.log('GPU collectives available');
 * ```
 */
export function ncclBuilt(): number {
  return built('nccl') ? 1 : 0;
}

/**
 * True when the engine was compiled with CUDA support (which NCCL implies).
 *
 * @example
 * ```ts
 * hvd.cudaBuilt(); // false on a CPU-only build
 * ```
 */
export function cudaBuilt(): boolean {
  return built('nccl');
}

const running = (name: string): boolean => isInitialized() && transport() === name;

/**
 * True while the running engine's transport is Gloo (kolorun jobs, and the default elsewhere).
 *
 * @example
 * ```ts
 * await hvd.init();
 * hvd.glooEnabled(); // true under kolorun
 * ```
 */
export function glooEnabled(): boolean {
  return running('gloo');
}

/**
 * True while the running engine's transport is MPI (jobs started by mpirun on a build with MPI,
 * or `KOLO_TRANSPORT=mpi`).
 *
 * @example
 * ```ts
 * if (hvd.mpiEnabled()) console.log('started by mpirun');
 * ```
 */
export function mpiEnabled(): boolean {
  return running('mpi');
}

/**
 * Horovod's check for MPI threading: true while the engine runs MPI (Kolo initializes MPI for
 * threads, asking for MPI_THREAD_MULTIPLE and refusing less than MPI_THREAD_SERIALIZED);
 * otherwise Horovod's "Horovod MPI is not enabled; …" as a TypeError.
 *
 * @example
 * ```ts
 * if (hvd.mpiEnabled() && hvd.mpiThreadsSupported()) console.log('MPI with threads');
 * ```
 */
export function mpiThreadsSupported(): boolean {
  horovodCall(size);
  if (running('mpi')) return true;
  throw valueError(mpiNotEnabledText, 'type');
}

/**
 * Always false: Kolo has no IBM DDL.
 *
 * @example
 * ```ts
 * hvd.ddlBuilt(); // false
 * ```
 */
export function ddlBuilt(): boolean {
  return false;
}

/**
 * Always false: Kolo has no Intel oneCCL.
 *
 * @example
 * ```ts
 * hvd.cclBuilt(); // false
 * ```
 */
export function cclBuilt(): boolean {
  return false;
}

/**
 * Always false: Kolo has no ROCm support.
 *
 * @example
 * ```ts
 * hvd.rocmBuilt(); // false
 * ```
 */
export function rocmBuilt(): boolean {
  return false;
}
