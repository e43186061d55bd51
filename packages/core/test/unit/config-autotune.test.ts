import { afterEach, describe, expect, it } from 'vitest';
import { NotInitializedError, currentTuning, init, resolveConfig, shutdown } from '../../src/index.js';
import { setBindingForTesting } from '../../src/runtime/binding-source.js';
import { useCleanEnv } from './clean-env.js';
import { createFakeBinding } from './fake-binding.js';
import { message } from './thrown-message.js';

const single = { KOLO_RANK: '0', KOLO_SIZE: '1', KOLO_STORE_PATH: '/tmp/kolo-autotune' };
const autotune = (options: object, env: Record<string, string>) => resolveConfig(options, { ...single, ...env }).engine.autotune;

describe('autotune configuration', () => {
  it("is off by default, with Horovod's sample counts and nothing held fixed", () => {
    expect(autotune({}, {})).toEqual({
      enabled: false,
      logPath: '',
      warmupSamples: 3,
      stepsPerSample: 10,
      maxSamples: 20,
      fusionThresholdFixed: false,
      cycleTimeFixed: false,
    });
    // A blank variable counts as unset, as everywhere in Kolo's configuration.
    expect(autotune({}, { KOLO_AUTOTUNE: ' ', HOROVOD_AUTOTUNE_LOG: ' ' })).toMatchObject({ enabled: false, logPath: '' });
  });

  it('reads HOROVOD_AUTOTUNE* names, KOLO_AUTOTUNE* first, options over both', () => {
    const horovod = {
      HOROVOD_AUTOTUNE: '1',
      HOROVOD_AUTOTUNE_LOG: '/h.csv',
      HOROVOD_AUTOTUNE_WARMUP_SAMPLES: '0',
      HOROVOD_AUTOTUNE_STEPS_PER_SAMPLE: '5',
      HOROVOD_AUTOTUNE_BAYES_OPT_MAX_SAMPLES: '7',
    };
    expect(autotune({}, horovod)).toMatchObject({ enabled: true, logPath: '/h.csv', warmupSamples: 0, stepsPerSample: 5, maxSamples: 7 });
    const kolo = { ...horovod, KOLO_AUTOTUNE: '0', KOLO_AUTOTUNE_LOG: '/k.csv', KOLO_AUTOTUNE_BAYES_OPT_MAX_SAMPLES: '9' };
    expect(autotune({}, kolo)).toMatchObject({ enabled: false, logPath: '/k.csv', maxSamples: 9, stepsPerSample: 5 });
    const options = { autotune: true, autotuneLogPath: '/o.csv', autotuneWarmupSamples: 2, autotuneStepsPerSample: 1, autotuneMaxSamples: 1 };
    expect(autotune(options, kolo)).toMatchObject({ enabled: true, logPath: '/o.csv', warmupSamples: 2, stepsPerSample: 1, maxSamples: 1 });
  });

  it('holds a fusion threshold or cycle time set explicitly, however it was set', () => {
    const fixed = (options: object, env: Record<string, string>) => {
      const { fusionThresholdFixed, cycleTimeFixed } = autotune(options, { KOLO_AUTOTUNE: '1', ...env })!;
      return [fusionThresholdFixed, cycleTimeFixed];
    };
    expect(fixed({}, { KOLO_FUSION_THRESHOLD: '65536' })).toEqual([true, false]);
    expect(fixed({}, { HOROVOD_FUSION_THRESHOLD: '0' })).toEqual([true, false]);
    expect(fixed({}, { HOROVOD_CYCLE_TIME: '5' })).toEqual([false, true]);
    expect(fixed({ cycleTimeMs: 2, fusionThresholdBytes: 1024 }, {})).toEqual([true, true]);
    // The explicit value is also the one the search starts from (and keeps).
    expect(resolveConfig({}, { ...single, KOLO_AUTOTUNE: '1', KOLO_FUSION_THRESHOLD: '65536' }).engine.fusionThresholdBytes).toBe(65536);
  });

  it.each([
    [{ KOLO_AUTOTUNE: 'yes' }, "Expected a number >= 0 for KOLO_AUTOTUNE but received 'yes'"],
    [{ KOLO_AUTOTUNE_WARMUP_SAMPLES: '-1' }, "Expected an integer >= 0 for KOLO_AUTOTUNE_WARMUP_SAMPLES but received '-1'"],
    [{ HOROVOD_AUTOTUNE_STEPS_PER_SAMPLE: '0' }, "Expected an integer >= 1 for HOROVOD_AUTOTUNE_STEPS_PER_SAMPLE but received '0'"],
    [{ KOLO_AUTOTUNE_BAYES_OPT_MAX_SAMPLES: '2.5' }, "Expected an integer >= 1 for KOLO_AUTOTUNE_BAYES_OPT_MAX_SAMPLES but received '2.5'"],
  ])('rejects %o', (env, text) => {
    expect(message(() => autotune({}, env))).toBe(text);
  });

  it.each([
    [{ autotune: 1 }, 'Expected a boolean for autotune but received 1'],
    [{ autotuneLogPath: '' }, "Expected a non-empty string for autotuneLogPath but received ''"],
    [{ autotuneWarmupSamples: 1.5 }, 'Expected an integer >= 0 for autotuneWarmupSamples but received 1.5'],
    [{ autotuneStepsPerSample: 0 }, 'Expected an integer >= 1 for autotuneStepsPerSample but received 0'],
    [{ autotuneMaxSamples: 0 }, 'Expected an integer >= 1 for autotuneMaxSamples but received 0'],
  ])('rejects option %o', (options, text) => {
    expect(message(() => autotune(options, {}))).toBe(text);
  });

  it('suggests the right name for a misspelt option', () => {
    expect(message(() => autotune({ autoTune: true }, {}))).toBe("Unknown option 'autoTune' for init; did you mean 'autotune'?");
  });
});

describe('currentTuning()', () => {
  useCleanEnv();
  afterEach(async () => {
    await shutdown();
    setBindingForTesting(undefined);
  });

  it("throws NotInitializedError before init and returns the engine's tuning after", async () => {
    expect(() => currentTuning()).toThrow(NotInitializedError);
    const fake = createFakeBinding();
    setBindingForTesting(fake);
    await init({ rank: 0, size: 1, store: { kind: 'file', path: '/tmp/kolo-unit' }, autotune: true, cycleTimeMs: 2 });
    expect(fake.started[0]!.autotune).toMatchObject({ enabled: true, cycleTimeFixed: true, fusionThresholdFixed: false });
    expect(currentTuning()).toEqual({ fusionThresholdBytes: 128 * 1024 * 1024, cycleTimeMs: 2, searching: true });
  });
});
