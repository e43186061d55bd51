import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

/**
 * The protobufjs message types of the vendored official `onnx.proto` (package `onnx`).
 *
 * @example
 * ```ts
 * const { ModelProto } = onnxSchema();
 * const model = ModelProto.decode(bytes);
 * ```
 */
export interface OnnxSchema {
  readonly ModelProto: protobuf.Type;
  readonly TensorProto: protobuf.Type;
}

let cached: OnnxSchema | undefined;

/**
 * Loads `proto/onnx.proto` (copied from the onnx pip package) with protobufjs on first use and
 * returns its message types. Importing this module reads nothing.
 *
 * @example
 * ```ts
 * const bytes = onnxSchema().ModelProto.encode(model).finish();
 * ```
 */
export function onnxSchema(): OnnxSchema {
  if (cached) return cached;
  // Same relative path from src/model/ and dist/model/.
  const path = fileURLToPath(new URL('../../proto/onnx.proto', import.meta.url));
  const root = protobuf.loadSync(path);
  cached = { ModelProto: root.lookupType('onnx.ModelProto'), TensorProto: root.lookupType('onnx.TensorProto') };
  return cached;
}
