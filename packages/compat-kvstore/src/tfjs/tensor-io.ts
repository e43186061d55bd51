import * as tf from '@tensorflow/tfjs-core';
import { describeValue, invalidArgument, type HostArray } from '@kolo/core';
import { typedArrayIO, type ValueIO } from '../value-io.js';

/**
 * A tfjs-layers `LayerVariable` (e.g. an entry of `model.trainableWeights`), by its shape only,
 * so this entry needs no import of tfjs-layers.
 *
 * @example
 * ```ts
 * const weights: LayerVariableLike[] = model.trainableWeights;
 * ```
 */
export interface LayerVariableLike {
  /** The variable's name, e.g. `dense_Dense1/kernel`. */
  readonly name: string;
  /** The variable's shape. */
  readonly shape: number[];
  /** The variable's dtype, e.g. `float32`. */
  readonly dtype: string;
  /** The underlying tf.Variable. */
  read(): tf.Tensor;
  /** Assigns a new value. */
  write(value: tf.Tensor): unknown;
}

const isTensor = (v: unknown): v is tf.Tensor =>
  typeof v === 'object' && v !== null && typeof (v as tf.Tensor).dataSync === 'function' && Array.isArray((v as tf.Tensor).shape);
const isLayerVariable = (v: unknown): v is LayerVariableLike =>
  typeof v === 'object' && v !== null && typeof (v as LayerVariableLike).read === 'function' && typeof (v as LayerVariableLike).write === 'function';
const dtypeOfArray = (a: HostArray): string | undefined => (a instanceof Float32Array ? 'float32' : a instanceof Int32Array ? 'int32' : undefined);

/**
 * The tf.Variable behind a tf.Variable or a LayerVariable, else undefined.
 *
 * @example
 * ```ts
 * variableOf(model.trainableWeights[0]); // tf.Variable
 * ```
 */
export function variableOf(value: unknown): tf.Variable | undefined {
  if (isLayerVariable(value)) return value.read() as tf.Variable;
  return isTensor(value) && typeof (value as tf.Variable).assign === 'function' ? (value as tf.Variable) : undefined;
}

/**
 * Values as TypedArrays, tfjs tensors (float32 or int32) or LayerVariables; outputs as
 * TypedArrays, tf.Variables or LayerVariables (tensors are immutable, so they cannot be
 * outputs).
 *
 * @example
 * ```ts
 * const store = await openStore('dist_sync_kolo', tensorIO);
 * await store.pushpull(0, gradTensor, { out: weightVariable });
 * ```
 */
export const tensorIO: ValueIO = {
  isValue: (value) => typedArrayIO.isValue(value) || isTensor(value) || isLayerVariable(value),
  read(value, name) {
    const tensor = isLayerVariable(value) ? value.read() : value;
    if (!isTensor(tensor)) return typedArrayIO.read(value, name);
    if (tensor.dtype !== 'float32' && tensor.dtype !== 'int32') {
      throw invalidArgument({ what: 'a float32 or int32 tensor', name, value: `${tensor.dtype} tensor` });
    }
    return { data: tensor.dataSync() as Float32Array | Int32Array, shape: tensor.shape };
  },
  writer(out, like, name) {
    const variable = variableOf(out);
    if (variable === undefined) {
      if (isTensor(out)) {
        throw invalidArgument({ what: 'a TypedArray, tf.Variable or LayerVariable (tensors are immutable)', name, value: out });
      }
      return typedArrayIO.writer(out, like, name);
    }
    if (variable.dtype !== dtypeOfArray(like) || variable.size !== like.length) {
      const what = `a ${dtypeOfArray(like) ?? like.constructor.name} variable of ${like.length} elements`;
      throw invalidArgument({ what, name, value: `${variable.dtype} variable of shape ${describeValue(variable.shape)}` });
    }
    return (data) => {
      tf.tidy(() => {
        const next = tf.tensor(data.slice() as Float32Array, variable.shape, variable.dtype);
        if (isLayerVariable(out)) out.write(next);
        else variable.assign(next);
      });
    };
  },
};
