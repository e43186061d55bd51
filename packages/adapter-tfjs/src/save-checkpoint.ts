import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { LayersModel } from '@tensorflow/tfjs-layers';
import { checkOptions, expectInteger, expectNonEmptyString, invalidArgument, isInitialized, rank } from '@kolo/core';
import { canTransferState } from './broadcast-optimizer-state.js';
import { checkpointFolder, pruneCheckpoints, temporaryPath, writeLatest } from './checkpoint-layout.js';
import { fileSystemHandler } from './file-io-handler.js';

/**
 * Options of {@link saveCheckpoint}.
 *
 * @example
 * ```ts
 * const o: SaveCheckpointOptions = { directory: './checkpoints', epoch: 3, keep: 2 };
 * ```
 */
export interface SaveCheckpointOptions {
  /** The checkpoint directory (created if missing). */
  readonly directory: string;
  /** The epoch just finished (0-based, as `model.fit` callbacks count). */
  readonly epoch: number;
  /** How many checkpoints to keep; default 2. */
  readonly keep?: number;
  /** Which rank writes; default 0. The others return at once. */
  readonly root?: number;
}

/**
 * Saves `model` (every weight, plus its optimizer's state unless it is Adamax) on rank `root`
 * only, atomically: the checkpoint is written as `model.json` + `weights.bin` in a temporary
 * folder that is then renamed to `epoch-NNNNN`, and `latest.json` is switched to it by another
 * rename. A crash at any point leaves the previous checkpoint intact. Resolves with the folder
 * written, or undefined on other ranks.
 *
 * @example
 * ```ts
 * await saveCheckpoint(model, { directory: './checkpoints', epoch });
 * ```
 */
export async function saveCheckpoint(model: LayersModel, options: SaveCheckpointOptions): Promise<string | undefined> {
  if (model === null || typeof model !== 'object' || typeof model.save !== 'function') {
    throw invalidArgument({ what: 'a tfjs LayersModel', name: 'model', value: model });
  }
  const o = checkOptions(options, { opName: 'saveCheckpoint', allowed: ['directory', 'epoch', 'keep', 'root'] });
  const directory = expectNonEmptyString(o.directory, 'directory');
  const epoch = expectInteger(o.epoch, { name: 'epoch', min: 0 });
  const keep = expectInteger(o.keep ?? 2, { name: 'keep', min: 1 });
  const root = expectInteger(o.root ?? 0, { name: 'root', min: 0 });
  if ((isInitialized() ? rank() : 0) !== root) return undefined;
  await mkdir(directory, { recursive: true });
  const folder = checkpointFolder(epoch);
  const temporary = temporaryPath(directory, folder);
  const includeOptimizer = model.optimizer != null && canTransferState(model.optimizer);
  await model.save(fileSystemHandler(temporary), { includeOptimizer });
  const final = join(directory, folder);
  await rm(final, { recursive: true, force: true });
  await rename(temporary, final);
  await writeLatest(directory, { epoch, path: folder });
  await pruneCheckpoints(directory, { keep });
  return final;
}
