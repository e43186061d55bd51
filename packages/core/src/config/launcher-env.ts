import type { Env } from './config-options.js';

/**
 * Which launcher's environment describes this process.
 *
 * @example
 * ```ts
 * const launcher: LauncherKind = resolveConfig().launcher; // e.g. 'torchrun'
 * ```
 */
export type LauncherKind = 'kolo' | 'horovod' | 'mpi' | 'torchrun' | 'none';

/** The six topology fields. */
export type TopologyKey = 'rank' | 'size' | 'localRank' | 'localSize' | 'crossRank' | 'crossSize';

/** Per launcher: the variables that carry each topology field, first match wins. */
export const launcherVariables: Readonly<
  Record<Exclude<LauncherKind, 'none'>, Readonly<Partial<Record<TopologyKey, readonly string[]>>>>
> = {
  kolo: {
    rank: ['KOLO_RANK'],
    size: ['KOLO_SIZE'],
    localRank: ['KOLO_LOCAL_RANK'],
    localSize: ['KOLO_LOCAL_SIZE'],
    crossRank: ['KOLO_CROSS_RANK'],
    crossSize: ['KOLO_CROSS_SIZE'],
  },
  horovod: {
    rank: ['HOROVOD_RANK'],
    size: ['HOROVOD_SIZE'],
    localRank: ['HOROVOD_LOCAL_RANK'],
    localSize: ['HOROVOD_LOCAL_SIZE'],
    crossRank: ['HOROVOD_CROSS_RANK'],
    crossSize: ['HOROVOD_CROSS_SIZE'],
  },
  mpi: {
    rank: ['OMPI_COMM_WORLD_RANK', 'PMI_RANK'],
    size: ['OMPI_COMM_WORLD_SIZE', 'PMI_SIZE'],
    localRank: ['OMPI_COMM_WORLD_LOCAL_RANK', 'MPI_LOCALRANKID'],
    localSize: ['OMPI_COMM_WORLD_LOCAL_SIZE', 'MPI_LOCALNRANKS'],
  },
  torchrun: {
    rank: ['RANK'],
    size: ['WORLD_SIZE'],
    localRank: ['LOCAL_RANK'],
    localSize: ['LOCAL_WORLD_SIZE'],
    crossRank: ['GROUP_RANK'],
    crossSize: ['GROUP_WORLD_SIZE'],
  },
};

const isSet = (env: Env, name: string): boolean => (env[name] ?? '').trim() !== '';

/**
 * Which launcher started this process, judged by the variables it sets, in the order Kolo
 * trusts them: kolorun (`KOLO_RANK`/`KOLO_SIZE`), horovodrun (`HOROVOD_RANK`/`HOROVOD_SIZE`),
 * Open MPI or MPICH (`OMPI_COMM_WORLD_RANK`, `PMI_RANK`), torchrun (`RANK` and `WORLD_SIZE`).
 *
 * @example
 * ```ts
 * detectLauncher({ RANK: '0', WORLD_SIZE: '2' }); // 'torchrun'
 * ```
 */
export function detectLauncher(env: Env): LauncherKind {
  if (isSet(env, 'KOLO_RANK') || isSet(env, 'KOLO_SIZE')) return 'kolo';
  if (isSet(env, 'HOROVOD_RANK') || isSet(env, 'HOROVOD_SIZE')) return 'horovod';
  if (isSet(env, 'OMPI_COMM_WORLD_RANK') || isSet(env, 'PMI_RANK')) return 'mpi';
  if (isSet(env, 'RANK') && isSet(env, 'WORLD_SIZE')) return 'torchrun';
  return 'none';
}
