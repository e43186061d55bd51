import { Callback } from '@tensorflow/tfjs-layers';
import { expectInteger } from '@kolo/core';
import { broadcastModel } from './broadcast-variables.js';
import { broadcastOptimizerState, canTransferState } from './broadcast-optimizer-state.js';

/**
 * A `model.fit` callback that, before the first batch, overwrites every rank's model weights and
 * optimizer state with `root`'s (Horovod's `BroadcastGlobalVariablesCallback`), so all ranks
 * start identical whether the weights are fresh or loaded from a checkpoint on `root`. Adamax
 * state cannot be exported by tfjs; with Adamax only the model is broadcast.
 *
 * @example
 * ```ts
 * await model.fit(xs, ys, { callbacks: [new BroadcastGlobalVariablesCallback(0), new MetricAverageCallback()] });
 * ```
 */
export class BroadcastGlobalVariablesCallback extends Callback {
  /** The rank whose weights everyone receives. */
  readonly root: number;

  constructor(root = 0) {
    super();
    this.root = expectInteger(root, { name: 'root', min: 0 });
  }

  /** Broadcasts `root`'s weights and optimizer state before the first batch (called by `model.fit`). */
  override async onTrainBegin(): Promise<void> {
    await broadcastModel(this.model, this.root);
    const optimizer = this.model.optimizer;
    if (optimizer != null && canTransferState(optimizer)) await broadcastOptimizerState(optimizer, this.root);
  }
}
