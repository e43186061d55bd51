import { engine, tensor, type NamedTensorMap, type Tensor } from '@tensorflow/tfjs-core';

/**
 * A tensor with the name of the variable it belongs to: the element type of tfjs's
 * `applyGradients(NamedTensor[])` and `getWeights()` (tfjs-core does not export the type).
 *
 * @example
 * ```ts
 * const g: NamedTensor = { name: w.name, tensor: tf.zerosLike(w) };
 * ```
 */
export interface NamedTensor {
  name: string;
  tensor: Tensor;
}

/**
 * One gradient in the order the optimizer applies them: the variable's name, its gradient (null
 * when the loss does not depend on it on this rank) and the variable's shape.
 *
 * @example
 * ```ts
 * const entry: GradientEntry = { name: 'dense/kernel', tensor: null, shape: [784, 128] };
 * ```
 */
export interface GradientEntry {
  readonly name: string;
  readonly tensor: Tensor | null;
  readonly shape: readonly number[];
}

/**
 * Lists gradients by position, in the order tfjs optimizers index their slots. A null or missing
 * gradient takes its shape from the registered variable of that name.
 *
 * @example
 * ```ts
 * const entries = gradientEntries([{ name: w.name, tensor: dw }]);
 * ```
 */
export function gradientEntries(grads: NamedTensorMap | NamedTensor[]): GradientEntry[] {
  const pairs = Array.isArray(grads)
    ? grads.map((g) => [g.name, g.tensor as Tensor | null | undefined] as const)
    : Object.keys(grads).map((name) => [name, grads[name]] as const);
  return pairs.map(([name, t], position) => {
    if (t != null) {
      if (t.dtype !== 'float32') {
        throw new TypeError(
          `Expected a float32 gradient for gradient ${position} ('${name}') but received ${t.dtype}`,
        );
      }
      return { name, tensor: t, shape: t.shape };
    }
    const variable = engine().registeredVariables[name];
    if (variable === undefined) {
      throw new TypeError(
        `Expected a registered variable for the null gradient ${position} but received the unknown name '${name}'`,
      );
    }
    return { name, tensor: null, shape: variable.shape };
  });
}

function elementCount(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

/**
 * Copies every gradient into one Float32Array (a null gradient contributes zeros) followed by one
 * presence flag per gradient (1 when this rank has it). After a sum or average across ranks a
 * flag above zero means some rank had that gradient. Writes into `reuse` when it has the right
 * length (a step's buffer, free again after the step): a new buffer of a model's gradients each
 * step costs fresh memory, its page faults and the collection of the last one.
 *
 * @example
 * ```ts
 * const fused = fuseGradients(entries); // [...g0, ...g1, flag0, flag1]
 * ```
 */
export function fuseGradients(entries: readonly GradientEntry[], reuse?: Float32Array): Float32Array {
  const total = entries.reduce((n, e) => n + elementCount(e.shape), 0);
  const reused = reuse !== undefined && reuse.length === total + entries.length;
  const fused = reused ? reuse : new Float32Array(total + entries.length);
  let offset = 0;
  entries.forEach((entry, i) => {
    const n = elementCount(entry.shape);
    if (entry.tensor !== null) fused.set(entry.tensor.dataSync() as Float32Array, offset);
    else if (reused) fused.fill(0, offset, offset + n);
    fused[total + i] = entry.tensor === null ? 0 : 1;
    offset += n;
  });
  return fused;
}

/**
 * Turns a reduced fused buffer back into named gradient tensors, in the same order. A gradient no
 * rank had stays null, so the wrapped optimizer skips it exactly as it would on one process.
 * With `views`, the tensors are views of `fused` (tfjs keeps a float32 array it is given as the
 * tensor's values), so `fused` must not change until they are disposed, and whoever receives them
 * must not keep them or a clone (which shares their values) past that; tfjs's own optimizers do
 * not. Without, each gets a copy.
 *
 * @example
 * ```ts
 * inner.applyGradients(splitGradients(entries, reduced));
 * ```
 */
export function splitGradients(entries: readonly GradientEntry[], fused: Float32Array, views = false): NamedTensor[] {
  const total = fused.length - entries.length;
  let offset = 0;
  return entries.map((entry, i) => {
    const n = elementCount(entry.shape);
    const start = offset;
    offset += n;
    const present = (fused[total + i] as number) > 0;
    const values = present ? (views ? fused.subarray(start, start + n) : fused.slice(start, start + n)) : null;
    const t = values === null ? null : tensor(values, [...entry.shape], 'float32');
    return { name: entry.name, tensor: t as Tensor };
  });
}
