import { invalidArgument, type HostArray } from '@kolo/core';
import { keyLabel, type Key } from './keys.js';
import type { FloatArray, Optimizer, OptimizerState } from './optimizer.js';

/**
 * MXNet's updater contract, `updater(key, recv, stored)`: applies a received (summed) gradient
 * to the stored weight in place.
 *
 * @example
 * ```ts
 * const updater: Updater = (key, grad, weight) => { weight[0] -= 0.1 * Number(grad[0]); };
 * ```
 */
export type Updater = (key: Key, grad: HostArray, weight: HostArray) => void;

/**
 * An optimizer plus its per-key state, created on first use (MXNet's `get_updater`).
 *
 * @example
 * ```ts
 * const updater = new OptimizerUpdater(new SGD({ learningRate: 0.1 }));
 * updater.update(0, grad, weight);
 * ```
 */
export class OptimizerUpdater {
  /** State per key. */
  readonly states = new Map<Key, OptimizerState>();

  constructor(
    /** The update rule. */
    readonly optimizer: Optimizer,
  ) {}

  /**
   * Applies `grad` to `weight` (both float32 or float64 arrays of one length).
   *
   * @example
   * ```ts
   * updater.update('w', grad, weight);
   * ```
   */
  update(key: Key, grad: HostArray, weight: HostArray): void {
    const float = (a: HostArray): a is FloatArray => a instanceof Float32Array || a instanceof Float64Array;
    if (!float(weight)) {
      throw invalidArgument({ what: 'a Float32Array or Float64Array (an optimizer is set)', name: `value of key ${keyLabel(key)}`, value: weight });
    }
    if (!float(grad) || grad.length !== weight.length) {
      throw invalidArgument({ what: `a float array of ${weight.length} elements`, name: `gradient of key ${keyLabel(key)}`, value: grad });
    }
    let state = this.states.get(key);
    if (state === undefined) {
      state = this.optimizer.createState(weight);
      this.states.set(key, state);
    }
    this.optimizer.update(weight, grad, state);
  }
}
