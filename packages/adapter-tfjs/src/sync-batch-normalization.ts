import { mul, ones, serialization, sub, tensor, tidy, zeros, type Tensor } from '@tensorflow/tfjs-core';
import { layers, type LayerVariable } from '@tensorflow/tfjs-layers';
import { expectOneOf } from '@kolo/core';
import { syncBatchNorm } from './sync-batch-norm-op.js';
import type { CommScope } from './sync-moments.js';

type BatchNormalizationArgs = NonNullable<Parameters<typeof layers.batchNormalization>[0]>;
type BatchNormalizationLayer = ReturnType<typeof layers.batchNormalization>;

/**
 * Arguments of {@link SyncBatchNormalization}: those of `tf.layers.batchNormalization` plus the
 * scope of the statistics.
 *
 * @example
 * ```ts
 * const args: SyncBatchNormalizationArgs = { momentum: 0.9, commScope: 'local' };
 * ```
 */
export interface SyncBatchNormalizationArgs extends BatchNormalizationArgs {
  /** `global` (default): statistics over all ranks; `local`: over the ranks on this host. */
  commScope?: CommScope;
}

/** The private fields of tfjs-layers' BatchNormalization this subclass reads (stable since 1.x). */
interface BatchNormalizationFields {
  readonly axis: number;
  readonly momentum: number;
  readonly epsilon: number;
  readonly gamma?: LayerVariable;
  readonly beta?: LayerVariable;
  readonly movingMean: LayerVariable;
  readonly movingVariance: LayerVariable;
}

/** tfjs-layers registers BatchNormalization for deserialization but does not export the class. */
function batchNormalizationClass(): new (args?: BatchNormalizationArgs) => BatchNormalizationLayer {
  const entry = serialization.SerializationMap.getMap().classNameMap['BatchNormalization'];
  if (entry === undefined) throw new Error('@tensorflow/tfjs-layers did not register BatchNormalization; load @tensorflow/tfjs-layers (>= 4.22) first.');
  return entry[0] as unknown as new (args?: BatchNormalizationArgs) => BatchNormalizationLayer;
}

/**
 * A drop-in replacement for `tf.layers.batchNormalization` whose training-mode statistics come
 * from the batches of all ranks (or of the ranks on this host), so N workers on batch B/N
 * normalize, back-propagate and update their moving statistics exactly as one worker on batch B.
 * Each training call makes two small blocking collectives (forward statistics, backward sums);
 * every rank must run the same layers in the same order. Inference uses the moving statistics.
 * Registered for serialization: saved models load with `tf.loadLayersModel`.
 *
 * @example
 * ```ts
 * model.add(tf.layers.dense({ units: 64 }));
 * model.add(new SyncBatchNormalization({ momentum: 0.9 }));
 * ```
 */
export class SyncBatchNormalization extends batchNormalizationClass() {
  /** The name tfjs serialization registers the layer under. @nocollapse */
  static className = 'SyncBatchNormalization';
  /** The ranks whose batches make up the statistics. */
  readonly commScope: CommScope;

  constructor(args: SyncBatchNormalizationArgs = {}) {
    const { commScope, ...rest } = args;
    super(rest);
    this.commScope = expectOneOf(commScope ?? 'global', { name: 'commScope', choices: ['global', 'local'] });
  }

  /**
   * In training, normalizes with the mean and variance over every rank's batch (one allreduce) and
   * updates the moving statistics; in inference, behaves as BatchNormalization.
   */
  override call(inputs: Tensor | Tensor[], kwargs: { [key: string]: unknown }): Tensor | Tensor[] {
    if (kwargs['training'] !== true) return super.call(inputs, kwargs);
    const x = Array.isArray(inputs) ? (inputs[0] as Tensor) : inputs;
    const f = this as unknown as BatchNormalizationFields;
    const axis = f.axis >= 0 ? f.axis : f.axis + x.rank;
    const channels = x.shape[axis] as number;
    const gamma = f.gamma?.read() ?? ones([channels]);
    const beta = f.beta?.read() ?? zeros([channels]);
    const { y, mean, variance } = syncBatchNorm(x, gamma, beta, {
      axis,
      epsilon: f.epsilon,
      scope: this.commScope,
      name: 'SyncBatchNormalization',
    });
    const decay = 1 - f.momentum;
    for (const [variable, value] of [[f.movingMean, mean], [f.movingVariance, variance]] as const) {
      tidy(() => {
        const old = variable.read();
        variable.write(sub(old, mul(sub(old, tensor(Float32Array.from(value))), decay)));
      });
    }
    return y;
  }

  /** BatchNormalization's config plus `commScope`, so saved models load with the same scope. */
  override getConfig(): serialization.ConfigDict {
    return { ...super.getConfig(), commScope: this.commScope };
  }
}

// Registration (tfjs's own convention for layers) lets tf.loadLayersModel rebuild saved models.
// It touches only tfjs's class registry; the static fromConfig is inherited from Serializable.
serialization.registerClass(
  SyncBatchNormalization as unknown as serialization.SerializableConstructor<SyncBatchNormalization>,
);
