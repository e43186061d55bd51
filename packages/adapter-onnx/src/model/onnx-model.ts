import { readFile, writeFile } from 'node:fs/promises';
import { invalidArgument } from '@kolo/core';
import { checkTensor } from './check-tensor.js';
import type { NamedTensor } from './named-tensor.js';
import { onnxSchema } from './onnx-schema.js';
import { findInitializer } from './find-initializer.js';
import { tensorFromProto, tensorHeader, tensorIntoProto, type TensorProtoFields } from './tensor-proto.js';
import { valueInfo, type ValueInfoFields, type ValueInfo } from './value-info.js';

/** The `onnx.ModelProto` fields Kolo touches. */
interface ModelProtoFields {
  graph?: { initializer?: TensorProtoFields[]; input?: ValueInfoFields[]; output?: ValueInfoFields[] };
}

/**
 * An ONNX model decoded with protobufjs from the official `onnx.proto`: read and replace its
 * initializers (the stored weights), list its graph inputs and outputs, and encode it again.
 * Every other part of the model (nodes, opsets, metadata) is kept as it was.
 *
 * @example
 * ```ts
 * const model = await OnnxModel.load('mlp.onnx');
 * const w1 = model.initializer('W1');
 * model.setInitializer({ ...w1, data: trained });
 * await model.save('mlp-trained.onnx');
 * ```
 */
export class OnnxModel {
  private constructor(private readonly proto: ModelProtoFields) {}

  /**
   * Decodes serialized ONNX model bytes (a `ModelProto`).
   *
   * @example
   * ```ts
   * const model = OnnxModel.fromBytes(await readFile('mlp.onnx'));
   * ```
   */
  static fromBytes(bytes: Uint8Array): OnnxModel {
    if (!(bytes instanceof Uint8Array)) throw invalidArgument({ what: 'a Uint8Array', name: 'bytes', value: bytes });
    let proto: ModelProtoFields;
    try {
      proto = onnxSchema().ModelProto.decode(bytes) as ModelProtoFields;
    } catch (cause) {
      const error = invalidArgument({ what: 'a serialized ONNX ModelProto', name: 'bytes', value: bytes });
      throw Object.assign(error, { cause });
    }
    if (!proto.graph) throw invalidArgument({ what: 'an ONNX model with a graph', name: 'bytes', value: bytes });
    return new OnnxModel(proto);
  }

  /**
   * Reads and decodes an `.onnx` file.
   *
   * @example
   * ```ts
   * const model = await OnnxModel.load('mlp.onnx');
   * ```
   */
  static async load(path: string): Promise<OnnxModel> {
    return OnnxModel.fromBytes(await readFile(path));
  }

  /**
   * The initializer names, in file order.
   *
   * @example
   * ```ts
   * model.initializerNames; // ['W1', 'b1', 'W2', 'b2']
   * ```
   */
  get initializerNames(): string[] {
    return this.initializerProtos().map((t) => t.name ?? '');
  }

  /**
   * Every initializer as a host tensor with its own copy of the data, in file order.
   *
   * @example
   * ```ts
   * for (const t of model.initializers()) console.log(t.name, t.dims);
   * ```
   */
  initializers(): NamedTensor[] {
    return this.initializerProtos().map(tensorFromProto);
  }

  /**
   * One initializer by name (a copy); throws a TypeError listing the names for an unknown one.
   *
   * @example
   * ```ts
   * const { data, dims } = model.initializer('W1');
   * ```
   */
  initializer(name: string): NamedTensor {
    return tensorFromProto(findInitializer(this.initializerProtos(), name));
  }

  /**
   * Replaces the data of the initializer `tensor.name`; its type and dims must stay the same.
   * The data is copied (as little-endian `raw_data`).
   *
   * @example
   * ```ts
   * model.setInitializer({ name: 'b1', type: 'float32', dims: [16], data: new Float32Array(16) });
   * ```
   */
  setInitializer(tensor: NamedTensor): void {
    const proto = findInitializer(this.initializerProtos(), (tensor as Partial<NamedTensor> | undefined)?.name);
    const current = tensorHeader(proto);
    checkTensor(tensor, { label: `initializer '${current.name}'`, type: current.type, dims: current.dims });
    tensorIntoProto(proto, tensor);
  }

  /**
   * The graph inputs that must be fed (initializers listed as inputs are left out, as
   * onnxruntime does), with element type and dims (`undefined` or a name for dynamic dims).
   *
   * @example
   * ```ts
   * model.inputs(); // [{ name: 'x', type: 'float32', dims: ['N', 784] }, …]
   * ```
   */
  inputs(): ValueInfo[] {
    const stored = new Set(this.initializerNames);
    return (this.proto.graph?.input ?? []).filter((v) => !stored.has(v.name ?? '')).map(valueInfo);
  }

  /**
   * The graph outputs, with element type and dims.
   *
   * @example
   * ```ts
   * model.outputs().map((o) => o.name); // ['loss', 'grad.W1', …]
   * ```
   */
  outputs(): ValueInfo[] {
    return (this.proto.graph?.output ?? []).map(valueInfo);
  }

  /**
   * Encodes the model, with any replaced initializers, as ONNX bytes.
   *
   * @example
   * ```ts
   * const session = await InferenceSession.create(model.toBytes());
   * ```
   */
  toBytes(): Uint8Array {
    return onnxSchema().ModelProto.encode(this.proto).finish();
  }

  /** Writes {@link OnnxModel.toBytes} to `path`, e.g. `await model.save('mlp-trained.onnx')`. */
  async save(path: string): Promise<void> {
    await writeFile(path, this.toBytes());
  }

  private initializerProtos(): TensorProtoFields[] {
    return this.proto.graph?.initializer ?? [];
  }

}

