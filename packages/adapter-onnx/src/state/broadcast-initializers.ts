import { broadcast, checkOptions, expectInteger, expectNonEmptyString, size } from '@kolo/core';
import { checkSameLayout } from './same-layout.js';
import { modelTensors, type InitializerTarget } from './model-tensors.js';

/**
 * Options of {@link broadcastInitializers}.
 *
 * @example
 * ```ts
 * await broadcastInitializers(model, { root: 0, name: 'start' } satisfies BroadcastInitializersOptions);
 * ```
 */
export interface BroadcastInitializersOptions {
  /** The rank whose values everyone receives; default 0. */
  readonly root?: number;
  /** Prefix of the request names (`<name>.<tensor>`); the same on every rank. Default `initializers`. */
  readonly name?: string;
}

/**
 * Gives every rank the root's initializers (or tensors), e.g. so all workers start training from
 * the same weights. Every rank must pass a target with the same tensor names, types and dims, in
 * the same order; otherwise every rank rejects with a MismatchError. Updates `target` in place.
 *
 * @example
 * ```ts
 * const model = await OnnxModel.load('mlp.onnx');
 * await broadcastInitializers(model, { root: 0 });
 * ```
 */
export async function broadcastInitializers(target: InitializerTarget, options?: BroadcastInitializersOptions): Promise<void> {
  const o = checkOptions(options, { opName: 'broadcastInitializers', allowed: ['root', 'name'] });
  const root = expectInteger(o.root ?? 0, { name: 'root', min: 0, max: size() - 1 });
  const prefix = expectNonEmptyString(o.name ?? 'initializers', 'name');
  const { tensors, commit } = modelTensors(target, 'broadcastInitializers');
  await checkSameLayout(tensors, { opName: 'broadcastInitializers', name: `${prefix}.layout` });
  await Promise.all(
    tensors.map((t) => broadcast(t.data, { root, name: `${prefix}.${t.name}`, output: t.data })),
  );
  commit();
}
