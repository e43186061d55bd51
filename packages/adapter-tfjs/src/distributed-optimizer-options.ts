import { checkOptions, expectFiniteNumber, expectInteger, expectNonEmptyString, expectOneOf, invalidArgument } from '@kolo/core';

/**
 * Options of {@link DistributedOptimizer}, with Horovod's names and defaults.
 *
 * @example
 * ```ts
 * const options: DistributedOptimizerOptions = { op: 'average', backwardPassesPerStep: 4, compression: 'fp16' };
 * ```
 */
export interface DistributedOptimizerOptions {
  /** How gradients combine across ranks: `average` (default, as Horovod) or `sum`. */
  readonly op?: 'average' | 'sum';
  /** Local passes accumulated (averaged) before one allreduce and one update; default 1. */
  readonly backwardPassesPerStep?: number;
  /** `fp16` halves the bytes on the wire (gradients rounded to half precision); default `none`. */
  readonly compression?: 'none' | 'fp16';
  /** Divide gradients by this before the sum and multiply after (average only); default 1. */
  readonly gradientPredivideFactor?: number;
  /** Request name on the wire; default `DistributedOptimizer`. Give concurrent optimizers distinct names. */
  readonly name?: string;
}

/**
 * {@link DistributedOptimizerOptions} with every default filled in.
 *
 * @example
 * ```ts
 * const resolved: ResolvedDistributedOptimizerOptions = resolveDistributedOptimizerOptions({ op: 'sum' });
 * ```
 */
export type ResolvedDistributedOptimizerOptions = Required<DistributedOptimizerOptions>;

const defaults: ResolvedDistributedOptimizerOptions = {
  op: 'average',
  backwardPassesPerStep: 1,
  compression: 'none',
  gradientPredivideFactor: 1,
  name: 'DistributedOptimizer',
};

/**
 * Validates the options (exact messages, misspellings suggested) and fills in the defaults.
 *
 * @example
 * ```ts
 * resolveDistributedOptimizerOptions({ backwardPassesPerStep: 0 });
 * // RangeError: Expected an integer >= 1 for backwardPassesPerStep but received 0
 * ```
 */
export function resolveDistributedOptimizerOptions(
  options: DistributedOptimizerOptions | undefined,
): ResolvedDistributedOptimizerOptions {
  const o = checkOptions(options, { opName: 'DistributedOptimizer', allowed: Object.keys(defaults) });
  const resolved: ResolvedDistributedOptimizerOptions = {
    op: expectOneOf(o.op ?? defaults.op, { name: 'op', choices: ['average', 'sum'] }),
    backwardPassesPerStep: expectInteger(o.backwardPassesPerStep ?? 1, { name: 'backwardPassesPerStep', min: 1 }),
    compression: expectOneOf(o.compression ?? defaults.compression, { name: 'compression', choices: ['none', 'fp16'] }),
    gradientPredivideFactor: expectFiniteNumber(o.gradientPredivideFactor ?? 1, 'gradientPredivideFactor'),
    name: expectNonEmptyString(o.name ?? defaults.name, 'name'),
  };
  if (resolved.gradientPredivideFactor <= 0) {
    throw invalidArgument({
      what: 'a positive number',
      name: 'gradientPredivideFactor',
      value: resolved.gradientPredivideFactor,
      kind: 'range',
    });
  }
  if (resolved.gradientPredivideFactor !== 1 && resolved.op !== 'average') {
    throw invalidArgument({
      what: "op 'average' (gradientPredivideFactor only splits an average)",
      name: 'op',
      value: resolved.op,
    });
  }
  return resolved;
}
