import { expectFiniteNumber, invalidArgument } from '@kolo/core';
import { readOptions } from './options.js';

/**
 * Hyper-parameters shared by the optimizers (MXNet's names in camelCase; snake_case accepted).
 *
 * @example
 * ```ts
 * const params: OptimizerParams = { learningRate: 0.1, wd: 1e-4, rescaleGrad: 1 / 64 };
 * ```
 */
export interface OptimizerParams {
  /** Step size; default 0.01 for SGD, 0.001 for Adam (MXNet's defaults). */
  readonly learningRate?: number;
  /** Weight decay (L2); default 0. */
  readonly wd?: number;
  /** Multiplies every gradient first; default 1. */
  readonly rescaleGrad?: number;
  /** Clips the rescaled gradient to [-clipGradient, clipGradient]; default none. */
  readonly clipGradient?: number;
}

const common = ['learningRate', 'wd', 'rescaleGrad', 'clipGradient'] as const;

/**
 * Reads optimizer parameters (the common ones plus `extra`), checking that each is a finite
 * number and that `learningRate` and `clipGradient` are not negative.
 *
 * @example
 * ```ts
 * readParams({ learning_rate: 0.1 }, 'SGD', ['momentum']); // { learningRate: 0.1 }
 * ```
 */
export function readParams<K extends string>(
  params: unknown,
  opName: string,
  extra: readonly K[],
): Partial<Record<K | (typeof common)[number], number>> {
  const o = readOptions(params, opName, [...common, ...extra]);
  const result: Record<string, number> = {};
  for (const [key, value] of Object.entries(o)) {
    if (value === undefined) continue;
    const n = expectFiniteNumber(value, key);
    if ((key === 'learningRate' || key === 'clipGradient') && n < 0) {
      throw invalidArgument({ what: 'a number >= 0', name: key, value: n, kind: 'range' });
    }
    result[key] = n;
  }
  return result as Partial<Record<K | (typeof common)[number], number>>;
}
