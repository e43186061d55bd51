import { checkOptions, expectFiniteNumber, invalidArgument } from '@kolo/core';
import type { ProcessGroup } from '../process-group.js';

/**
 * Options of `DistributedDataParallel`, with torch's defaults.
 *
 * @example
 * ```ts
 * new DistributedDataParallel(model, { bucketCapMb: 25, findUnusedParameters: true } satisfies DistributedDataParallelOptions);
 * ```
 */
export interface DistributedDataParallelOptions {
  /** Size of each gradient bucket after the first (which is 1 MiB), in MiB; default 25. */
  readonly bucketCapMb?: number;
  /** Broadcast rank 0's buffers (non-trainable weights, e.g. BatchNorm statistics) before every backward; default true. */
  readonly broadcastBuffers?: boolean;
  /** Tolerate parameters without a gradient (they are reduced as zeros); default false, which throws torch's error. */
  readonly findUnusedParameters?: boolean;
  /** The group to train over; default the world. */
  readonly processGroup?: ProcessGroup;
  /** Verify the model across ranks and broadcast rank 0's state at construction; default true. */
  readonly initSync?: boolean;
}

/** {@link DistributedDataParallelOptions} with every default filled in. */
export type ResolvedDdpOptions = Required<Omit<DistributedDataParallelOptions, 'processGroup'>> & Pick<DistributedDataParallelOptions, 'processGroup'>;

const flag = (value: unknown, name: string, fallback: boolean): boolean => {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw invalidArgument({ what: 'a boolean', name, value });
  return value;
};

/**
 * Checks the options and fills in torch's defaults.
 *
 * @example
 * ```ts
 * resolveDdpOptions({}).bucketCapMb; // 25
 * ```
 */
export function resolveDdpOptions(options: DistributedDataParallelOptions | undefined): ResolvedDdpOptions {
  const o = checkOptions(options, {
    opName: 'DistributedDataParallel',
    allowed: ['bucketCapMb', 'broadcastBuffers', 'findUnusedParameters', 'processGroup', 'initSync'],
  });
  const bucketCapMb = expectFiniteNumber(o.bucketCapMb ?? 25, 'bucketCapMb');
  if (bucketCapMb <= 0) throw invalidArgument({ what: 'a positive number of MiB', name: 'bucketCapMb', value: bucketCapMb, kind: 'range' });
  return {
    bucketCapMb,
    broadcastBuffers: flag(o.broadcastBuffers, 'broadcastBuffers', true),
    findUnusedParameters: flag(o.findUnusedParameters, 'findUnusedParameters', false),
    initSync: flag(o.initSync, 'initSync', true),
    ...(o.processGroup !== undefined && { processGroup: o.processGroup }),
  };
}
