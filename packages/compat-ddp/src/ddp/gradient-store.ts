import type { Tensor as TfTensor } from '@tensorflow/tfjs-core';
import type { TfCore } from '../load-tf.js';

/**
 * The gradients DDP accumulates between `zeroGrad()` calls (torch's `.grad` fields), by
 * parameter index: `backward` adds to them, a synchronizing `backward` replaces them with their
 * average across ranks.
 *
 * @example
 * ```ts
 * const store = new GradientStore(tf);
 * store.add(0, grad); // kept, or summed with the gradient already there
 * ```
 */
export class GradientStore {
  private readonly grads = new Map<number, TfTensor>();

  constructor(private readonly tf: TfCore) {}

  /** Adds `grad` to parameter `i`'s gradient (taking ownership of `grad`). */
  add(i: number, grad: TfTensor | undefined): void {
    if (grad === undefined) return;
    const previous = this.grads.get(i);
    if (previous === undefined) {
      this.grads.set(i, grad);
      return;
    }
    this.grads.set(i, this.tf.add(previous, grad));
    previous.dispose();
    grad.dispose();
  }

  /** True when parameter `i` has a gradient. */
  has(i: number): boolean {
    return this.grads.has(i);
  }

  /** The gradients by parameter index (still owned by the store). */
  entries(): ReadonlyMap<number, TfTensor> {
    return this.grads;
  }

  /** Disposes every gradient and puts `next` in their place. */
  replace(next: ReadonlyMap<number, TfTensor> = new Map()): void {
    for (const g of this.grads.values()) g.dispose();
    this.grads.clear();
    for (const [i, g] of next) this.grads.set(i, g);
  }
}
