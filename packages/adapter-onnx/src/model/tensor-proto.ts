import { endianness } from 'node:os';
import { invalidArgument, UnsupportedError } from '@kolo/core';
import { dataTypeInfo, supportedElementTypes } from './data-types.js';
import { elementCount, formatDims, type NamedTensor } from './named-tensor.js';

/** An int64 as protobufjs decodes it: a number, or a `long` object. */
export type Int64Like = number | { toString(): string };

/**
 * The `onnx.TensorProto` fields Kolo reads and writes (protobufjs camelCase names).
 *
 * @example
 * ```ts
 * const proto: TensorProtoFields = { name: 'b', dims: [2], dataType: 1, rawData: new Uint8Array(8) };
 * ```
 */
export interface TensorProtoFields {
  name?: string;
  dims?: Int64Like[];
  dataType?: number;
  rawData?: Uint8Array;
  floatData?: number[];
  doubleData?: number[];
  int32Data?: number[];
  int64Data?: Int64Like[];
  /** 1 = EXTERNAL: the data lives in another file. */
  dataLocation?: number;
  externalData?: unknown[];
}

/**
 * An int64 field value as a JS number (dimensions stay far below 2^53).
 *
 * @example
 * ```ts
 * int64ToNumber(Long.fromNumber(784)); // 784
 * ```
 */
export function int64ToNumber(value: Int64Like): number {
  return typeof value === 'number' ? value : Number(value.toString());
}

function assertLittleEndianHost(): void {
  if (endianness() !== 'LE') {
    throw new UnsupportedError('ONNX raw_data is little-endian; Kolo reads and writes it only on little-endian hosts');
  }
}

/**
 * The name, element type and dims of a `TensorProto`, without decoding its data. Throws
 * UnsupportedError for external data and element types Kolo does not handle.
 *
 * @example
 * ```ts
 * tensorHeader(model.graph.initializer[0]); // { name: 'W1', type: 'float32', dims: [784, 16] }
 * ```
 */
export function tensorHeader(proto: TensorProtoFields): Omit<NamedTensor, 'data'> {
  const name = proto.name ?? '';
  const info = dataTypeInfo(proto.dataType ?? 0);
  if (!info) {
    throw new UnsupportedError(
      `Initializer '${name}' has ONNX data type ${proto.dataType}; Kolo handles ${supportedElementTypes().join(', ')}`,
    );
  }
  if (proto.dataLocation === 1) {
    throw new UnsupportedError(
      `Initializer '${name}' keeps its data in an external file; save the model with the data inside it ` +
        `(Python: onnx.save(model, path, save_as_external_data=False))`,
    );
  }
  return { name, type: info.type, dims: (proto.dims ?? []).map(int64ToNumber) };
}

/**
 * Decodes one `TensorProto` (raw_data or the typed fields) into a host tensor with its own copy
 * of the data. Throws UnsupportedError for external data and element types Kolo does not handle.
 *
 * @example
 * ```ts
 * const w = tensorFromProto(model.graph.initializer[0]); // { name: 'W1', type: 'float32', dims: [784, 16], data }
 * ```
 */
export function tensorFromProto(proto: TensorProtoFields): NamedTensor {
  const { name, type, dims } = tensorHeader(proto);
  const info = dataTypeInfo(type)!;
  const data = info.create(elementCount(dims));
  const expected = (what: string) => `${what} (${info.type} ${formatDims(dims)})`;
  if (proto.rawData && proto.rawData.length > 0) {
    assertLittleEndianHost();
    if (proto.rawData.length !== data.byteLength) {
      throw invalidArgument({ what: expected(`raw_data of ${data.byteLength} bytes`), name: `initializer '${name}'`, value: proto.rawData });
    }
    new Uint8Array(data.buffer).set(proto.rawData);
    return { name, type: info.type, dims, data };
  }
  const values = proto[info.field] ?? [];
  if (values.length !== data.length) {
    const field = info.field.replace('Data', '_data');
    throw invalidArgument({ what: expected(`${data.length} values in ${field}`), name: `initializer '${name}'`, value: values });
  }
  if (info.field === 'int64Data') values.forEach((v, i) => ((data as BigInt64Array)[i] = BigInt(v.toString())));
  else (data as Float32Array).set(values as number[]);
  return { name, type: info.type, dims, data };
}

/**
 * Writes `tensor` into `proto` in place as little-endian `raw_data`, clearing the typed fields
 * and any external-data reference, and keeping every other field (doc string, metadata).
 *
 * @example
 * ```ts
 * tensorIntoProto(model.graph.initializer[0], { name: 'W1', type: 'float32', dims: [784, 16], data });
 * ```
 */
export function tensorIntoProto(proto: TensorProtoFields, tensor: NamedTensor): void {
  assertLittleEndianHost();
  const info = dataTypeInfo(tensor.type);
  if (!info) throw new UnsupportedError(`Kolo cannot write element type ${tensor.type}`);
  const bytes = new Uint8Array(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
  proto.name = tensor.name;
  proto.dims = [...tensor.dims];
  proto.dataType = info.code;
  proto.rawData = Uint8Array.from(bytes);
  for (const field of ['floatData', 'doubleData', 'int32Data', 'int64Data', 'externalData'] as const) {
    proto[field] = [];
  }
  delete proto.dataLocation;
}
