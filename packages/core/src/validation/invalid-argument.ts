import { describeValue } from './describe-value.js';

/**
 * The `code` of every argument-validation error Kolo throws.
 *
 * @example
 * ```ts
 * if ((err as { code?: string }).code === invalidArgCode) console.error(err.message);
 * ```
 */
export const invalidArgCode = 'ERR_KOLO_INVALID_ARG';

/**
 * What was wrong with an argument.
 *
 * @example
 * ```ts
 * throw invalidArgument({ what: 'a positive integer', name: 'epochs', value: 0, kind: 'range' });
 * ```
 */
export interface InvalidArgumentOptions {
  /** What was expected, e.g. `an integer in [0, 3]`. */
  readonly what: string;
  /** The argument, option or environment variable, e.g. `root` or `KOLO_RANK`. */
  readonly name: string;
  /** The value received. */
  readonly value: unknown;
  /** `type` for the wrong kind of value (TypeError), `range` for a bad value (RangeError). */
  readonly kind?: 'type' | 'range';
}

/**
 * Builds the one validation error shape: `Expected <what> for <name> but received <value>`,
 * a TypeError or RangeError with `code` `ERR_KOLO_INVALID_ARG`. Throw the result.
 *
 * @example
 * ```ts
 * throw invalidArgument({ what: 'an integer in [0, 3]', name: 'root', value: 4, kind: 'range' });
 * // RangeError: Expected an integer in [0, 3] for root but received 4
 * ```
 */
export function invalidArgument(options: InvalidArgumentOptions): TypeError | RangeError {
  const message = `Expected ${options.what} for ${options.name} but received ${describeValue(
    options.value,
  )}`;
  const error = options.kind === 'range' ? new RangeError(message) : new TypeError(message);
  return Object.assign(error, { code: invalidArgCode });
}
