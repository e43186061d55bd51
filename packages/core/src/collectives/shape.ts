import { invalidArgument } from '../validation/invalid-argument.js';

/** How to check a shape. */
export interface ShapeSpec {
  /** Number of elements the shape must describe (the data's length). */
  readonly length: number;
  /** The option name in messages; default `shape`. */
  readonly name?: string;
  /** At least one dimension (allgather, alltoall, reducescatter). */
  readonly needsDim0?: boolean;
}

/**
 * Validates an optional shape against the data's length; defaults to `[length]`.
 *
 * @example
 * ```ts
 * resolveShape([2, 3], { length: 6 }); // [2, 3]
 * resolveShape([2, 4], { length: 6 }); // RangeError: Expected a shape whose product is 6 (the length of data) for shape but received [2, 4]
 * ```
 */
export function resolveShape(shape: unknown, spec: ShapeSpec): number[] {
  const name = spec.name ?? 'shape';
  if (shape === undefined) return [spec.length];
  const dims = Array.isArray(shape) ? (shape as unknown[]) : undefined;
  if (dims === undefined || !dims.every((d) => Number.isSafeInteger(d) && (d as number) >= 0)) {
    throw invalidArgument({ what: 'an array of non-negative integers', name, value: shape });
  }
  const sizes = dims as number[];
  if (spec.needsDim0 && sizes.length === 0) {
    throw invalidArgument({
      what: 'a shape with at least one dimension',
      name,
      value: shape,
      kind: 'range',
    });
  }
  // Zero rows hide any product, but the engine still multiplies the other dimensions (int64).
  if (sizes.reduce((a, b) => a * Math.max(b, 1), 1) > Number.MAX_SAFE_INTEGER) {
    const what = 'dimensions whose product (zeros aside) is at most 2^53 - 1';
    throw invalidArgument({ what, name, value: shape, kind: 'range' });
  }
  const product = sizes.reduce((a, b) => a * b, 1);
  if (product !== spec.length) {
    const what = `a shape whose product is ${spec.length} (the length of data)`;
    throw invalidArgument({ what, name, value: shape, kind: 'range' });
  }
  return [...sizes];
}
