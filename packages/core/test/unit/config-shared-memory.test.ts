import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/resolve-config.js';
import { message } from './thrown-message.js';

const kolo = { KOLO_RANK: '0', KOLO_SIZE: '2', KOLO_STORE_ADDR: '127.0.0.1', KOLO_STORE_PORT: '29400' };

describe('sharedMemory: option > KOLO_SHM > on', () => {
  it('is on by default', () => {
    expect(resolveConfig({}, kolo).engine.sharedMemory).toBe(true);
  });

  it('KOLO_SHM=0 turns it off and KOLO_SHM=1 on', () => {
    expect(resolveConfig({}, { ...kolo, KOLO_SHM: '0' }).engine.sharedMemory).toBe(false);
    expect(resolveConfig({}, { ...kolo, KOLO_SHM: '1' }).engine.sharedMemory).toBe(true);
  });

  it('the option wins over the environment', () => {
    expect(resolveConfig({ sharedMemory: false }, { ...kolo, KOLO_SHM: '1' }).engine.sharedMemory).toBe(false);
    expect(resolveConfig({ sharedMemory: true }, { ...kolo, KOLO_SHM: '0' }).engine.sharedMemory).toBe(true);
  });

  it('rejects a non-boolean option with the standard message', () => {
    expect(message(() => resolveConfig({ sharedMemory: 'no' as never }, kolo))).toBe(
      "Expected a boolean for sharedMemory but received 'no'",
    );
  });
});

describe('singleCopy: option > KOLO_SHM_SINGLE_COPY > auto', () => {
  it('is auto by default; the variable takes auto, on, off, 1 and 0', () => {
    expect(resolveConfig({}, kolo).engine.singleCopy).toBe('auto');
    const env = (value: string) => resolveConfig({}, { ...kolo, KOLO_SHM_SINGLE_COPY: value }).engine.singleCopy;
    expect(['auto', 'on', 'OFF', '1', '0'].map(env)).toEqual(['auto', 'on', 'off', 'on', 'off']);
  });

  it('the option wins over the environment', () => {
    expect(resolveConfig({ singleCopy: 'off' }, { ...kolo, KOLO_SHM_SINGLE_COPY: 'on' }).engine.singleCopy).toBe('off');
  });

  it('rejects anything else, naming where it came from', () => {
    expect(message(() => resolveConfig({}, { ...kolo, KOLO_SHM_SINGLE_COPY: 'yes' }))).toBe(
      "Expected 'auto', 'on', 'off', '1' or '0' for KOLO_SHM_SINGLE_COPY but received 'yes'",
    );
    expect(message(() => resolveConfig({ singleCopy: true as never }, kolo))).toBe(
      "Expected 'auto', 'on' or 'off' for singleCopy but received true",
    );
  });
});
