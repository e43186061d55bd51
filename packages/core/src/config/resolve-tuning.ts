import { envField, firstField, optionField, toInteger, toNumber, toText } from './config-field.js';
import type { ConfigOptions, Env } from './config-options.js';
import { configDefaults } from './defaults.js';

/** Where the cycle time may be set, first wins after the `cycleTimeMs` option. */
export const cycleTimeNames = ['KOLO_CYCLE_TIME', 'HOROVOD_CYCLE_TIME'] as const;
/** Where the fusion threshold may be set, first wins after the `fusionThresholdBytes` option. */
export const fusionThresholdNames = ['KOLO_FUSION_THRESHOLD', 'HOROVOD_FUSION_THRESHOLD'] as const;

/** The engine's tuning and network settings. */
export interface Tuning {
  readonly cycleTimeMs: number;
  readonly fusionThresholdBytes: number;
  readonly cacheCapacity: number;
  /** Undefined where neither the option nor `KOLO_CALLER_SPIN_US` sets it (see defaultCallerSpinUs). */
  readonly callerSpinUs: number | undefined;
  readonly timeoutMs: number;
  readonly hostname: string;
  readonly iface: string;
}

/**
 * Resolves tuning and network settings: options > `KOLO_*` > Horovod names > defaults.
 * `KOLO_CYCLE_TIME`/`HOROVOD_CYCLE_TIME` are milliseconds, `KOLO_FUSION_THRESHOLD`/
 * `HOROVOD_FUSION_THRESHOLD` bytes, `KOLO_CACHE_CAPACITY`/`HOROVOD_CACHE_CAPACITY` entries,
 * `KOLO_CALLER_SPIN_US` microseconds,
 * `KOLO_TIMEOUT_SECONDS`/`HOROVOD_GLOO_TIMEOUT_SECONDS` seconds.
 *
 * @example
 * ```ts
 * resolveTuning({}, { HOROVOD_FUSION_THRESHOLD: '0' }).fusionThresholdBytes; // 0
 * ```
 */
export function resolveTuning(options: ConfigOptions, env: Env): Tuning {
  const pick = (key: keyof ConfigOptions, names: readonly string[]) =>
    firstField(optionField(options, key), envField(env, names));
  const cycle = pick('cycleTimeMs', cycleTimeNames);
  const fusion = pick('fusionThresholdBytes', fusionThresholdNames);
  const cache = pick('cacheCapacity', ['KOLO_CACHE_CAPACITY', 'HOROVOD_CACHE_CAPACITY']);
  const spin = pick('callerSpinUs', ['KOLO_CALLER_SPIN_US']);
  const timeoutOption = optionField(options, 'timeoutMs');
  const timeoutSeconds = envField(env, ['KOLO_TIMEOUT_SECONDS', 'HOROVOD_GLOO_TIMEOUT_SECONDS']);
  const hostname = pick('hostname', ['KOLO_HOSTNAME', 'HOROVOD_HOSTNAME']);
  const iface = pick('iface', ['KOLO_IFACE', 'HOROVOD_GLOO_IFACE']);
  return {
    cycleTimeMs: cycle ? toNumber(cycle, { min: 0 }) : configDefaults.cycleTimeMs,
    fusionThresholdBytes: fusion
      ? toInteger(fusion, { min: 0 })
      : configDefaults.fusionThresholdBytes,
    cacheCapacity: cache ? toInteger(cache, { min: 0 }) : configDefaults.cacheCapacity,
    callerSpinUs: spin ? toInteger(spin, { min: 0 }) : undefined,
    timeoutMs: timeoutOption
      ? toInteger(timeoutOption, { min: 1 })
      : timeoutSeconds
      ? Math.round(toNumber(timeoutSeconds, { min: 0, exclusive: true }) * 1000)
      : configDefaults.timeoutMs,
    hostname: hostname ? toText(hostname) : configDefaults.hostname,
    iface: iface ? toText(iface) : configDefaults.iface,
  };
}
