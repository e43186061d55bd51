import { UnsupportedError } from '@kolo/core';
import type { LayersModel } from '@tensorflow/tfjs-layers';
import { requireWorld, resolveGroup } from '../group-state.js';
import type { ProcessGroup } from '../process-group.js';

type Config = { className?: unknown; config?: unknown; layers?: unknown; [key: string]: unknown };

/** Renames every BatchNormalization in a (possibly nested) model config; counts them. */
function convertConfig(node: unknown): number {
  if (Array.isArray(node)) return node.reduce((n: number, item) => n + convertConfig(item), 0);
  if (node === null || typeof node !== 'object') return 0;
  const entry = node as Config;
  let count = 0;
  if (entry.className === 'BatchNormalization' && entry.config !== null && typeof entry.config === 'object') {
    entry.className = 'SyncBatchNormalization';
    (entry.config as Record<string, unknown>).commScope = 'global';
    count += 1;
  }
  return count + convertConfig(entry.config) + convertConfig(entry.layers);
}

/**
 * torch's `SyncBatchNorm`, for its `convertSyncBatchnorm`.
 *
 * @example
 * ```ts
 * const synced = await dist.SyncBatchNorm.convertSyncBatchnorm(model);
 * ```
 */
export const SyncBatchNorm = {
  /**
   * torch's `SyncBatchNorm.convert_sync_batchnorm` for a TensorFlow.js LayersModel: returns a
   * **new** model (tfjs models cannot swap layers in place) in which every BatchNormalization,
   * nested models included, is `@kolo/adapter-tfjs`'s SyncBatchNormalization with the same
   * configuration, and every weight (gamma, beta, moving statistics, the other layers') copied.
   * Training then normalizes with the statistics of the whole global batch. Only the world group
   * is supported (the adapter's layer syncs over all ranks or one host).
   *
   * @example
   * ```ts
   * const ddp = await DistributedDataParallel.create(await SyncBatchNorm.convertSyncBatchnorm(model));
   * ```
   */
  async convertSyncBatchnorm(model: LayersModel, processGroup?: ProcessGroup): Promise<LayersModel> {
    const world = requireWorld().world;
    if (processGroup !== undefined && resolveGroup(processGroup) !== world) {
      throw new UnsupportedError('convertSyncBatchnorm supports the world group only: SyncBatchNormalization syncs over every rank.', { opName: 'convertSyncBatchnorm' });
    }
    // Loading the adapter registers SyncBatchNormalization with tfjs's deserializer.
    await import('@kolo/adapter-tfjs');
    const config = model.getConfig();
    convertConfig(config);
    const Model = model.constructor as unknown as { fromConfig(cls: unknown, config: unknown): LayersModel };
    const converted = Model.fromConfig(Model, config);
    converted.setWeights(model.getWeights());
    return converted;
  },
};
