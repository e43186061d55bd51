import * as core from '@kolo/core';
import type { HostArray, SameKind } from '@kolo/core';
import type { AllreduceOptions } from './allreduce.js';
import { toHandle, type Handle } from './handles.js';
import { horovodCall } from './horovod-errors.js';
import { readOptions } from './options.js';
import { resolveOp } from './reduce-ops.js';
import { compressorOf, copyInto } from './tensor-io.js';

/**
 * Options of {@link groupedAllreduce}: those of `allreduce`, with per-tensor `shapes`.
 *
 * @example
 * ```ts
 * const options: GroupedAllreduceOptions = { name: 'grads', shapes: [[2, 3], undefined] };
 * ```
 */
export interface GroupedAllreduceOptions extends Omit<AllreduceOptions, 'shape'> {
  /** Logical shape of each tensor (entries may be undefined); default each `[length]`. */
  readonly shapes?: readonly (readonly number[] | undefined)[];
}

const allowed = [
  'name',
  'op',
  'average',
  'compression',
  'prescaleFactor',
  'postscaleFactor',
  'shapes',
  'processSet',
];

function run(
  tensors: readonly HostArray[],
  options: unknown,
  inPlace: boolean,
): Promise<HostArray[]> {
  const opName = inPlace ? 'grouped_allreduce_' : 'grouped_allreduce';
  return horovodCall(() => {
    core.size();
    const o = readOptions(options as GroupedAllreduceOptions | undefined, { opName, allowed });
    const op = resolveOp(o, opName);
    const compressor = compressorOf(o.compression);
    // Not an array: core rejects it with its own message.
    const packed = Array.isArray(tensors) ? tensors.map((t) => compressor.compress(t)) : [];
    const wires = Array.isArray(tensors) ? packed.map(([wire]) => wire) : tensors;
    const reduced = core.groupedAllreduce(wires, {
      name: o.name,
      op,
      prescaleFactor: o.prescaleFactor,
      postscaleFactor: o.postscaleFactor,
      shapes: o.shapes,
      processSet: o.processSet,
      ...(inPlace && { outputs: wires.map((w, i) => (w === tensors[i] ? w : undefined)) }),
    });
    return reduced.then((outs) =>
      outs.map((out, i) => {
        const result = compressor.decompress(out, packed[i]?.[1] ?? null);
        return inPlace ? copyInto(tensors[i] as HostArray, result) : result;
      }),
    );
  });
}

/**
 * Reduces several tensors as one group (one negotiation, fused together) into new arrays; the
 * engine gets one request per dtype among them, named `<name>_<i>of<k>`.
 *
 * @example
 * ```ts
 * const [a, b] = await hvd.groupedAllreduce([gradA, gradB], { op: hvd.Sum });
 * ```
 */
export function groupedAllreduce<T extends HostArray>(
  tensors: readonly T[],
  options?: GroupedAllreduceOptions,
): Promise<SameKind<T>[]> {
  return run(tensors, options, false) as Promise<SameKind<T>[]>;
}

/**
 * In-place {@link groupedAllreduce} (Horovod's `grouped_allreduce_`): resolves with `tensors`.
 *
 * @example
 * ```ts
 * await hvd.groupedAllreduce_([gradA, gradB]);
 * ```
 */
export function groupedAllreduceInplace<T extends HostArray>(
  tensors: readonly T[],
  options?: GroupedAllreduceOptions,
): Promise<T[]> {
  return run(tensors, options, true) as Promise<T[]>;
}

/**
 * Starts {@link groupedAllreduce}; returns a handle for `hvd.synchronize`.
 *
 * @example
 * ```ts
 * const [a, b] = await hvd.synchronize(hvd.groupedAllreduceAsync([gradA, gradB]));
 * ```
 */
export function groupedAllreduceAsync<T extends HostArray>(
  tensors: readonly T[],
  options?: GroupedAllreduceOptions,
): Handle<SameKind<T>[]> {
  return toHandle(groupedAllreduce(tensors, options));
}

/**
 * Starts {@link groupedAllreduceInplace}; returns a handle for `hvd.synchronize`.
 *
 * @example
 * ```ts
 * await hvd.synchronize(hvd.groupedAllreduceAsyncInplace([gradA, gradB]));
 * ```
 */
export function groupedAllreduceAsyncInplace<T extends HostArray>(
  tensors: readonly T[],
  options?: GroupedAllreduceOptions,
): Handle<T[]> {
  return toHandle(groupedAllreduceInplace(tensors, options));
}
