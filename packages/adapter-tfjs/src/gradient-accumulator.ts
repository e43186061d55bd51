/**
 * Sums fused gradient buffers over `passesPerStep` local backward passes (Horovod's
 * `backward_passes_per_step`) and hands the sum back when the step is complete.
 *
 * @example
 * ```ts
 * const acc = new GradientAccumulator(4);
 * const ready = acc.add(fused); // undefined until the 4th pass
 * ```
 */
export class GradientAccumulator {
  private sum: Float32Array | undefined;
  private passes = 0;

  constructor(readonly passesPerStep: number) {}

  /**
   * Adds one pass. Returns the summed buffer when this pass completes the step (and starts a new
   * one), otherwise undefined. Every pass must fuse the same number of values.
   *
   * @example
   * ```ts
   * const ready = acc.add(fuseGradients(entries));
   * if (ready) reduceFusedSync(ready, plan);
   * ```
   */
  add(fused: Float32Array): Float32Array | undefined {
    if (this.sum === undefined) {
      this.sum = this.passesPerStep === 1 ? fused : Float32Array.from(fused);
    } else if (this.sum.length !== fused.length) {
      throw new RangeError(
        `Expected ${this.sum.length} fused gradient values for pass ${this.passes + 1} of backwardPassesPerStep but received ${fused.length}`,
      );
    } else {
      const sum = this.sum;
      for (let i = 0; i < sum.length; i++) sum[i] = (sum[i] as number) + (fused[i] as number);
    }
    this.passes += 1;
    if (this.passes < this.passesPerStep) return undefined;
    const ready = this.sum;
    this.reset();
    return ready;
  }

  /** Drops any partial step (e.g. after loading a checkpoint). */
  reset(): void {
    this.sum = undefined;
    this.passes = 0;
  }
}
