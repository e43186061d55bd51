import { create } from './create.js';
import type { GradientCompressionParams } from './gradient-compression.js';
import type { FloatArray, Optimizer } from './optimizer.js';
import type { TrainerPlan, TrainerStore } from './trainer-plan.js';

/**
 * gluon's `_init_kvstore` for one device per process: creates the planned store (if a type was
 * given), sets compression and, with `updateOnKvstore`, the optimizer, then broadcasts rank 0's
 * weights into `params` (key = parameter index). Resolves with the store, or undefined.
 *
 * @example
 * ```ts
 * const store = await setUpStore(plan, { optimizer, compression: undefined, params });
 * ```
 */
export async function setUpStore(
  plan: TrainerPlan,
  spec: { readonly optimizer: Optimizer; readonly compression: GradientCompressionParams | undefined; readonly params: readonly FloatArray[] },
): Promise<TrainerStore | undefined> {
  const planned = plan.store;
  if (planned === undefined) return undefined;
  const store = 'kind' in planned ? await create(planned.name) : planned;
  if (spec.compression !== undefined) store.setGradientCompression(spec.compression);
  if (plan.updateOnKvstore) store.setOptimizer(spec.optimizer);
  await Promise.all(spec.params.map((w, i) => store.broadcast(i, w, { out: w, priority: -i })));
  return store;
}

/**
 * Sums each gradient over workers in place (gluon's `_allreduce_grads` without update on
 * kvstore); with `out`, the store's updated weights go there instead (update on kvstore).
 *
 * @example
 * ```ts
 * await pushpullAll(store, grads);          // grads summed
 * await pushpullAll(store, grads, params);  // params = the store's updated weights
 * ```
 */
export async function pushpullAll(store: TrainerStore, grads: readonly FloatArray[], out?: readonly FloatArray[]): Promise<void> {
  await Promise.all(grads.map((g, i) => store.pushpull(i, g, { ...(out === undefined ? {} : { out: out[i] as FloatArray }), priority: -i })));
}
