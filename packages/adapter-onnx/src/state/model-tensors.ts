import { invalidArgument } from '@kolo/core';
import { checkTensor } from '../model/check-tensor.js';
import type { NamedTensor } from '../model/named-tensor.js';
import { OnnxModel } from '../model/onnx-model.js';

/**
 * What model-state calls accept: a decoded model (its initializers are updated in place) or a
 * list of host tensors (their `data` is updated in place).
 *
 * @example
 * ```ts
 * const target: InitializerTarget = await OnnxModel.load('mlp.onnx');
 * ```
 */
export type InitializerTarget = OnnxModel | readonly NamedTensor[];

/**
 * The tensors of `target` to work on, and how to write results back.
 *
 * @example
 * ```ts
 * const { tensors, commit } = modelTensors(target, 'broadcastInitializers');
 * ```
 */
export function modelTensors(target: InitializerTarget, opName: string): { tensors: NamedTensor[]; commit: () => void } {
  if (target instanceof OnnxModel) {
    const tensors = target.initializers();
    return { tensors, commit: () => tensors.forEach((t) => target.setInitializer(t)) };
  }
  if (!Array.isArray(target)) {
    throw invalidArgument({ what: 'an OnnxModel or an array of tensors', name: `${opName} target`, value: target });
  }
  const tensors = target.map((t: unknown, i) => checkTensor(t, { label: `${opName} target[${i}]` }));
  return { tensors, commit: () => undefined };
}
