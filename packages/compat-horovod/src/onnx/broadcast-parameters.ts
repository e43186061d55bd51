import { broadcastInitializers, type InitializerTarget } from '@kolo/adapter-onnx';

/**
 * Horovod's `broadcast_parameters(params, root_rank)` for ONNX models: every rank gets the root's
 * initializers (an `OnnxModel`, or a list of named tensors), so training starts from the same
 * weights everywhere.
 *
 * @example
 * ```ts
 * await hvd.broadcastParameters(model, 0);
 * ```
 */
export function broadcastParameters(params: InitializerTarget, rootRank = 0): Promise<void> {
  return broadcastInitializers(params, { root: rootRank });
}
