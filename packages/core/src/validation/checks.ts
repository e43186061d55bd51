import { invalidArgument } from './invalid-argument.js';

/**
 * An integer check: the name used in messages and the inclusive bounds.
 *
 * @example
 * ```ts
 * expectInteger(port, { name: 'port', min: 1, max: 65535 } satisfies IntegerSpec);
 * ```
 */
export interface IntegerSpec {
  /** Argument, option or environment variable name, used in the message. */
  readonly name: string;
  /** Smallest allowed value (inclusive); default `-Infinity`. */
  readonly min?: number;
  /** Largest allowed value (inclusive); default `Infinity`. */
  readonly max?: number;
}

/**
 * Describes an integer range for messages: `an integer in [0, 3]`, `an integer >= 1`.
 *
 * @example
 * ```ts
 * integerWhat({ name: 'root', min: 0, max: 3 }); // 'an integer in [0, 3]'
 * ```
 */
export function integerWhat(spec: IntegerSpec): string {
  const { min = -Infinity, max = Infinity } = spec;
  if (Number.isFinite(min) && Number.isFinite(max)) return `an integer in [${min}, ${max}]`;
  if (Number.isFinite(min)) return `an integer >= ${min}`;
  if (Number.isFinite(max)) return `an integer <= ${max}`;
  return 'an integer';
}

/**
 * Returns `value` when it is a safe integer within the bounds, else throws TypeError/RangeError.
 *
 * @example
 * ```ts
 * expectInteger(2, { name: 'root', min: 0, max: 3 }); // 2
 * expectInteger(4, { name: 'root', min: 0, max: 3 }); // RangeError: Expected an integer in [0, 3] for root but received 4
 * ```
 */
export function expectInteger(value: unknown, spec: IntegerSpec): number {
  const what = integerWhat(spec);
  if (typeof value !== 'number') throw invalidArgument({ what, name: spec.name, value });
  const inRange = value >= (spec.min ?? -Infinity) && value <= (spec.max ?? Infinity);
  if (!Number.isSafeInteger(value) || !inRange) {
    throw invalidArgument({ what, name: spec.name, value, kind: 'range' });
  }
  return value;
}

/**
 * Returns `value` when it is a finite number, else throws (TypeError for non-numbers, RangeError
 * for NaN and infinities).
 *
 * @example
 * ```ts
 * expectFiniteNumber(0.5, 'prescaleFactor'); // 0.5
 * ```
 */
export function expectFiniteNumber(value: unknown, name: string): number {
  if (typeof value !== 'number') throw invalidArgument({ what: 'a finite number', name, value });
  if (!Number.isFinite(value)) {
    throw invalidArgument({ what: 'a finite number', name, value, kind: 'range' });
  }
  return value;
}

/**
 * Returns `value` when it is a non-empty string, else throws a TypeError.
 *
 * @example
 * ```ts
 * expectNonEmptyString('grad', 'name'); // 'grad'
 * ```
 */
export function expectNonEmptyString(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw invalidArgument({ what: 'a non-empty string', name, value });
  }
  return value;
}

/**
 * Returns `value` when it is one of `choices`, else throws a TypeError listing them.
 *
 * @example
 * ```ts
 * expectOneOf('sum', { name: 'op', choices: ['average', 'sum'] }); // 'sum'
 * ```
 */
export function expectOneOf<T extends string>(
  value: unknown,
  spec: { readonly name: string; readonly choices: readonly T[] },
): T {
  if (typeof value === 'string' && (spec.choices as readonly string[]).includes(value)) {
    return value as T;
  }
  const what = `one of ${spec.choices.map((c) => `'${c}'`).join(', ')}`;
  throw invalidArgument({ what, name: spec.name, value });
}
