import { checkOptions, invalidArgument } from '@kolo/core';
import { processSetsUnsupported } from './horovod-errors.js';

/** Horovod's keyword spellings, accepted next to the camelCase option names. */
const snakeCase: Readonly<Record<string, string>> = {
  prescale_factor: 'prescaleFactor',
  postscale_factor: 'postscaleFactor',
  process_set: 'processSet',
};

/** The global set (id 0) is the same as no set; core then needs no ranks list. */
const isGlobal = (set: unknown): boolean =>
  set === undefined ||
  (typeof set === 'object' && set !== null && (set as { id?: unknown }).id === 0);

/**
 * Checks an options object like core's `checkOptions` (unknown keys get a suggestion), after
 * renaming Horovod's snake_case keywords (`prescale_factor`, `process_set`) to camelCase. The
 * global process set is dropped; another one is kept when the call `allowed` `processSet`, and
 * refused with an UnsupportedError otherwise.
 *
 * @example
 * ```ts
 * readOptions({ prescale_factor: 2 }, { opName: 'allreduce', allowed: ['prescaleFactor'] });
 * // { prescaleFactor: 2 }
 * ```
 */
export function readOptions<T extends object>(
  options: T | undefined,
  spec: {
    readonly opName: string;
    readonly allowed: readonly string[];
    /** More snake_case → camelCase renames for this call. */
    readonly aliases?: Readonly<Record<string, string>>;
  },
): T {
  const { opName, allowed } = spec;
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    return checkOptions(options, { opName, allowed });
  }
  const renamed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    const camel = spec.aliases?.[key] ?? snakeCase[key] ?? key;
    if (camel !== key && camel in options) {
      const what = `either ${camel} or ${key}, not both`;
      throw invalidArgument({ what, name: `${opName} options`, value: options });
    }
    if (camel === 'processSet') {
      if (isGlobal(value)) continue;
      if (!allowed.includes(camel)) throw processSetsUnsupported(opName);
    }
    renamed[camel] = value;
  }
  return checkOptions(renamed as T, { opName, allowed });
}
