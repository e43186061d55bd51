import * as core from '@kolo/core';
import type { HostArray, SameKind } from '@kolo/core';
import type { Compressor } from './compression.js';
import { toHandle, type Handle } from './handles.js';
import { horovodCall } from './horovod-errors.js';
import type { ProcessSetOption } from './process-sets.js';
import { readOptions } from './options.js';
import { resolveOp, type ReduceOp } from './reduce-ops.js';
import { compressorOf, copyInto } from './tensor-io.js';

/**
 * Options of {@link allreduce}, as Horovod's keyword arguments.
 *
 * @example
 * ```ts
 * const options: AllreduceOptions = { name: 'grad', op: hvd.Sum, prescale_factor: 0.5 };
 * ```
 */
export interface AllreduceOptions extends ProcessSetOption {
  /** Matches the request across ranks, as given; default `allreduce.noname.<n>`. */
  readonly name?: string;
  /** The reduction; default `hvd.Average` (integers truncate toward zero). */
  readonly op?: ReduceOp;
  /** Deprecated (warns once): `true` means Average, `false` Sum; do not combine with `op`. */
  readonly average?: boolean;
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
  /** Logical shape, checked against the other ranks; default `[tensor.length]`. */
  readonly shape?: readonly number[];
}

const allowed = [
  'name',
  'op',
  'average',
  'compression',
  'prescaleFactor',
  'postscaleFactor',
  'shape',
  'processSet',
];

function run<T extends HostArray>(
  tensor: T,
  options: unknown,
  inPlace: boolean,
): Promise<HostArray> {
  const opName = inPlace ? 'allreduce_' : 'allreduce';
  return horovodCall(() => {
    core.size();
    const o = readOptions(options as AllreduceOptions | undefined, { opName, allowed });
    const op = resolveOp(o, opName);
    const compressor = compressorOf(o.compression);
    const [wire, ctx] = compressor.compress(tensor);
    const reduced = core.allreduce(wire, {
      name: o.name,
      op,
      prescaleFactor: o.prescaleFactor,
      postscaleFactor: o.postscaleFactor,
      shape: o.shape,
      processSet: o.processSet,
      ...(inPlace && wire === tensor && { output: wire }),
    });
    return reduced.then((out) => {
      const result = compressor.decompress(out, ctx);
      return inPlace ? copyInto(tensor, result) : result;
    });
  });
}

/**
 * Reduces `tensor` over all ranks (default: average) into a **new** array; `tensor` is not
 * modified. Do not change `tensor` until the promise settles.
 *
 * @example
 * ```ts
 * const mean = await hvd.allreduce(new Float32Array([hvd.rank()]), { name: 'r' });
 * ```
 */
export function allreduce<T extends HostArray>(
  tensor: T,
  options?: AllreduceOptions,
): Promise<SameKind<T>> {
  return run(tensor, options, false) as Promise<SameKind<T>>;
}

/**
 * In-place {@link allreduce} (Horovod's `allreduce_`): resolves with `tensor` itself, which
 * holds the result.
 *
 * @example
 * ```ts
 * await hvd.allreduce_(grad, { op: hvd.Sum });
 * ```
 */
export function allreduceInplace<T extends HostArray>(
  tensor: T,
  options?: AllreduceOptions,
): Promise<T> {
  return run(tensor, options, true) as Promise<T>;
}

/**
 * Starts {@link allreduce} and returns a handle for `hvd.poll` / `hvd.synchronize`. Argument
 * errors throw here; collective failures reject from `synchronize`.
 *
 * @example
 * ```ts
 * const handle = hvd.allreduceAsync(grad, { name: 'grad' });
 * const mean = await hvd.synchronize(handle);
 * ```
 */
export function allreduceAsync<T extends HostArray>(
  tensor: T,
  options?: AllreduceOptions,
): Handle<SameKind<T>> {
  return toHandle(allreduce(tensor, options));
}

/**
 * Starts {@link allreduceInplace} and returns a handle (Horovod's `allreduce_async_`).
 *
 * @example
 * ```ts
 * await hvd.synchronize(hvd.allreduceAsyncInplace(grad));
 * ```
 */
export function allreduceAsyncInplace<T extends HostArray>(
  tensor: T,
  options?: AllreduceOptions,
): Handle<T> {
  return toHandle(allreduceInplace(tensor, options));
}
