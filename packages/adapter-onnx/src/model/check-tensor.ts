import { invalidArgument } from '@kolo/core';
import { arrayFits, dataTypeInfo, supportedElementTypes, type OnnxElementType } from './data-types.js';
import { elementCount, formatDims, type NamedTensor } from './named-tensor.js';

/**
 * What a tensor must match, and its name in messages.
 *
 * @example
 * ```ts
 * checkTensor(t, { label: "initializer 'W1'", type: 'float32', dims: [784, 16] } satisfies TensorExpectation);
 * ```
 */
export interface TensorExpectation {
  /** How messages name the tensor, e.g. `initializer 'W1'`. */
  readonly label: string;
  /** Required element type; default any supported type. */
  readonly type?: OnnxElementType;
  /** Required dimensions; default any. */
  readonly dims?: readonly number[];
}

const arrayNames: Record<OnnxElementType, string> = {
  float32: 'Float32Array', float64: 'Float64Array', float16: 'Uint16Array', int8: 'Int8Array',
  uint8: 'Uint8Array', int32: 'Int32Array', int64: 'BigInt64Array', bool: 'Uint8Array',
};

/**
 * Checks that `value` is a {@link NamedTensor} whose type, dims and data agree with each other
 * and with `expected`; throws `Expected <what> for <label> but received <value>` otherwise.
 *
 * @example
 * ```ts
 * checkTensor({ name: 'b', type: 'float32', dims: [2], data: new Float32Array(3) }, { label: "weight 'b'" });
 * // RangeError: Expected a Float32Array of 2 elements for weight 'b'.data but received Float32Array(3)
 * ```
 */
export function checkTensor(value: unknown, expected: TensorExpectation): NamedTensor {
  const { label } = expected;
  if (value === null || typeof value !== 'object') throw invalidArgument({ what: 'a tensor object', name: label, value });
  const tensor = value as Partial<NamedTensor>;
  const types = supportedElementTypes();
  if (expected.type !== undefined && tensor.type !== expected.type) {
    throw invalidArgument({ what: `type '${expected.type}'`, name: `${label}.type`, value: tensor.type });
  }
  if (typeof tensor.type !== 'string' || !dataTypeInfo(tensor.type as OnnxElementType)) {
    throw invalidArgument({ what: `one of ${types.map((t) => `'${t}'`).join(', ')}`, name: `${label}.type`, value: tensor.type });
  }
  const dims = tensor.dims;
  if (!Array.isArray(dims) || !dims.every((d) => Number.isSafeInteger(d) && d >= 0)) {
    throw invalidArgument({ what: 'an array of non-negative integers', name: `${label}.dims`, value: dims });
  }
  if (expected.dims && formatDims(dims) !== formatDims(expected.dims)) {
    throw invalidArgument({ what: `dims ${formatDims(expected.dims)}`, name: `${label}.dims`, value: dims, kind: 'range' });
  }
  const type = tensor.type as OnnxElementType;
  const count = elementCount(dims);
  const what = `a ${arrayNames[type]} of ${count} elements`;
  if (!arrayFits(tensor.data, type)) throw invalidArgument({ what, name: `${label}.data`, value: tensor.data });
  if (tensor.data.length !== count) throw invalidArgument({ what, name: `${label}.data`, value: tensor.data, kind: 'range' });
  return tensor as NamedTensor;
}
