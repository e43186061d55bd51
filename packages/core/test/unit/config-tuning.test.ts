import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { defaultCallerSpinUs } from '../../src/config/defaults.js';
import { resolveConfig } from '../../src/config/resolve-config.js';
import { message } from './thrown-message.js';

const kolo = {
  KOLO_RANK: '1',
  KOLO_SIZE: '4',
  KOLO_STORE_ADDR: '10.0.0.1',
  KOLO_STORE_PORT: '29400',
};

describe('tuning precedence: options > KOLO_* > HOROVOD_* > defaults', () => {
  it('uses Horovod-compatible defaults', () => {
    const { engine } = resolveConfig({}, kolo);
    expect([engine.cycleTimeMs, engine.fusionThresholdBytes, engine.cacheCapacity, engine.timeoutMs]).toEqual([
      1, 134217728, 1024, 30000,
    ]);
    expect([engine.hostname, engine.iface]).toEqual(['', '']);
    // 50 µs while every rank of the host has a CPU (this job: one host of 4 ranks).
    expect(engine.callerSpinUs).toBe(defaultCallerSpinUs(4, availableParallelism()));
  });

  it('waits longer for peers by default when the host runs more ranks than a rank has CPUs', () => {
    expect([defaultCallerSpinUs(2, 2), defaultCallerSpinUs(4, 16), defaultCallerSpinUs(3, 2), defaultCallerSpinUs(4, 2)]).toEqual([50, 50, 500, 500]);
    const crowded = { ...kolo, KOLO_SIZE: String(availableParallelism() + 1), KOLO_LOCAL_SIZE: String(availableParallelism() + 1) };
    expect(resolveConfig({}, crowded).engine.callerSpinUs).toBe(500);
    expect(resolveConfig({}, { ...kolo, KOLO_SIZE: '1', KOLO_RANK: '0' }).engine.callerSpinUs).toBe(50);
    expect(resolveConfig({}, { ...crowded, KOLO_CALLER_SPIN_US: '20' }).engine.callerSpinUs).toBe(20);
  });

  it('takes the caller spin from KOLO_CALLER_SPIN_US, and the option over it', () => {
    expect(resolveConfig({}, { ...kolo, KOLO_CALLER_SPIN_US: '0' }).engine.callerSpinUs).toBe(0);
    expect(resolveConfig({ callerSpinUs: 200 }, { ...kolo, KOLO_CALLER_SPIN_US: '0' }).engine.callerSpinUs).toBe(200);
  });

  it('reads Horovod names in their units', () => {
    const env = {
      ...kolo,
      HOROVOD_CYCLE_TIME: '2.5',
      HOROVOD_FUSION_THRESHOLD: '0',
      HOROVOD_CACHE_CAPACITY: '0',
      HOROVOD_GLOO_TIMEOUT_SECONDS: '7',
      HOROVOD_GLOO_IFACE: 'eth1',
      HOROVOD_HOSTNAME: 'node-a',
    };
    const { engine } = resolveConfig({}, env);
    expect(engine).toMatchObject({
      cycleTimeMs: 2.5,
      fusionThresholdBytes: 0,
      cacheCapacity: 0,
      timeoutMs: 7000,
      iface: 'eth1',
      hostname: 'node-a',
    });
  });

  it('prefers KOLO_* over Horovod names and options over both', () => {
    const env = {
      ...kolo,
      HOROVOD_CYCLE_TIME: '2.5',
      KOLO_CYCLE_TIME: '3',
      HOROVOD_FUSION_THRESHOLD: '0',
      KOLO_FUSION_THRESHOLD: '1024',
      HOROVOD_CACHE_CAPACITY: '5',
      KOLO_CACHE_CAPACITY: '16',
      HOROVOD_GLOO_TIMEOUT_SECONDS: '7',
      KOLO_TIMEOUT_SECONDS: '0.5',
      KOLO_IFACE: 'eth2',
      KOLO_HOSTNAME: 'node-b',
    };
    expect(resolveConfig({}, env).engine).toMatchObject({
      cycleTimeMs: 3,
      fusionThresholdBytes: 1024,
      cacheCapacity: 16,
      timeoutMs: 500,
      iface: 'eth2',
      hostname: 'node-b',
    });
    const options = {
      cycleTimeMs: 4,
      fusionThresholdBytes: 8,
      cacheCapacity: 2,
      timeoutMs: 9,
      iface: 'lo',
      hostname: '127.0.0.1',
    };
    expect(resolveConfig(options, env).engine).toMatchObject(options);
  });

  it.each([
    [{ KOLO_CYCLE_TIME: 'fast' }, "Expected a number >= 0 for KOLO_CYCLE_TIME but received 'fast'"],
    [
      { HOROVOD_CYCLE_TIME: '-1' },
      "Expected a number >= 0 for HOROVOD_CYCLE_TIME but received '-1'",
    ],
    [
      { KOLO_FUSION_THRESHOLD: '64MB' },
      "Expected an integer >= 0 for KOLO_FUSION_THRESHOLD but received '64MB'",
    ],
    [
      { HOROVOD_FUSION_THRESHOLD: '1.5' },
      "Expected an integer >= 0 for HOROVOD_FUSION_THRESHOLD but received '1.5'",
    ],
    [
      { HOROVOD_CACHE_CAPACITY: 'big' },
      "Expected an integer >= 0 for HOROVOD_CACHE_CAPACITY but received 'big'",
    ],
    [
      { KOLO_CALLER_SPIN_US: '-5' },
      "Expected an integer >= 0 for KOLO_CALLER_SPIN_US but received '-5'",
    ],
    [
      { KOLO_TIMEOUT_SECONDS: '0' },
      "Expected a number > 0 for KOLO_TIMEOUT_SECONDS but received '0'",
    ],
    [
      { HOROVOD_GLOO_TIMEOUT_SECONDS: 'x' },
      "Expected a number > 0 for HOROVOD_GLOO_TIMEOUT_SECONDS but received 'x'",
    ],
  ])('rejects %o', (env, text) => {
    expect(message(() => resolveConfig({}, { ...kolo, ...env }))).toBe(text);
  });

  it.each([
    [{ cycleTimeMs: NaN }, 'Expected a number >= 0 for cycleTimeMs but received NaN'],
    [
      { fusionThresholdBytes: -1 },
      'Expected an integer >= 0 for fusionThresholdBytes but received -1',
    ],
    [{ cacheCapacity: 0.5 }, 'Expected an integer >= 0 for cacheCapacity but received 0.5'],
    [{ timeoutMs: 0 }, 'Expected an integer >= 1 for timeoutMs but received 0'],
    [{ iface: '' }, "Expected a non-empty string for iface but received ''"],
    [{ jobId: 5 }, 'Expected a non-empty string for jobId but received 5'],
  ])('rejects option %o', (options, text) => {
    expect(message(() => resolveConfig(options as object, kolo))).toBe(text);
  });

  it('suggests the right name for a misspelt option', () => {
    expect(message(() => resolveConfig({ cycleTimeMS: 2 } as object, kolo))).toBe(
      "Unknown option 'cycleTimeMS' for init; did you mean 'cycleTimeMs'?",
    );
  });
});
