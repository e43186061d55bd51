import { writeFile } from 'node:fs/promises';
import { checkOptions, expectInteger, expectNonEmptyString, invalidArgument, rank, size } from '@kolo/core';
import type { NamedTensor } from '../model/named-tensor.js';
import { OnnxModel } from '../model/onnx-model.js';

/**
 * Options of `DistributedTrainer.saveInferenceModel`.
 *
 * @example
 * ```ts
 * await trainer.saveInferenceModel({ template: 'mlp.infer.onnx', path: 'mlp.trained.onnx', root: 0 } satisfies SaveInferenceModelOptions);
 * ```
 */
export interface SaveInferenceModelOptions {
  /** The inference model (path, bytes or decoded) whose initializers receive the weights. */
  readonly template: string | Uint8Array | OnnxModel;
  /** Where the root writes the model; default: only return the bytes. */
  readonly path?: string;
  /** The rank that writes; default 0. */
  readonly root?: number;
}

/**
 * On the root rank, writes `weights` into the initializers of the same names of the template
 * (same types and dims required), saves it to `path` when given and resolves with its bytes.
 * Other ranks resolve with undefined at once, after validating the options.
 *
 * @example
 * ```ts
 * const bytes = await saveInferenceModel(trainer.weights(), { template: 'mlp.infer.onnx', path: 'out.onnx' });
 * ```
 */
export async function saveInferenceModel(
  weights: readonly NamedTensor[],
  options: SaveInferenceModelOptions,
): Promise<Uint8Array | undefined> {
  const o = checkOptions(options, { opName: 'saveInferenceModel', allowed: ['template', 'path', 'root'] });
  const { template } = o;
  if (typeof template !== 'string' && !(template instanceof Uint8Array) && !(template instanceof OnnxModel)) {
    throw invalidArgument({ what: 'a model path, model bytes or an OnnxModel', name: 'template', value: template });
  }
  if (o.path !== undefined) expectNonEmptyString(o.path, 'path');
  const root = expectInteger(o.root ?? 0, { name: 'root', min: 0, max: size() - 1 });
  if (rank() !== root) return undefined;
  const model = template instanceof OnnxModel ? template
    : typeof template === 'string' ? await OnnxModel.load(template) : OnnxModel.fromBytes(template);
  for (const w of weights) model.setInitializer(w);
  const bytes = model.toBytes();
  if (o.path !== undefined) await writeFile(o.path, bytes);
  return bytes;
}
