import type { NativeBinding } from '@kolo/native';
import { UnsupportedError } from '../errors/unsupported-error.js';
import { expectOneOf } from '../validation/checks.js';

/**
 * Reductions. `average` (the default, as Horovod) is a sum divided by size in the engine.
 *
 * @example
 * ```ts
 * await allreduce(counts, { op: 'sum' satisfies ReduceOpName });
 * ```
 */
export type ReduceOpName = 'average' | 'sum' | 'min' | 'max' | 'product';

/** Every reduction, in documentation order. */
export const reduceOpNames: readonly ReduceOpName[] = ['average', 'sum', 'min', 'max', 'product'];

/**
 * Validates `op` (default `average`) against `allowed` and returns the engine's id for it, read
 * from the binding's constants.
 *
 * @example
 * ```ts
 * reduceOpId(binding, { op: 'sum' }); // binding.constants.reduceOps.sum
 * ```
 */
export function reduceOpId(
  binding: NativeBinding,
  spec: { readonly op: unknown; readonly allowed?: readonly ReduceOpName[] },
): number {
  const op = expectOneOf(spec.op ?? 'average', {
    name: 'op',
    choices: spec.allowed ?? reduceOpNames,
  });
  const id = binding.constants.reduceOps[op];
  if (id === undefined) {
    throw new UnsupportedError(`This build of the Kolo engine does not support reduction ${op}.`);
  }
  return id;
}
