import type { NamedTensor } from '../model/named-tensor.js';
import { elementCount } from '../model/named-tensor.js';
import type { TrainableWeight } from './training-graph.js';

/**
 * Every weight in one float32 buffer, plus a view per weight, so that one optimizer call and one
 * allreduce cover the whole model and onnxruntime reads the views without copies.
 *
 * @example
 * ```ts
 * const flat = new FlatWeights([{ name: 'b', dims: [2], gradient: 'grad.b' }]);
 * flat.view('b').set([1, 2]);
 * flat.buffer; // Float32Array [1, 2]
 * ```
 */
export class FlatWeights {
  /** All weights, back to back in graph-input order. */
  readonly buffer: Float32Array;
  private readonly views = new Map<string, Float32Array>();

  constructor(readonly weights: readonly TrainableWeight[]) {
    const offsets = weights.map((w) => elementCount(w.dims));
    this.buffer = new Float32Array(offsets.reduce((a, b) => a + b, 0));
    let offset = 0;
    weights.forEach((w, i) => {
      this.views.set(w.name, this.buffer.subarray(offset, offset + offsets[i]!));
      offset += offsets[i]!;
    });
  }

  /**
   * The live view of one weight inside {@link FlatWeights.buffer}.
   *
   * @example
   * ```ts
   * flat.view('W1').length; // 784 * 16
   * ```
   */
  view(name: string): Float32Array {
    const view = this.views.get(name);
    if (!view) throw new RangeError(`Kolo internal: no weight '${name}'`);
    return view;
  }

  /**
   * Copies of every weight as tensors, in graph-input order.
   *
   * @example
   * ```ts
   * for (const w of flat.tensors()) console.log(w.name, w.dims);
   * ```
   */
  tensors(): NamedTensor[] {
    return this.weights.map((w) => ({ name: w.name, type: 'float32', dims: [...w.dims], data: this.view(w.name).slice() }));
  }
}
