import type { Tensor } from '@tensorflow/tfjs-core';
import { Callback } from '@tensorflow/tfjs-layers';
import { allreduce } from '@kolo/core';

/** Epoch logs as tfjs-layers passes them: numbers, or scalars that the logs own. */
type EpochLogs = { [key: string]: number | Tensor };

/**
 * A `model.fit` callback that replaces each epoch's metrics (loss, accuracy, validation values)
 * with their average over all ranks, in one allreduce of the values sorted by name (Horovod's
 * `MetricAverageCallback`). List it before callbacks that read the metrics (early stopping,
 * checkpoints, progress printing) so they see the averages.
 *
 * @example
 * ```ts
 * await model.fit(xs, ys, { callbacks: [new BroadcastGlobalVariablesCallback(0), new MetricAverageCallback()] });
 * ```
 */
export class MetricAverageCallback extends Callback {
  /** Replaces every value in `logs` with its average over all ranks (called by `model.fit`). */
  override async onEpochEnd(_epoch: number, logs?: EpochLogs): Promise<void> {
    if (logs == null) return;
    const keys = Object.keys(logs).sort();
    const values = new Float64Array(keys.length);
    for (const [i, key] of keys.entries()) {
      const value = logs[key] as number | Tensor;
      values[i] = typeof value === 'number' ? value : ((await value.data())[0] as number);
    }
    await allreduce(values, { op: 'average', output: values });
    keys.forEach((key, i) => {
      const old = logs[key];
      logs[key] = values[i] as number;
      if (typeof old === 'object' && old !== null) old.dispose();
    });
  }
}
