import type { HostArray, NativeResult } from '@kolo/native';
import { InternalError } from '../errors/internal-error.js';
import { invalidArgument } from '../validation/invalid-argument.js';
import { allocate, arrayClassOf, arrayNoun, dtypeOf, viewResult, type DtypeName } from './dtype.js';

/** Where a result goes: the caller's `output` array, or a new one. */
export interface OutputSpec {
  readonly output: unknown;
  readonly dtype: DtypeName;
  readonly length: number;
  /** Option name in messages; default `output`. */
  readonly name?: string;
  /**
   * The checked input `dtype` and `length` came from: an output that is this array (in place)
   * needs no second check, which costs two calls into V8's runtime (its buffer, and whether that
   * buffer is resizable).
   */
  readonly input?: unknown;
}

/**
 * Validates the caller's `output` (same dtype and length as the data; the data itself means
 * in place) or allocates a new array.
 *
 * @example
 * ```ts
 * outputArray({ output: undefined, dtype: 'float32', length: 4 }); // new Float32Array(4)
 * ```
 */
export function outputArray(spec: OutputSpec): HostArray {
  if (spec.output === undefined) return allocate(spec.dtype, spec.length);
  if (spec.output === spec.input) return spec.output as HostArray;
  const name = spec.name ?? 'output';
  const dtype = dtypeOf(spec.output, name);
  const output = spec.output as HostArray;
  if (dtype === spec.dtype && output.length === spec.length) return output;
  const what = `${arrayNoun(spec.dtype)} of length ${spec.length}`;
  if (dtype !== spec.dtype) throw invalidArgument({ what, name, value: output });
  throw invalidArgument({ what, name, value: output, kind: 'range' });
}

/**
 * The data of an engine result viewed as `dtype`, checked to hold `length` elements.
 *
 * @example
 * ```ts
 * const gathered = resultArray(results[0], { dtype: 'float32', length: 6, opName: 'allgather.x' });
 * ```
 */
export function resultArray(
  result: NativeResult | undefined,
  spec: { readonly dtype: DtypeName; readonly length: number; readonly opName: string },
): HostArray {
  const data = result?.data;
  const bytesPerElement = arrayClassOf[spec.dtype].BYTES_PER_ELEMENT;
  if (data === undefined || data.byteLength !== spec.length * bytesPerElement) {
    const got = data === undefined ? 'no data' : `${data.byteLength} bytes`;
    throw new InternalError(
      `${spec.opName}: the engine returned ${got} where ${
        spec.length * bytesPerElement
      } were expected. ` + 'This is a bug in Kolo; please report it.',
      { opName: spec.opName },
    );
  }
  return viewResult(spec.dtype, data);
}

/**
 * The per-rank row counts of an allgather or alltoall result, checked to have one entry per rank.
 *
 * @example
 * ```ts
 * const splits = resultSplits(results[0], { size: 3, opName: 'allgather.x' }); // e.g. [2, 1, 2]
 * ```
 */
export function resultSplits(
  result: NativeResult | undefined,
  spec: { readonly size: number; readonly opName: string },
): number[] {
  const splits = result?.splits;
  if (!Array.isArray(splits) || splits.length !== spec.size) {
    throw new InternalError(
      `${spec.opName}: the engine returned no per-rank sizes. This is a bug in Kolo; please report it.`,
      { opName: spec.opName },
    );
  }
  return [...splits];
}
