import { integerWhat, type IntegerSpec } from '../validation/checks.js';
import { invalidArgument } from '../validation/invalid-argument.js';
import type { Env } from './config-options.js';

/** A raw configuration value and where it came from (an option or an environment variable). */
export interface ConfigField {
  /** The raw value: a string from the environment, anything from options. */
  readonly value: unknown;
  /** The option or variable name, used in messages, e.g. `KOLO_RANK`. */
  readonly name: string;
}

/**
 * The first of `names` set to a non-empty value in `env`.
 *
 * @example
 * ```ts
 * envField({ PMI_RANK: '2' }, ['OMPI_COMM_WORLD_RANK', 'PMI_RANK']); // { value: '2', name: 'PMI_RANK' }
 * ```
 */
export function envField(env: Env, names: readonly string[]): ConfigField | undefined {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value.trim() !== '') return { value, name };
  }
  return undefined;
}

/**
 * The first defined field, so callers can write `firstField(option, kolo, compatible)`.
 *
 * @example
 * ```ts
 * firstField(undefined, { value: '3', name: 'KOLO_SIZE' }); // { value: '3', name: 'KOLO_SIZE' }
 * ```
 */
export function firstField(...fields: (ConfigField | undefined)[]): ConfigField | undefined {
  return fields.find((f) => f !== undefined);
}

/**
 * Parses a field as an integer within the spec's bounds; environment strings must be decimal
 * integers. The message names the field and shows the raw value.
 *
 * @example
 * ```ts
 * toInteger({ value: '7', name: 'KOLO_RANK' }, { name: 'KOLO_RANK', min: 0, max: 3 });
 * // RangeError: Expected an integer in [0, 3] for KOLO_RANK but received '7'
 * ```
 */
export function toInteger(field: ConfigField, spec: Omit<IntegerSpec, 'name'>): number {
  const what = integerWhat({ ...spec, name: field.name });
  const raw = field.value;
  const parsed = typeof raw === 'string' && /^\s*[+-]?\d+\s*$/.test(raw) ? Number(raw) : raw;
  if (typeof parsed !== 'number') throw invalidArgument({ what, name: field.name, value: raw });
  const inRange = parsed >= (spec.min ?? -Infinity) && parsed <= (spec.max ?? Infinity);
  if (!Number.isSafeInteger(parsed) || !inRange) {
    throw invalidArgument({ what, name: field.name, value: raw, kind: 'range' });
  }
  return parsed;
}

/**
 * Parses a field as a finite number `>= min` (or `> min` with `exclusive`).
 *
 * @example
 * ```ts
 * toNumber({ value: '2.5', name: 'KOLO_CYCLE_TIME' }, { min: 0 }); // 2.5
 * ```
 */
export function toNumber(field: ConfigField, spec: { min: number; exclusive?: boolean }): number {
  const what = `a number ${spec.exclusive ? '>' : '>='} ${spec.min}`;
  const raw = field.value;
  const parsed = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
  if (typeof parsed !== 'number') throw invalidArgument({ what, name: field.name, value: raw });
  const ok = Number.isFinite(parsed) && (spec.exclusive ? parsed > spec.min : parsed >= spec.min);
  if (!ok) throw invalidArgument({ what, name: field.name, value: raw, kind: 'range' });
  return parsed;
}

/**
 * Parses a field as a non-empty string.
 *
 * @example
 * ```ts
 * toText({ value: 'eth0', name: 'KOLO_IFACE' }); // 'eth0'
 * ```
 */
export function toText(field: ConfigField): string {
  if (typeof field.value !== 'string' || field.value.trim() === '') {
    throw invalidArgument({ what: 'a non-empty string', name: field.name, value: field.value });
  }
  return field.value.trim();
}

/**
 * The option `key` of `options` as a field named after the key, or undefined when unset.
 *
 * @example
 * ```ts
 * optionField({ rank: 1 }, 'rank'); // { value: 1, name: 'rank' }
 * ```
 */
export function optionField(options: object, key: string): ConfigField | undefined {
  const value = (options as Record<string, unknown>)[key];
  return value === undefined ? undefined : { value, name: key };
}
