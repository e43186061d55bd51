import { tensor, type DataType, type Variable } from '@tensorflow/tfjs-core';
import type { LayerVariable } from '@tensorflow/tfjs-layers';
import { expectInteger, invalidArgument, size } from '@kolo/core';
import { broadcastValues, checkSignatures } from './broadcast-values.js';

/**
 * What {@link broadcastVariables} accepts: core `tf.Variable`s or tfjs-layers `LayerVariable`s
 * (the entries of `model.weights`).
 *
 * @example
 * ```ts
 * const vars: BroadcastableVariable[] = [...model.weights, tf.variable(tf.zeros([2]))];
 * ```
 */
export type BroadcastableVariable = Variable | LayerVariable;

function coreVariable(v: BroadcastableVariable, position: number): Variable {
  if (v !== null && typeof v === 'object') {
    if ('assign' in v && typeof v.assign === 'function') return v;
    // LayerVariable.read() returns its backing tf.Variable (typed as Tensor).
    if ('read' in v && typeof v.read === 'function') return v.read() as Variable;
  }
  throw invalidArgument({ what: 'a tf.Variable or LayerVariable', name: `variables[${position}]`, value: v });
}

/**
 * Overwrites `variables` on every rank with `root`'s values (Horovod's `broadcast_variables`),
 * matched by position with a shape and dtype check on every rank, never by tfjs name (names carry
 * process-global counters). One collective per dtype; every rank must call it with the same list.
 *
 * @example
 * ```ts
 * await broadcastVariables(model.weights, 0);
 * ```
 */
export async function broadcastVariables(
  variables: readonly BroadcastableVariable[],
  root = 0,
): Promise<void> {
  if (!Array.isArray(variables)) {
    throw invalidArgument({ what: 'an array of variables', name: 'variables', value: variables });
  }
  expectInteger(root, { name: 'root', min: 0, max: size() - 1 });
  const vars = variables.map(coreVariable);
  await checkSignatures(
    vars.map((v) => ({ shape: v.shape, dtype: v.dtype })),
    { root, what: 'variable' },
  );
  const values = await broadcastValues(
    vars.map((v) => ({ dtype: v.dtype, data: v.dataSync() as ArrayLike<number> })),
    { root },
  );
  vars.forEach((v, i) => {
    const t = tensor(values[i] as Float32Array | Int32Array | Uint8Array, v.shape, v.dtype as DataType);
    v.assign(t);
    t.dispose();
  });
}

/**
 * Broadcasts every weight of `model` from `root`: trainable and non-trainable (such as
 * BatchNormalization moving statistics), by position with a shape check.
 *
 * @example
 * ```ts
 * await broadcastModel(model, 0); // all ranks now start from rank 0's weights
 * ```
 */
export function broadcastModel(model: { readonly weights: LayerVariable[] }, root = 0): Promise<void> {
  if (model === null || typeof model !== 'object' || !Array.isArray(model.weights)) {
    throw invalidArgument({ what: 'a tfjs LayersModel (or Layer)', name: 'model', value: model });
  }
  return broadcastVariables(model.weights, root);
}
