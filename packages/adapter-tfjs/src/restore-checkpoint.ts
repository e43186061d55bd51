import { join } from 'node:path';
import { dispose, io, type Tensor, type Variable } from '@tensorflow/tfjs-core';
import type { LayersModel } from '@tensorflow/tfjs-layers';
import { broadcastObject, checkOptions, expectInteger, expectNonEmptyString, invalidArgument, isInitialized, rank, size } from '@kolo/core';
import { broadcastOptimizerState, canTransferState } from './broadcast-optimizer-state.js';
import { broadcastModel } from './broadcast-variables.js';
import { readLatest } from './checkpoint-layout.js';
import { unwrapOptimizer } from './unwrap-optimizer.js';
import { fileSystemHandler } from './file-io-handler.js';

/**
 * Options of {@link restoreCheckpoint}.
 *
 * @example
 * ```ts
 * const o: RestoreCheckpointOptions = { directory: './checkpoints' };
 * ```
 */
export interface RestoreCheckpointOptions {
  /** The checkpoint directory {@link saveCheckpoint} wrote. */
  readonly directory: string;
  /** The rank that reads the files and broadcasts them; default 0. */
  readonly root?: number;
}

/** Loads the latest checkpoint into `model` and its optimizer, by position; returns its epoch. */
async function loadLatest(model: LayersModel, directory: string): Promise<number | undefined> {
  const latest = await readLatest(directory);
  if (latest === undefined) return undefined;
  const where = join(directory, latest.path);
  const artifacts = await fileSystemHandler(where).load();
  const specs = artifacts.weightSpecs ?? [];
  // Decode by index: names carry tfjs's process-global counters and may differ from this model's.
  const decoded = io.decodeWeights(artifacts.weightData ?? [], specs.map((s, i) => ({ ...s, name: String(i) })));
  const tensors = specs.map((_, i) => decoded[String(i)] as Tensor);
  const weights = tensors.filter((_, i) => specs[i]?.group !== 'optimizer');
  if (weights.length !== model.weights.length) {
    throw new RangeError(`Expected ${model.weights.length} weights (as in the model) for checkpoint ${where} but received ${weights.length}`);
  }
  model.weights.forEach((w, i) => {
    const t = weights[i] as Tensor;
    if (t.shape.join(',') !== w.shape.join(',')) {
      throw new RangeError(`Expected shape [${w.shape.join(', ')}] (as in the model) for weight ${i} of checkpoint ${where} but received [${t.shape.join(', ')}]`);
    }
    (w.read() as Variable).assign(t);
  });
  const state = specs.flatMap((s, i) => (s.group === 'optimizer' ? [{ name: s.name, tensor: tensors[i] as Tensor }] : []));
  if (state.length > 0 && model.optimizer != null && canTransferState(model.optimizer)) {
    const inner = unwrapOptimizer(model.optimizer);
    const replaced = await inner.getWeights();
    await model.optimizer.setWeights(state);
    dispose(replaced.map((w) => w.tensor));
  }
  dispose(tensors);
  return latest.epoch;
}

/**
 * Resumes from the latest checkpoint in `directory`: rank `root` reads it (model weights by
 * position with a shape check, optimizer state) and broadcasts model and optimizer state to
 * every rank. Resolves on every rank with the checkpoint's epoch, so training continues at
 * `epoch + 1`, or undefined when there is no checkpoint yet (nothing changes). A failure to read
 * rejects on every rank with the same message.
 *
 * @example
 * ```ts
 * const last = await restoreCheckpoint(model, { directory: './checkpoints' });
 * const initialEpoch = last === undefined ? 0 : last + 1;
 * ```
 */
export async function restoreCheckpoint(model: LayersModel, options: RestoreCheckpointOptions): Promise<number | undefined> {
  if (model === null || typeof model !== 'object' || !Array.isArray(model.weights)) {
    throw invalidArgument({ what: 'a tfjs LayersModel', name: 'model', value: model });
  }
  const o = checkOptions(options, { opName: 'restoreCheckpoint', allowed: ['directory', 'root'] });
  const directory = expectNonEmptyString(o.directory, 'directory');
  const distributed = isInitialized() && size() > 1;
  const root = expectInteger(o.root ?? 0, { name: 'root', min: 0, max: distributed ? size() - 1 : 0 });
  let outcome: { epoch?: number; error?: string } = {};
  if (!distributed || rank() === root) {
    try {
      outcome = { epoch: await loadLatest(model, directory) };
    } catch (error) {
      if (!distributed) throw error;
      outcome = { error: `rank ${root} could not restore ${directory}: ${(error as Error).message}` };
    }
  }
  if (!distributed) return outcome.epoch;
  outcome = await broadcastObject(outcome, { root });
  if (outcome.error !== undefined) throw new Error(outcome.error);
  if (outcome.epoch === undefined) return undefined;
  await broadcastModel(model, root);
  if (model.optimizer != null && canTransferState(model.optimizer)) await broadcastOptimizerState(model.optimizer, root);
  return outcome.epoch;
}
