import { invalidArgument, UnsupportedError, type ReduceOpName } from '@kolo/core';
import { valueError } from './horovod-errors.js';

/**
 * Horovod's reductions. They are strings (core's names), not Horovod's enum integers; pass them
 * as `op`. `Adasum` exists so ported code compiles, and fails with an UnsupportedError.
 *
 * @example
 * ```ts
 * await hvd.allreduce(counts, { op: hvd.Sum });
 * ```
 */
export type ReduceOp = ReduceOpName | 'adasum';

/**
 * The mean over ranks: a sum multiplied by `1 / size()` (integers truncate). The default.
 *
 * @example
 * ```ts
 * await hvd.allreduce(grad, { op: hvd.Average });
 * ```
 */
export const Average = 'average' satisfies ReduceOp;

/**
 * Element-wise sum.
 *
 * @example
 * ```ts
 * await hvd.allreduce(counts, { op: hvd.Sum });
 * ```
 */
export const Sum = 'sum' satisfies ReduceOp;

/**
 * Element-wise minimum.
 *
 * @example
 * ```ts
 * await hvd.allreduce(losses, { op: hvd.Min });
 * ```
 */
export const Min = 'min' satisfies ReduceOp;

/**
 * Element-wise maximum.
 *
 * @example
 * ```ts
 * await hvd.allreduce(losses, { op: hvd.Max });
 * ```
 */
export const Max = 'max' satisfies ReduceOp;

/**
 * Element-wise product.
 *
 * @example
 * ```ts
 * await hvd.allreduce(factors, { op: hvd.Product });
 * ```
 */
export const Product = 'product' satisfies ReduceOp;

/**
 * Horovod's Adasum. Kolo has no Adasum reduction: passing it throws an UnsupportedError that
 * says why (see {@link adasumMessage}).
 *
 * @example
 * ```ts
 * hvd.allreduce(grad, { op: hvd.Adasum }); // throws UnsupportedError
 * ```
 */
export const Adasum = 'adasum' satisfies ReduceOp;

/** Horovod's warning for the deprecated `average` argument. */
export const averageDeprecation =
  'Parameter `average` has been replaced with `op` and will be removed in v1.0';

/** Horovod's error when both `op` and `average` are given. */
export const opSupersedesAverage =
  'The op parameter supersedes average. Please provide only one of them.';

/**
 * Why `Adasum` fails.
 *
 * @example
 * ```ts
 * adasumMessage('allreduce'); // 'allreduce: Adasum is not supported by Kolo: …'
 * ```
 */
export function adasumMessage(opName: string): string {
  return (
    `${opName}: Adasum is not supported by Kolo: its engine reduces with Average, Sum, Min, Max ` +
    "and Product only, and Adasum's pairwise, dot-product-scaled combination of gradients " +
    'needs a transport algorithm of its own that Kolo does not have. Use hvd.Average (the ' +
    'default) or hvd.Sum.'
  );
}

let warned = false;

/**
 * Resolves Horovod's `op`/`average` pair to core's reduction: `op` (default `Average`), or the
 * deprecated `average` (`true` → Average, `false` → Sum, with a one-time DeprecationWarning).
 *
 * @example
 * ```ts
 * resolveOp({ average: false }, 'allreduce'); // 'sum'
 * ```
 */
export function resolveOp(
  spec: { readonly op?: unknown; readonly average?: unknown },
  opName: string,
): ReduceOpName {
  if (spec.average !== undefined) {
    if (spec.op !== undefined) throw valueError(opSupersedesAverage, 'type');
    if (typeof spec.average !== 'boolean') {
      throw invalidArgument({ what: 'a boolean', name: 'average', value: spec.average });
    }
    if (!warned) {
      warned = true;
      process.emitWarning(averageDeprecation, {
        type: 'DeprecationWarning',
        code: 'KOLO_HVD_AVERAGE',
      });
    }
    return spec.average ? Average : Sum;
  }
  if (spec.op === Adasum) throw new UnsupportedError(adasumMessage(opName), { opName });
  // Any other value is checked by core, with the list of valid reductions.
  return (spec.op ?? Average) as ReduceOpName;
}
