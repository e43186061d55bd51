import type { HostArray } from '@kolo/core';
import type { OnnxElementType } from './data-types.js';

/**
 * A named tensor on the host: an ONNX initializer, a weight or a gradient.
 *
 * @example
 * ```ts
 * const bias: NamedTensor = { name: 'b1', type: 'float32', dims: [16], data: new Float32Array(16) };
 * ```
 */
export interface NamedTensor {
  /** The initializer or graph input name, e.g. `W1` or `fc1.weight`. */
  readonly name: string;
  /** Element type, named as onnxruntime's `Tensor.type`. */
  readonly type: OnnxElementType;
  /** Dimensions; `[]` for a scalar. */
  readonly dims: readonly number[];
  /** Row-major elements; its length is the product of `dims`. */
  readonly data: HostArray;
}

/**
 * The number of elements of a tensor with these dimensions (1 for a scalar).
 *
 * @example
 * ```ts
 * elementCount([784, 16]); // 12544
 * ```
 */
export function elementCount(dims: readonly number[]): number {
  return dims.reduce((product, d) => product * d, 1);
}

/**
 * Renders dimensions for messages, e.g. `[784, 16]`.
 *
 * @example
 * ```ts
 * formatDims([784, 16]); // '[784, 16]'
 * ```
 */
export function formatDims(dims: readonly number[]): string {
  return `[${dims.join(', ')}]`;
}
