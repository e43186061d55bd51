import type { HostArray, NativeBinding, NativeParts, NativeRequest } from '@kolo/native';
import { UnsupportedError } from '../errors/unsupported-error.js';
import { dtypeId, type DtypeName } from './dtype.js';
import { reduceOpId } from './reduce-op.js';

/** The request kinds the engine knows. */
export type RequestTypeName =
  | 'allreduce'
  | 'allgather'
  | 'broadcast'
  | 'alltoall'
  | 'reducescatter'
  | 'barrier'
  | 'join'
  | 'addProcessSet'
  | 'removeProcessSet';

/** The fields a collective sets; the rest get neutral defaults. */
export interface RequestFields {
  readonly type: RequestTypeName;
  readonly name: string;
  /** Default `uint8` (for barrier and join, which move no data). */
  readonly dtype?: DtypeName;
  readonly shape?: readonly number[];
  /** Engine id of the reduction; default the id of `sum`. */
  readonly reduceOp?: number;
  readonly root?: number;
  readonly prescale?: number;
  readonly postscale?: number;
  readonly splits?: readonly number[];
  /** Engine id of the process set; default 0 (every rank). */
  readonly processSet?: number;
  readonly input?: HostArray;
  readonly output?: HostArray;
  /** allreduce of a packed group: its arrays (then `shape` is `[their total elements]`). */
  readonly parts?: NativeParts;
}

/** The default shape and splits: one shared empty array, not a new one per request. */
const none: readonly number[] = Object.freeze([]);

/**
 * Builds a NativeRequest, reading every numeric id (request type, dtype, reduction) from the
 * binding's constants.
 *
 * @example
 * ```ts
 * makeRequest(binding, { type: 'barrier', name: 'barrier.noname.0' });
 * ```
 */
export function makeRequest(binding: NativeBinding, fields: RequestFields): NativeRequest {
  const { constants } = binding;
  const type = constants.requestTypes[fields.type];
  if (type === undefined) {
    throw new UnsupportedError(`This build of the Kolo engine does not support ${fields.type}.`);
  }
  // One object literal with every key (no conditional spreads), so all requests share one
  // shape and are cheap to build and to pack; `input` and `output` are undefined where unused.
  return {
    type,
    name: fields.name,
    dtype: dtypeId(binding, fields.dtype ?? 'uint8'),
    shape: fields.shape ?? none,
    reduceOp: fields.reduceOp ?? reduceOpId(binding, { op: 'sum' }),
    root: fields.root ?? 0,
    prescale: fields.prescale ?? 1,
    postscale: fields.postscale ?? 1,
    splits: fields.splits ?? none,
    processSet: fields.processSet ?? 0,
    input: fields.input,
    output: fields.output,
    parts: fields.parts,
  };
}
