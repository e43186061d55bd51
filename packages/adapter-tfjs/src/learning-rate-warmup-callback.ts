import type { Tensor } from '@tensorflow/tfjs-core';
import { checkOptions, expectInteger, size } from '@kolo/core';
import { getLearningRate } from './learning-rate.js';
import { LearningRateScheduleCallback } from './learning-rate-schedule-callback.js';

/**
 * Options of {@link LearningRateWarmupCallback}, as Horovod's.
 *
 * @example
 * ```ts
 * const o: LearningRateWarmupOptions = { initialLr: 0.001 * size(), warmupEpochs: 3, verbose: rank() === 0 ? 1 : 0 };
 * ```
 */
export interface LearningRateWarmupOptions {
  /** The rate reached at the end of the warmup (usually the single-rank rate × size()). */
  readonly initialLr: number;
  /** Epochs the warmup lasts; default 5. */
  readonly warmupEpochs?: number;
  /** Scale Momentum/RMSProp momentum by new/old lr for each adjusted batch; default true. */
  readonly momentumCorrection?: boolean;
  /** Batches per epoch; default from fit's params. */
  readonly stepsPerEpoch?: number;
  /** 1 prints a line when the warmup ends; default 0. */
  readonly verbose?: number;
}

/**
 * Horovod's gradual learning-rate warmup (Goyal et al., 2017): over the first `warmupEpochs` the
 * rate grows linearly, batch by batch, from `initialLr / size()` to `initialLr`:
 * `lr = initialLr / size() * (e * (size() - 1) / warmupEpochs + 1)` with
 * `e = epoch + (batch + 1) / stepsPerEpoch`.
 *
 * @example
 * ```ts
 * callbacks: [new BroadcastGlobalVariablesCallback(0), new LearningRateWarmupCallback({ initialLr: 0.001 * size(), warmupEpochs: 2 })]
 * ```
 */
export class LearningRateWarmupCallback extends LearningRateScheduleCallback {
  private readonly verbose: number;
  private readonly warmupEpochs: number;

  constructor(options: LearningRateWarmupOptions) {
    const o = checkOptions(options, {
      opName: 'LearningRateWarmupCallback',
      allowed: ['initialLr', 'warmupEpochs', 'momentumCorrection', 'stepsPerEpoch', 'verbose'],
    });
    const warmupEpochs = expectInteger(o.warmupEpochs ?? 5, { name: 'warmupEpochs', min: 1 });
    super({
      initialLr: o.initialLr,
      multiplier: () => 1, // the formula is multiplierAt below: it needs stepsPerEpoch
      startEpoch: 0,
      endEpoch: warmupEpochs,
      staircase: false,
      ...(o.momentumCorrection !== undefined && { momentumCorrection: o.momentumCorrection }),
      ...(o.stepsPerEpoch !== undefined && { stepsPerEpoch: o.stepsPerEpoch }),
    });
    this.warmupEpochs = warmupEpochs;
    this.verbose = expectInteger(o.verbose ?? 0, { name: 'verbose', min: 0 });
  }

  protected override multiplierAt(epoch: number): number {
    // Shifted by one batch so that each epoch ends on a round value, as in Horovod.
    const e = epoch + 1 / (this.stepsPerEpoch ?? 1);
    return (1 / size()) * ((e * (size() - 1)) / this.warmupEpochs + 1);
  }

  /** Logs `lr` and, with `verbose`, prints the rate reached at the end of the warmup (called by `model.fit`). */
  override async onEpochEnd(epoch: number, logs?: { [key: string]: number | Tensor }): Promise<void> {
    await super.onEpochEnd(epoch, logs);
    if (epoch === this.schedule.endEpoch - 1 && this.verbose > 0) {
      const lr = getLearningRate(this.model.optimizer);
      console.log(`\nEpoch ${epoch + 1}: finished gradual learning rate warmup to ${lr}.`);
    }
  }
}
