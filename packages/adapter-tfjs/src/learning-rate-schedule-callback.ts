import type { Tensor } from '@tensorflow/tfjs-core';
import { Callback } from '@tensorflow/tfjs-layers';
import { checkOptions, expectFiniteNumber, expectInteger, invalidArgument } from '@kolo/core';
import { getLearningRate, getMomentum, setLearningRate, setMomentum } from './learning-rate.js';

/**
 * Options of {@link LearningRateScheduleCallback}, as Horovod's.
 *
 * @example
 * ```ts
 * const o: LearningRateScheduleOptions = { initialLr: 0.1 * size(), multiplier: 0.1, startEpoch: 30, endEpoch: 60 };
 * ```
 */
export interface LearningRateScheduleOptions {
  /** The learning rate the multiplier applies to (usually the single-rank rate × size()). */
  readonly initialLr: number;
  /** `lr = initialLr * multiplier(epoch)`; a number m means `m ** (epoch - startEpoch)` (staircase). */
  readonly multiplier: number | ((epoch: number) => number);
  /** First epoch (inclusive) the schedule applies to; default 0. */
  readonly startEpoch?: number;
  /** Epoch (exclusive) the schedule stops at; default never. */
  readonly endEpoch?: number;
  /** Adjust once per epoch (true, default) or every batch with a fractional epoch (false). */
  readonly staircase?: boolean;
  /** Scale Momentum/RMSProp momentum by new/old lr for the adjusted batch; default true. */
  readonly momentumCorrection?: boolean;
  /** Batches per epoch for the fractional epoch; default from fit's params. */
  readonly stepsPerEpoch?: number;
}

const keys = ['initialLr', 'multiplier', 'startEpoch', 'endEpoch', 'staircase', 'momentumCorrection', 'stepsPerEpoch'];

/**
 * Sets the learning rate from a schedule at the start of each epoch (staircase) or each batch
 * (Horovod's `LearningRateScheduleCallback`), with momentum correction (Goyal et al., 2017), and
 * records the rate as `logs.lr` at the end of each epoch.
 *
 * @example
 * ```ts
 * new LearningRateScheduleCallback({ initialLr: 0.01 * size(), multiplier: (e) => (e < 10 ? 1 : 0.1), startEpoch: 5 });
 * ```
 */
export class LearningRateScheduleCallback extends Callback {
  /** The validated options, with a constant multiplier turned into its per-epoch function. */
  protected readonly schedule: Required<Omit<LearningRateScheduleOptions, 'stepsPerEpoch'>> & {
    /** The learning-rate multiplier at a (fractional) epoch. */
    multiplier: (epoch: number) => number;
  };
  /** Batches per epoch, for smooth schedules: given, or learned from `fit` at train begin. */
  protected stepsPerEpoch: number | undefined;
  private currentEpoch = 0;
  private restoreMomentum: number | undefined;

  constructor(options: LearningRateScheduleOptions) {
    super();
    const o = checkOptions(options, { opName: 'LearningRateScheduleCallback', allowed: keys });
    if (o.initialLr === undefined) throw invalidArgument({ what: 'a learning rate', name: 'initialLr', value: undefined });
    const startEpoch = expectInteger(o.startEpoch ?? 0, { name: 'startEpoch', min: 0 });
    const m = o.multiplier;
    if (typeof m !== 'function') expectFiniteNumber(m, 'multiplier');
    this.schedule = {
      initialLr: expectFiniteNumber(o.initialLr, 'initialLr'),
      multiplier: typeof m === 'function' ? m : (epoch) => m ** (epoch - startEpoch),
      startEpoch,
      endEpoch: o.endEpoch === undefined ? Infinity : expectInteger(o.endEpoch, { name: 'endEpoch', min: startEpoch }),
      // As in Horovod, a constant multiplier is an exponential decay applied per whole epoch.
      staircase: typeof m === 'function' ? (o.staircase ?? true) : true,
      momentumCorrection: o.momentumCorrection ?? true,
    };
    this.stepsPerEpoch = o.stepsPerEpoch === undefined ? undefined : expectInteger(o.stepsPerEpoch, { name: 'stepsPerEpoch', min: 1 });
  }

  /** Learns the steps per epoch from `fit`'s parameters when the schedule is smooth (called by `model.fit`). */
  override async onTrainBegin(): Promise<void> {
    if (this.schedule.staircase || this.stepsPerEpoch !== undefined) return;
    const { steps, samples, batchSize } = this.params as { steps?: number | null; samples?: number | null; batchSize?: number | null };
    if (typeof steps === 'number' && steps > 0) this.stepsPerEpoch = steps;
    else if (typeof samples === 'number' && typeof batchSize === 'number') this.stepsPerEpoch = Math.ceil(samples / batchSize);
    else throw invalidArgument({ what: 'stepsPerEpoch (fit did not report steps or samples)', name: 'stepsPerEpoch', value: undefined });
  }

  /** Records the epoch that begins (called by `model.fit`). */
  override async onEpochBegin(epoch: number): Promise<void> {
    this.currentEpoch = epoch;
  }

  /** Sets the learning rate for this batch, and scales momentum with it when asked (called by `model.fit`). */
  override async onBatchBegin(batch: number): Promise<void> {
    const { startEpoch, endEpoch, staircase } = this.schedule;
    if (this.currentEpoch < startEpoch || this.currentEpoch >= endEpoch) return;
    if (staircase && batch === 0) this.adjust(this.currentEpoch);
    else if (!staircase) this.adjust(this.currentEpoch + batch / (this.stepsPerEpoch ?? 1));
  }

  /** Restores the momentum that `onBatchBegin` scaled for one step (called by `model.fit`). */
  override async onBatchEnd(): Promise<void> {
    if (this.restoreMomentum === undefined) return;
    setMomentum(this.model.optimizer, this.restoreMomentum);
    this.restoreMomentum = undefined;
  }

  /** Adds the current learning rate to the epoch's logs as `lr` (called by `model.fit`). */
  override async onEpochEnd(_epoch: number, logs?: { [key: string]: number | Tensor }): Promise<void> {
    if (logs != null) logs['lr'] = getLearningRate(this.model.optimizer);
  }

  /** The multiplier at a (fractional) epoch; subclasses with their own formula override it. */
  protected multiplierAt(epoch: number): number {
    return this.schedule.multiplier(epoch);
  }

  private adjust(epoch: number): void {
    const optimizer = this.model.optimizer;
    const oldLr = getLearningRate(optimizer);
    const newLr = this.schedule.initialLr * this.multiplierAt(epoch);
    setLearningRate(optimizer, newLr);
    const momentum = getMomentum(optimizer);
    if (this.schedule.momentumCorrection && momentum !== undefined && oldLr !== 0) {
      this.restoreMomentum = momentum;
      setMomentum(optimizer, (momentum * newLr) / oldLr);
    }
  }
}
