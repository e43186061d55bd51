import { broadcast, broadcastObject, invalidArgument, rank } from '@kolo/core';
import { checkTensor } from '../model/check-tensor.js';
import type { NamedTensor } from '../model/named-tensor.js';
import { OnnxModel } from '../model/onnx-model.js';
import type { FlatWeights } from './flat-weights.js';

/**
 * Where a trainer's starting weights come from: an inference model (path, bytes or decoded)
 * whose initializers have the weights' names, or the tensors themselves.
 *
 * @example
 * ```ts
 * const source: WeightSource = 'mlp.infer.onnx';
 * ```
 */
export type WeightSource = string | Uint8Array | OnnxModel | readonly NamedTensor[];

async function sourceTensors(source: WeightSource): Promise<(name: string) => NamedTensor | undefined> {
  if (Array.isArray(source)) return (name) => (source as readonly NamedTensor[]).find((t) => t?.name === name);
  let model: OnnxModel;
  if (source instanceof OnnxModel) model = source;
  else if (typeof source === 'string') model = await OnnxModel.load(source);
  else if (source instanceof Uint8Array) model = OnnxModel.fromBytes(source);
  else throw invalidArgument({ what: 'a model path, model bytes, an OnnxModel or an array of tensors', name: 'initialWeights', value: source });
  return (name) => (model.initializerNames.includes(name) ? model.initializer(name) : undefined);
}

/**
 * Copies every weight of `flat` from `source`, checking that each exists as float32 with the
 * training graph's dims.
 *
 * @example
 * ```ts
 * await loadInitialWeights('mlp.infer.onnx', flat);
 * ```
 */
export async function loadInitialWeights(source: WeightSource, flat: FlatWeights): Promise<void> {
  const lookup = await sourceTensors(source);
  for (const w of flat.weights) {
    const label = `initialWeights '${w.name}'`;
    const tensor = lookup(w.name);
    if (tensor === undefined) throw invalidArgument({ what: 'a tensor for every weight of the training graph', name: label, value: tensor });
    flat.view(w.name).set(checkTensor(tensor, { label, type: 'float32', dims: w.dims }).data as Float32Array);
  }
}

/**
 * Rank `root` loads the weights from `source` (see {@link loadInitialWeights}) and broadcasts
 * them into every rank's `flat`; the others ignore their `source`. When the root cannot load
 * them, every rank rejects with the root's message instead of waiting.
 *
 * @example
 * ```ts
 * await shareInitialWeights({ source: rank() === 0 ? 'mlp.infer.onnx' : undefined, flat, root: 0, name: 'trainer' });
 * ```
 */
export async function shareInitialWeights(options: {
  source: WeightSource | undefined;
  flat: FlatWeights;
  root: number;
  name: string;
}): Promise<void> {
  const { source, flat, root, name } = options;
  let failure: unknown;
  if (rank() === root) await loadInitialWeights(source as WeightSource, flat).catch((e: unknown) => (failure = e ?? new Error('failed')));
  const reason = failure instanceof Error ? { message: failure.message, code: (failure as { code?: unknown }).code } : undefined;
  const status = await broadcastObject({ failed: failure !== undefined, reason }, { root, name: `${name}.initial_weights_status` });
  if (failure !== undefined) throw failure;
  if (status.failed) {
    const error = new Error(`Rank ${root} could not load the initial weights: ${status.reason?.message ?? 'unknown error'}`);
    throw status.reason?.code === undefined ? error : Object.assign(error, { code: status.reason.code });
  }
  await broadcast(flat.buffer, { root, name: `${name}.initial_weights`, output: flat.buffer });
}
