import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/resolve-config.js';
import { detectLauncher } from '../../src/config/launcher-env.js';
import { message } from './thrown-message.js';

const kolo = {
  KOLO_RANK: '1',
  KOLO_SIZE: '4',
  KOLO_STORE_ADDR: '10.0.0.1',
  KOLO_STORE_PORT: '29400',
};

describe('topology', () => {
  it('detects launchers in order kolo, horovod, mpi, torchrun', () => {
    expect(detectLauncher({ KOLO_RANK: '0', HOROVOD_RANK: '0' })).toBe('kolo');
    expect(detectLauncher({ HOROVOD_SIZE: '2', OMPI_COMM_WORLD_RANK: '0' })).toBe('horovod');
    expect(detectLauncher({ PMI_RANK: '0', RANK: '0', WORLD_SIZE: '2' })).toBe('mpi');
    expect(detectLauncher({ RANK: '0', WORLD_SIZE: '2' })).toBe('torchrun');
    expect(detectLauncher({ RANK: '0' })).toBe('none');
    expect(detectLauncher({ KOLO_RANK: ' ' })).toBe('none');
  });

  it('reads all six fields from KOLO_*', () => {
    const env = {
      ...kolo,
      KOLO_RANK: '5',
      KOLO_SIZE: '8',
      KOLO_LOCAL_RANK: '1',
      KOLO_LOCAL_SIZE: '4',
      KOLO_CROSS_RANK: '1',
      KOLO_CROSS_SIZE: '2',
    };
    const { engine, launcher } = resolveConfig({}, env);
    expect(launcher).toBe('kolo');
    expect([
      engine.rank,
      engine.size,
      engine.localRank,
      engine.localSize,
      engine.crossRank,
      engine.crossSize,
    ]).toEqual([5, 8, 1, 4, 1, 2]);
  });

  it('reads horovodrun variables', () => {
    const env = {
      HOROVOD_RANK: '3',
      HOROVOD_SIZE: '4',
      HOROVOD_LOCAL_RANK: '1',
      HOROVOD_LOCAL_SIZE: '2',
      HOROVOD_CROSS_RANK: '1',
      HOROVOD_CROSS_SIZE: '2',
      KOLO_STORE_PATH: '/shared/s',
    };
    expect(resolveConfig({}, env).engine).toMatchObject({
      rank: 3,
      size: 4,
      localRank: 1,
      localSize: 2,
      crossRank: 1,
      crossSize: 2,
    });
  });

  it('derives local and cross fields when a launcher gives only some', () => {
    const env = {
      RANK: '5',
      WORLD_SIZE: '8',
      LOCAL_RANK: '1',
      LOCAL_WORLD_SIZE: '4',
      MASTER_ADDR: 'n0',
      MASTER_PORT: '29500',
    };
    expect(resolveConfig({}, env).engine).toMatchObject({
      rank: 5,
      size: 8,
      localRank: 1,
      localSize: 4,
      crossRank: 1,
      crossSize: 2,
    });
    expect(resolveConfig({}, { ...kolo, KOLO_RANK: '3' }).engine).toMatchObject({
      localRank: 3,
      localSize: 4,
      crossRank: 0,
      crossSize: 1,
    });
  });

  it('accepts options that repeat the launcher, and refuses ones that contradict it', () => {
    expect(resolveConfig({ rank: Number(kolo.KOLO_RANK), size: 4 }, kolo).engine).toMatchObject({ size: 4 });
    expect(() => resolveConfig({ size: 3 }, kolo)).toThrow(
      'Expected size 4 as the launcher set it (KOLO_SIZE), or no size option for size but received 3',
    );
  });

  it.each([
    [{ KOLO_RANK: '4' }, "Expected an integer in [0, 3] for KOLO_RANK but received '4'"],
    [{ KOLO_RANK: 'one' }, "Expected an integer in [0, 3] for KOLO_RANK but received 'one'"],
    [{ KOLO_SIZE: '0' }, "Expected an integer >= 1 for KOLO_SIZE but received '0'"],
    [
      { KOLO_LOCAL_SIZE: '5' },
      "Expected an integer in [1, 4] for KOLO_LOCAL_SIZE but received '5'",
    ],
    [
      { KOLO_LOCAL_SIZE: '2', KOLO_LOCAL_RANK: '2' },
      "Expected an integer in [0, 1] for KOLO_LOCAL_RANK but received '2'",
    ],
    [
      { KOLO_CROSS_SIZE: '2', KOLO_CROSS_RANK: '-1' },
      "Expected an integer in [0, 1] for KOLO_CROSS_RANK but received '-1'",
    ],
    [
      { KOLO_CROSS_SIZE: '9' },
      "Expected an integer in [1, 4] for KOLO_CROSS_SIZE but received '9'",
    ],
  ])('validates %o', (env, text) => {
    expect(message(() => resolveConfig({}, { ...kolo, ...env }))).toBe(text);
  });

  it('names the variable of the launcher in use', () => {
    const env = {
      OMPI_COMM_WORLD_RANK: '2',
      OMPI_COMM_WORLD_SIZE: '2',
      OMPI_MCA_ess_base_jobid: '7',
    };
    expect(message(() => resolveConfig({}, env))).toBe(
      "Expected an integer in [0, 1] for OMPI_COMM_WORLD_RANK but received '2'",
    );
    expect(message(() => resolveConfig({ size: 2, rank: 2 }, {}))).toBe(
      'Expected an integer in [0, 1] for rank but received 2',
    );
  });
});
