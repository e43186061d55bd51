import { capabilities } from '@kolo/core';
import { runtimeError } from './torch-errors.js';

/**
 * torch's `is_available`: always true (the package is the distributed support).
 *
 * @example
 * ```ts
 * if (dist.isAvailable()) await dist.initProcessGroup();
 * ```
 */
export function isAvailable(): boolean {
  return true;
}

/**
 * torch's `is_gloo_available`: true (Gloo is always built into Kolo's engine).
 *
 * @example
 * ```ts
 * dist.isGlooAvailable(); // true
 * ```
 */
export function isGlooAvailable(): boolean {
  return true;
}

/**
 * torch's `is_mpi_available`: whether this build of the engine has the MPI transport (loads the
 * native addon).
 *
 * @example
 * ```ts
 * const backend = dist.isMpiAvailable() ? 'mpi' : 'gloo';
 * ```
 */
export function isMpiAvailable(): boolean {
  return capabilities().transports.includes('mpi');
}

/**
 * torch's `is_nccl_available`: false, as there are no CUDA tensors here.
 *
 * @example
 * ```ts
 * dist.isNcclAvailable(); // false
 * ```
 */
export function isNcclAvailable(): boolean {
  return false;
}

/**
 * torch's `is_torchelastic_launched`: whether `TORCHELASTIC_RUN_ID` is set.
 *
 * @example
 * ```ts
 * dist.isTorchelasticLaunched(); // false under kolorun
 * ```
 */
export function isTorchelasticLaunched(): boolean {
  return process.env.TORCHELASTIC_RUN_ID !== undefined;
}

/**
 * torch's `get_node_local_rank`: `LOCAL_RANK` from the environment, else `fallbackRank`, else
 * torch's RuntimeError.
 *
 * @example
 * ```ts
 * const local = dist.getNodeLocalRank({ fallbackRank: 0 });
 * ```
 */
export function getNodeLocalRank(options: { readonly fallbackRank?: number } = {}): number {
  const text = process.env.LOCAL_RANK;
  if (text !== undefined && text !== '') return Number(text);
  if (options.fallbackRank !== undefined) return options.fallbackRank;
  throw runtimeError(
    'LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow `get_node_local_rank` to work, ' +
      'assuming you are not running in a multi-device context and want the code to run locally instead.',
  );
}
