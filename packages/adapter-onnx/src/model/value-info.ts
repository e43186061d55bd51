import { dataTypeInfo, type OnnxElementType } from './data-types.js';
import { int64ToNumber, type Int64Like } from './tensor-proto.js';

/** The `onnx.ValueInfoProto` fields Kolo reads (protobufjs camelCase names). */
export interface ValueInfoFields {
  name?: string;
  type?: { tensorType?: { elemType?: number; shape?: { dim?: { dimValue?: Int64Like; dimParam?: string }[] } } };
}

/**
 * A graph input or output: its name, element type (undefined when Kolo does not handle it or it
 * is not a tensor) and dims (a number, a symbolic name such as `'N'`, or undefined when unknown).
 *
 * @example
 * ```ts
 * const x: ValueInfo = { name: 'x', type: 'float32', dims: ['N', 784] };
 * ```
 */
export interface ValueInfo {
  /** The input's or output's name in the graph. */
  readonly name: string;
  /** The element type; undefined when Kolo does not handle it or the value is not a tensor. */
  readonly type: OnnxElementType | undefined;
  /** `undefined` when the model declares no shape at all. */
  readonly dims: readonly (number | string | undefined)[] | undefined;
}

const has = (object: object, key: string): boolean => Object.prototype.hasOwnProperty.call(object, key);

/**
 * Reads a decoded `ValueInfoProto` into a {@link ValueInfo}.
 *
 * @example
 * ```ts
 * model.graph.input.map(valueInfo);
 * ```
 */
export function valueInfo(proto: ValueInfoFields): ValueInfo {
  const tensor = proto.type?.tensorType;
  const shape = tensor && has(tensor, 'shape') ? tensor.shape : undefined;
  const dims = shape?.dim?.map((d) => {
    if (has(d, 'dimValue') && d.dimValue !== undefined) return int64ToNumber(d.dimValue);
    return has(d, 'dimParam') ? d.dimParam : undefined;
  });
  return { name: proto.name ?? '', type: dataTypeInfo(tensor?.elemType ?? 0)?.type, dims: shape ? (dims ?? []) : undefined };
}
