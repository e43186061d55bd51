import { envField, firstField, optionField, toInteger, toNumber, toText } from './config-field.js';
import type { ConfigOptions, Env } from './config-options.js';
import { configDefaults } from './defaults.js';
import { invalidArgument } from '../validation/invalid-argument.js';

const expectBoolean = (value: unknown, name: string): boolean => {
  if (typeof value !== 'boolean') throw invalidArgument({ what: 'a boolean', name, value });
  return value;
};

/** Stall inspector and timeline settings, as the engine takes them. */
export interface Diagnostics {
  readonly stallCheckMs: number;
  readonly stallShutdownMs: number;
  readonly timelinePath: string;
  readonly timelineMarkCycles: boolean;
}

const seconds = (env: Env, names: string[]) => {
  const field = envField(env, names);
  return field ? Math.round(toNumber(field, { min: 0 }) * 1000) : undefined;
};
const flag = (env: Env, names: string[]) => {
  const field = envField(env, names);
  return field ? toNumber(field, { min: 0 }) > 0 : false;
};

/**
 * Resolves the stall inspector and timeline: options > `KOLO_*` > Horovod names > defaults.
 * `*_STALL_CHECK_TIME_SECONDS` (default 60) and `*_STALL_SHUTDOWN_TIME_SECONDS` (default 0:
 * never) are seconds; `*_STALL_CHECK_DISABLE` > 0 turns the inspector off; `*_TIMELINE` is the
 * trace file rank 0 writes (`DYNAMIC` means none until `startTimeline()`).
 *
 * @example
 * ```ts
 * resolveDiagnostics({}, { HOROVOD_STALL_CHECK_TIME_SECONDS: '5' }).stallCheckMs; // 5000
 * ```
 */
export function resolveDiagnostics(options: ConfigOptions, env: Env): Diagnostics {
  const check = optionField(options, 'stallCheckTimeMs');
  const shutdown = optionField(options, 'stallShutdownTimeMs');
  const timeline = firstField(optionField(options, 'timelinePath'), envField(env, ['KOLO_TIMELINE', 'HOROVOD_TIMELINE']));
  const marks = optionField(options, 'timelineMarkCycles');
  const disabled = flag(env, ['KOLO_STALL_CHECK_DISABLE', 'HOROVOD_STALL_CHECK_DISABLE']);
  const path = timeline ? toText(timeline) : '';
  return {
    stallCheckMs: check
      ? toInteger(check, { min: 0 })
      : disabled
        ? 0
        : (seconds(env, ['KOLO_STALL_CHECK_TIME_SECONDS', 'HOROVOD_STALL_CHECK_TIME_SECONDS']) ?? configDefaults.stallCheckTimeMs),
    stallShutdownMs: shutdown
      ? toInteger(shutdown, { min: 0 })
      : (seconds(env, ['KOLO_STALL_SHUTDOWN_TIME_SECONDS', 'HOROVOD_STALL_SHUTDOWN_TIME_SECONDS']) ??
        configDefaults.stallShutdownTimeMs),
    timelinePath: path === 'DYNAMIC' ? '' : path,
    timelineMarkCycles: marks ? expectBoolean(marks.value, marks.name) : flag(env, ['KOLO_TIMELINE_MARK_CYCLES', 'HOROVOD_TIMELINE_MARK_CYCLES']),
  };
}

/**
 * Whether async calls capture the caller's stack up front: the `callerStacks` option >
 * `KOLO_CALLER_STACKS` (> 0 turns it on) > off.
 *
 * @example
 * ```ts
 * resolveCallerStacks({}, { KOLO_CALLER_STACKS: '1' }); // true
 * ```
 */
export function resolveCallerStacks(options: ConfigOptions, env: Env): boolean {
  const option = optionField(options, 'callerStacks');
  return option ? expectBoolean(option.value, option.name) : flag(env, ['KOLO_CALLER_STACKS']);
}
