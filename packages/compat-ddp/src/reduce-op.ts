/**
 * A torch reduction, as a string (torch's `ReduceOp` enum members map to these).
 *
 * @example
 * ```ts
 * await dist.allReduce(t, { op: 'max' satisfies ReduceOpName });
 * ```
 */
export type ReduceOpName = 'sum' | 'avg' | 'product' | 'min' | 'max' | 'band' | 'bor' | 'bxor';

/**
 * torch's `ReduceOp`: SUM (the default), AVG, PRODUCT, MIN, MAX and the bitwise BAND, BOR, BXOR
 * (integer dtypes only). Unlike Gloo, AVG works here (a sum times 1/size; integers truncate
 * toward zero), and so do BAND/BOR/BXOR on every collective that takes an `op`.
 *
 * @example
 * ```ts
 * await dist.allReduce(counts, { op: dist.ReduceOp.MAX });
 * ```
 */
export const ReduceOp = {
  /** Elementwise sum (the default). */
  SUM: 'sum',
  /** Elementwise mean: the sum times 1/size (integers truncate toward zero). */
  AVG: 'avg',
  /** Elementwise product. */
  PRODUCT: 'product',
  /** Elementwise minimum. */
  MIN: 'min',
  /** Elementwise maximum. */
  MAX: 'max',
  /** Bitwise AND (integer dtypes only). */
  BAND: 'band',
  /** Bitwise OR (integer dtypes only). */
  BOR: 'bor',
  /** Bitwise XOR (integer dtypes only). */
  BXOR: 'bxor',
} as const satisfies Record<string, ReduceOpName>;

/** Every reduction, in torch's enum order. */
export const reduceOpNames: readonly ReduceOpName[] = Object.values(ReduceOp);

/** torch's display name of a reduction, e.g. `ReduceOp.BXOR`. */
export function reduceOpLabel(op: ReduceOpName): string {
  return `ReduceOp.${op.toUpperCase()}`;
}
