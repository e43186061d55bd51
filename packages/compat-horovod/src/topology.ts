import * as core from '@kolo/core';
import { horovodCall } from './horovod-errors.js';
import { knownHomogeneity } from './homogeneity.js';

/**
 * This process's rank in the job, in [0, size()). Before `init()` it throws Horovod's
 * "Horovod has not been initialized; use hvd.init()." (a NotInitializedError).
 *
 * @example
 * ```ts
 * if (hvd.rank() === 0) console.log('chief');
 * ```
 */
export function rank(): number {
  return horovodCall(() => core.rank());
}

/** Number of processes in the job. @example `const workers = hvd.size();` */
export function size(): number {
  return horovodCall(() => core.size());
}

/** Rank among the processes on this host. @example `const device = hvd.localRank();` */
export function localRank(): number {
  return horovodCall(() => core.localRank());
}

/** Number of processes on this host. @example `const perHost = hvd.localSize();` */
export function localSize(): number {
  return horovodCall(() => core.localSize());
}

/** Index of this host among the job's hosts. @example `const node = hvd.crossRank();` */
export function crossRank(): number {
  return horovodCall(() => core.crossRank());
}

/** Number of hosts in the job. @example `const nodes = hvd.crossSize();` */
export function crossSize(): number {
  return horovodCall(() => core.crossSize());
}

/**
 * True when every host runs the same number of processes (learnt by `hvd.init()`).
 *
 * @example
 * ```ts
 * if (!hvd.isHomogeneous()) console.warn('uneven hosts');
 * ```
 */
export function isHomogeneous(): boolean {
  horovodCall(() => core.size());
  const known = knownHomogeneity();
  if (known === undefined) {
    const error = new Error(
      "isHomogeneous() needs hvd.init(): the engine was started by @kolo/core's init(), which " +
        'does not learn the hosts; call hvd.init() on every rank (it is a no-op for the engine).',
    );
    throw Object.assign(error, { code: 'ERR_KOLO_HVD_INIT_REQUIRED' });
  }
  return known;
}
