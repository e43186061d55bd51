import { UnsupportedError } from '@kolo/core';
import type { Tensor } from 'onnxruntime-node';
import { formatDims } from '../model/named-tensor.js';
import type { TrainingGraph } from './training-graph.js';

/**
 * Copies every gradient output of one step, in weight order, and then the loss into `into`
 * (length: all weights + 1), ready for one allreduce. Checks that each gradient is float32 with
 * its weight's dims.
 *
 * @example
 * ```ts
 * fuseStepOutputs({ results: await session.run(feeds, fetches), graph, into: fused });
 * ```
 */
export function fuseStepOutputs(options: {
  results: Readonly<Record<string, Tensor>>;
  graph: TrainingGraph;
  into: Float32Array;
}): void {
  const { results, graph, into } = options;
  let offset = 0;
  for (const w of graph.weights) {
    const gradient = results[w.gradient]!;
    if (gradient.type !== 'float32' || formatDims(gradient.dims) !== formatDims(w.dims)) {
      throw new UnsupportedError(
        `Gradient output '${w.gradient}' is ${gradient.type} ${formatDims(gradient.dims)}; ` +
          `it must be float32 ${formatDims(w.dims)} like weight '${w.name}'`,
      );
    }
    into.set(gradient.data as Float32Array, offset);
    offset += gradient.size;
  }
  const loss = results[graph.loss]!;
  if (loss.size !== 1) throw new UnsupportedError(`Loss output '${graph.loss}' has dims ${formatDims(loss.dims)}; it must be a scalar`);
  into[offset] = Number(loss.data[0]);
}
