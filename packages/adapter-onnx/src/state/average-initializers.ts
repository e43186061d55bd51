import { checkOptions, expectNonEmptyString, groupedAllreduce } from '@kolo/core';
import { checkSameLayout } from './same-layout.js';
import { modelTensors, type InitializerTarget } from './model-tensors.js';

/**
 * Options of {@link averageInitializers}.
 *
 * @example
 * ```ts
 * await averageInitializers(model, { name: 'round-3' } satisfies AverageInitializersOptions);
 * ```
 */
export interface AverageInitializersOptions {
  /** Request name of the one grouped allreduce; the same on every rank. Default `average_initializers`. */
  readonly name?: string;
}

const floating = new Set(['float32', 'float64', 'float16']);

/**
 * Replaces every floating-point initializer (or tensor) by its mean over all ranks, in one
 * grouped allreduce: model averaging, as in federated learning. Integer and bool initializers
 * (shape constants, indices) are left as they are. Every rank must pass the same tensor names,
 * types and dims, in the same order; otherwise every rank rejects with a MismatchError.
 *
 * @example
 * ```ts
 * const model = await OnnxModel.load(`client-${rank()}.onnx`);
 * await averageInitializers(model);
 * if (rank() === 0) await model.save('averaged.onnx');
 * ```
 */
export async function averageInitializers(target: InitializerTarget, options?: AverageInitializersOptions): Promise<void> {
  const o = checkOptions(options, { opName: 'averageInitializers', allowed: ['name'] });
  const name = expectNonEmptyString(o.name ?? 'average_initializers', 'name');
  const { tensors, commit } = modelTensors(target, 'averageInitializers');
  await checkSameLayout(tensors, { opName: 'averageInitializers', name: `${name}.layout` });
  const arrays = tensors.filter((t) => floating.has(t.type)).map((t) => t.data);
  if (arrays.length > 0) await groupedAllreduce(arrays, { name, op: 'average', outputs: arrays });
  commit();
}
