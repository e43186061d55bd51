import { closestMatch } from './edit-distance.js';
import { invalidArgument } from './invalid-argument.js';

/**
 * The `code` of the TypeError thrown for a misspelt or unknown option key.
 *
 * @example
 * ```ts
 * if ((err as { code?: string }).code === unknownOptionCode) console.error(err.message);
 * ```
 */
export const unknownOptionCode = 'ERR_KOLO_UNKNOWN_OPTION';

/**
 * Which call the options belong to and which keys it accepts.
 *
 * @example
 * ```ts
 * checkOptions(options, { opName: 'save', allowed: ['path'] } satisfies CheckOptionsSpec);
 * ```
 */
export interface CheckOptionsSpec {
  /** The call, used in messages, e.g. `allreduce`. */
  readonly opName: string;
  /** Every key the call accepts. */
  readonly allowed: readonly string[];
}

/**
 * Checks that `options` is undefined or a plain object whose keys are all in `spec.allowed`,
 * suggesting the closest allowed key for a misspelling. Returns the options (or `{}`).
 *
 * @example
 * ```ts
 * checkOptions({ nmae: 'w' }, { opName: 'allreduce', allowed: ['name', 'op'] });
 * // TypeError: Unknown option 'nmae' for allreduce; did you mean 'name'?
 * ```
 */
export function checkOptions<T extends object>(options: T | undefined, spec: CheckOptionsSpec): T {
  if (options === undefined) return {} as T;
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw invalidArgument({
      what: 'an options object',
      name: `${spec.opName} options`,
      value: options,
    });
  }
  // for-in walks the object's enumerable keys without building an array of them (an inherited
  // enumerable key is checked too: reading the options would pick it up as well).
  for (const key in options) {
    if (spec.allowed.includes(key)) continue;
    const guess = closestMatch(key, spec.allowed);
    const tail = guess
      ? `did you mean '${guess}'?`
      : `expected one of ${spec.allowed.map((k) => `'${k}'`).join(', ')}.`;
    const error = new TypeError(`Unknown option '${key}' for ${spec.opName}; ${tail}`);
    throw Object.assign(error, { code: unknownOptionCode });
  }
  return options;
}
