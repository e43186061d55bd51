import { checkOptions, invalidArgument } from '@kolo/core';

const snake = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const camel = (name: string): string => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * Checks an options object whose keys may be camelCase or MXNet's snake_case (`paramOnly` or
 * `param_only`) and returns it keyed by the camelCase names. Unknown keys throw a TypeError that
 * suggests the closest name; giving both spellings of one option throws too.
 *
 * @example
 * ```ts
 * readOptions({ param_only: true }, 'init', ['paramOnly']); // { paramOnly: true }
 * ```
 */
export function readOptions<K extends string>(
  options: unknown,
  opName: string,
  names: readonly K[],
): Partial<Record<K, unknown>> {
  const aliases = names.map(snake).filter((alias) => !(names as readonly string[]).includes(alias));
  const checked = checkOptions(options as object | undefined, { opName, allowed: [...names, ...aliases] });
  const result: Partial<Record<string, unknown>> = {};
  for (const [key, value] of Object.entries(checked)) {
    const name = camel(key);
    if (name in result) {
      throw invalidArgument({ what: `only one of '${name}' and '${snake(name)}'`, name: `${opName} options`, value: options });
    }
    result[name] = value;
  }
  return result as Partial<Record<K, unknown>>;
}

/**
 * Returns `value` when it is a boolean, `fallback` when undefined; accepts 0 and 1 as AIACC's
 * examples pass them (`param_only=1`).
 *
 * @example
 * ```ts
 * flag(1, { name: 'paramOnly', fallback: false }); // true
 * ```
 */
export function flag(value: unknown, spec: { readonly name: string; readonly fallback: boolean }): boolean {
  if (value === undefined) return spec.fallback;
  if (typeof value === 'boolean') return value;
  if (value === 0 || value === 1) return value === 1;
  throw invalidArgument({ what: 'a boolean', name: spec.name, value });
}
