import type { HostArray } from '@kolo/core';

/**
 * Element types Kolo reads and writes, named as onnxruntime's `Tensor.type`.
 *
 * @example
 * ```ts
 * const type: OnnxElementType = 'float32';
 * ```
 */
export type OnnxElementType = 'float32' | 'float64' | 'float16' | 'int8' | 'uint8' | 'int32' | 'int64' | 'bool';

/** How one element type is stored in a `TensorProto`. */
interface DataTypeInfo {
  /** `TensorProto.DataType` number. */
  readonly code: number;
  readonly type: OnnxElementType;
  /** Bytes per element. */
  readonly bytes: number;
  /** The typed field used when `raw_data` is absent. */
  readonly field: 'floatData' | 'doubleData' | 'int32Data' | 'int64Data';
  readonly create: (length: number) => HostArray;
}

const table: readonly DataTypeInfo[] = [
  { code: 1, type: 'float32', bytes: 4, field: 'floatData', create: (n) => new Float32Array(n) },
  { code: 2, type: 'uint8', bytes: 1, field: 'int32Data', create: (n) => new Uint8Array(n) },
  { code: 3, type: 'int8', bytes: 1, field: 'int32Data', create: (n) => new Int8Array(n) },
  { code: 6, type: 'int32', bytes: 4, field: 'int32Data', create: (n) => new Int32Array(n) },
  { code: 7, type: 'int64', bytes: 8, field: 'int64Data', create: (n) => new BigInt64Array(n) },
  { code: 9, type: 'bool', bytes: 1, field: 'int32Data', create: (n) => new Uint8Array(n) },
  { code: 10, type: 'float16', bytes: 2, field: 'int32Data', create: (n) => new Uint16Array(n) },
  { code: 11, type: 'float64', bytes: 8, field: 'doubleData', create: (n) => new Float64Array(n) },
];

/**
 * The storage facts of an element type, by ONNX `DataType` number or by name; undefined when
 * Kolo does not handle it (strings, complex, float8, 4-bit, unsigned 16/32/64-bit, bfloat16).
 *
 * @example
 * ```ts
 * dataTypeInfo(1)?.type;          // 'float32'
 * dataTypeInfo('int64')?.code;    // 7
 * ```
 */
export function dataTypeInfo(key: number | OnnxElementType): DataTypeInfo | undefined {
  return table.find((info) => (typeof key === 'number' ? info.code === key : info.type === key));
}

/**
 * Every element type name Kolo handles, for messages.
 *
 * @example
 * ```ts
 * supportedElementTypes().includes('float32'); // true
 * ```
 */
export function supportedElementTypes(): OnnxElementType[] {
  return table.map((info) => info.type);
}

/**
 * The element type a HostArray holds for a given ONNX type, or whether `data` fits `type`.
 *
 * @example
 * ```ts
 * arrayFits(new Float32Array(2), 'float32'); // true
 * ```
 */
export function arrayFits(data: unknown, type: OnnxElementType): data is HostArray {
  const info = dataTypeInfo(type);
  return info !== undefined && ArrayBuffer.isView(data) && data.constructor === info.create(0).constructor;
}
