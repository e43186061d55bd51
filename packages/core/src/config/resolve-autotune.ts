import type { NativeAutotuneConfig } from '@kolo/native';
import { envField, firstField, optionField, toInteger, toNumber, toText, type ConfigField } from './config-field.js';
import type { ConfigOptions, Env } from './config-options.js';
import { configDefaults } from './defaults.js';
import { cycleTimeNames, fusionThresholdNames } from './resolve-tuning.js';
import { invalidArgument } from '../validation/invalid-argument.js';

const enabled = (field: ConfigField | undefined): boolean => {
  if (field === undefined) return false;
  if (field.name !== 'autotune') return toNumber(field, { min: 0 }) > 0;
  if (typeof field.value !== 'boolean') throw invalidArgument({ what: 'a boolean', name: field.name, value: field.value });
  return field.value;
};

/**
 * Resolves the autotuner: options > `KOLO_AUTOTUNE*` > `HOROVOD_AUTOTUNE*` > off. `*_AUTOTUNE` > 0
 * turns it on; `*_AUTOTUNE_LOG` is the CSV rank 0 writes; `*_AUTOTUNE_WARMUP_SAMPLES` (3),
 * `*_AUTOTUNE_STEPS_PER_SAMPLE` (10) and `*_AUTOTUNE_BAYES_OPT_MAX_SAMPLES` (20) keep Horovod's
 * names and defaults. A fusion threshold or cycle time set explicitly (option or environment) is
 * held fixed and left out of the search, as in Horovod.
 *
 * @example
 * ```ts
 * resolveAutotune({}, { HOROVOD_AUTOTUNE: '1', KOLO_FUSION_THRESHOLD: '0' }).fusionThresholdFixed; // true
 * ```
 */
export function resolveAutotune(options: ConfigOptions, env: Env): NativeAutotuneConfig {
  const pick = (key: keyof ConfigOptions, suffix: string) =>
    firstField(optionField(options, key), envField(env, [`KOLO_AUTOTUNE${suffix}`, `HOROVOD_AUTOTUNE${suffix}`]));
  const count = (key: keyof ConfigOptions, suffix: string, min: number, fallback: number) => {
    const field = pick(key, suffix);
    return field ? toInteger(field, { min }) : fallback;
  };
  const log = pick('autotuneLogPath', '_LOG');
  const explicit = (key: keyof ConfigOptions, names: readonly string[]) =>
    firstField(optionField(options, key), envField(env, names)) !== undefined;
  return {
    enabled: enabled(pick('autotune', '')),
    logPath: log ? toText(log) : '',
    warmupSamples: count('autotuneWarmupSamples', '_WARMUP_SAMPLES', 0, configDefaults.autotuneWarmupSamples),
    stepsPerSample: count('autotuneStepsPerSample', '_STEPS_PER_SAMPLE', 1, configDefaults.autotuneStepsPerSample),
    maxSamples: count('autotuneMaxSamples', '_BAYES_OPT_MAX_SAMPLES', 1, configDefaults.autotuneMaxSamples),
    fusionThresholdFixed: explicit('fusionThresholdBytes', fusionThresholdNames),
    cycleTimeFixed: explicit('cycleTimeMs', cycleTimeNames),
  };
}
