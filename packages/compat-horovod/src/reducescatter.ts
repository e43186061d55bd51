import * as core from '@kolo/core';
import { UnsupportedError, type HostArray, type SameKind } from '@kolo/core';
import type { Compressor } from './compression.js';
import { toHandle, type Handle } from './handles.js';
import { horovodCall } from './horovod-errors.js';
import { readOptions } from './options.js';
import type { ProcessSetOption } from './process-sets.js';
import { Average, Max, Min, Product, resolveOp, Sum, type ReduceOp } from './reduce-ops.js';
import { compressorOf } from './tensor-io.js';

/** Horovod's message for a reduction reducescatter does not support. */
export const reducescatterOpsText = 'Reducescatter currently only supports AVERAGE and SUM.';

/**
 * Options of {@link reducescatter}, as Horovod's keyword arguments.
 *
 * @example
 * ```ts
 * const options: ReducescatterOptions = { op: hvd.Sum, shape: [rows, 8] };
 * ```
 */
export interface ReducescatterOptions extends ProcessSetOption {
  /** Matches the request across ranks, as given; default `reducescatter.noname.<n>`. */
  readonly name?: string;
  /** `hvd.Average` (the default) or `hvd.Sum`. */
  readonly op?: ReduceOp;
  /** Sent compressed, e.g. `hvd.Compression.fp16`; default `hvd.Compression.none`. */
  readonly compression?: Compressor;
  /** Multiplies each input before the reduction (alias `prescale_factor`). */
  readonly prescaleFactor?: number;
  /** Horovod's spelling of `prescaleFactor`. */
  readonly prescale_factor?: number;
  /** Multiplies the reduced result (alias `postscale_factor`). */
  readonly postscaleFactor?: number;
  /** Horovod's spelling of `postscaleFactor`. */
  readonly postscale_factor?: number;
  /** Logical shape, identical on every rank; the first dimension is split across ranks. */
  readonly shape?: readonly number[];
}

const allowed = [
  'name',
  'op',
  'compression',
  'prescaleFactor',
  'postscaleFactor',
  'shape',
  'processSet',
];
const unsupportedOps: readonly string[] = [Min, Max, Product];

/**
 * Reduces `tensor` over all ranks (default: average) and gives each rank its block of rows of
 * the result: `rows / size` each, the first `rows % size` ranks one more, in rank order.
 *
 * @example
 * ```ts
 * const myRows = await hvd.reducescatter(grad, { op: hvd.Sum, shape: [rows, 8] });
 * ```
 */
export function reducescatter<T extends HostArray>(
  tensor: T,
  options?: ReducescatterOptions,
): Promise<SameKind<T>> {
  return horovodCall(() => {
    core.size();
    const o = readOptions(options, { opName: 'reducescatter', allowed });
    const op = resolveOp({ op: o.op }, 'reducescatter');
    // Other unknown values reach core, which lists the valid ones.
    if (op !== Average && op !== Sum && unsupportedOps.includes(op)) {
      throw new UnsupportedError(`reducescatter: ${reducescatterOpsText}`, {
        opName: 'reducescatter',
      });
    }
    const compressor = compressorOf(o.compression);
    const [wire, ctx] = compressor.compress(tensor);
    const scattered = core.reducescatter(wire, {
      name: o.name,
      op: op as 'average' | 'sum',
      prescaleFactor: o.prescaleFactor,
      postscaleFactor: o.postscaleFactor,
      shape: o.shape,
      processSet: o.processSet,
    });
    return scattered.then((r) => compressor.decompress(r.data, ctx) as SameKind<T>);
  });
}

/**
 * Starts {@link reducescatter}; returns a handle for `hvd.synchronize`.
 *
 * @example
 * ```ts
 * const mine = await hvd.synchronize(hvd.reducescatterAsync(grad, { shape: [rows, 8] }));
 * ```
 */
export function reducescatterAsync<T extends HostArray>(
  tensor: T,
  options?: ReducescatterOptions,
): Handle<SameKind<T>> {
  return toHandle(reducescatter(tensor, options));
}
