import { Callback } from '@tensorflow/tfjs-layers';
import { checkOptions, expectInteger, expectNonEmptyString } from '@kolo/core';
import { saveCheckpoint } from './save-checkpoint.js';

/**
 * Options of {@link CheckpointCallback}.
 *
 * @example
 * ```ts
 * const o: CheckpointCallbackOptions = { directory: './checkpoints', keep: 2 };
 * ```
 */
export interface CheckpointCallbackOptions {
  /** The checkpoint directory. */
  readonly directory: string;
  /** How many checkpoints to keep; default 2. */
  readonly keep?: number;
}

/**
 * A `model.fit` callback that saves a checkpoint at the end of every epoch on rank 0 only
 * ({@link saveCheckpoint}); resume with {@link restoreCheckpoint}.
 *
 * @example
 * ```ts
 * const last = await restoreCheckpoint(model, { directory: 'ckpt' });
 * await model.fit(xs, ys, { epochs: 10, initialEpoch: last === undefined ? 0 : last + 1,
 *   callbacks: [new BroadcastGlobalVariablesCallback(0), new CheckpointCallback({ directory: 'ckpt' })] });
 * ```
 */
export class CheckpointCallback extends Callback {
  private readonly directory: string;
  private readonly keep: number;

  constructor(options: CheckpointCallbackOptions) {
    super();
    const o = checkOptions(options, { opName: 'CheckpointCallback', allowed: ['directory', 'keep'] });
    this.directory = expectNonEmptyString(o.directory, 'directory');
    this.keep = expectInteger(o.keep ?? 2, { name: 'keep', min: 1 });
  }

  /** Saves the checkpoint of `epoch` on rank 0 and keeps the newest `keep` (called by `model.fit`). */
  override async onEpochEnd(epoch: number): Promise<void> {
    await saveCheckpoint(this.model, { directory: this.directory, epoch, keep: this.keep });
  }
}
