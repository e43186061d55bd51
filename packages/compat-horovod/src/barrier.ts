import * as core from '@kolo/core';
import { horovodCall } from './horovod-errors.js';
import { readOptions } from './options.js';
import type { ProcessSetOption } from './process-sets.js';

/**
 * Options of {@link barrier}.
 *
 * @example
 * ```ts
 * const options: BarrierOptions = { name: 'epoch.end' };
 * ```
 */
export interface BarrierOptions extends ProcessSetOption {
  /** Matches the barrier across ranks, as given; default `barrier.noname.<n>`. */
  readonly name?: string;
}

/**
 * Resolves once every rank has reached this barrier.
 *
 * @example
 * ```ts
 * if (hvd.rank() === 0) await save(model);
 * await hvd.barrier();
 * ```
 */
export function barrier(options?: BarrierOptions): Promise<void> {
  return horovodCall(() =>
    core.barrier(readOptions(options, { opName: 'barrier', allowed: ['name', 'processSet'] })),
  );
}
