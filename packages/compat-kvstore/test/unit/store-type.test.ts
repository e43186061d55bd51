import { describe, expect, it } from 'vitest';
import { create, parseStoreType } from '../../src/index.js';

describe('parseStoreType', () => {
  it.each([
    ['local', 'local', 'local'],
    ['Device', 'device', 'device'],
    ['dist_sync', 'dist_sync', 'dist'],
    ['dist_device_sync', 'dist_device_sync', 'dist'],
    ['dist_sync_device', 'dist_sync_device', 'dist'],
    ['dist_sync_kolo', 'dist_sync_kolo', 'dist'],
    ['dist_sync_perseus', 'dist_sync_perseus', 'dist'],
    ['dist-sync-perseus', 'dist_sync_perseus', 'dist'],
    ['horovod', 'horovod', 'horovod'],
  ])('reads %s as type %s of kind %s', (input, name, kind) => {
    expect(parseStoreType(input)).toEqual({ name, kind });
  });

  const asyncText =
    "Kolo has no parameter server, so nothing can apply each worker's push as it arrives. Use 'dist_sync_kolo' (synchronous: every worker applies the optimizer to the summed gradient).";
  it.each([
    ['dist_async', `kvstore type 'dist_async' is not supported: ${asyncText}`],
    ['dist_device_async', `kvstore type 'dist_device_async' is not supported: ${asyncText}`],
    [
      'nccl',
      "kvstore type 'nccl' is not supported: Kolo runs one process per device. Use 'dist_sync_kolo' under kolorun (one process per device), or 'device' to sum several values per key in one process.",
    ],
    [
      'byteps',
      "kvstore type 'byteps' is not supported: Kolo has no BytePS servers. Use 'dist_sync_kolo' (synchronous: every worker applies the optimizer to the summed gradient), or 'horovod' for MXNet's Horovod store.",
    ],
  ])('rejects %s with an UnsupportedError that names the alternative', (input, message) => {
    expect(() => parseStoreType(input)).toThrow(expect.objectContaining({ name: 'UnsupportedError', code: 'KOLO_UNSUPPORTED', message }));
  });

  it('suggests the closest name for a misspelt type', () => {
    expect(() => parseStoreType('dist_snyc')).toThrow(
      expect.objectContaining({
        name: 'TypeError',
        code: 'ERR_KOLO_INVALID_ARG',
        message:
          "Expected one of 'local', 'device', 'dist_sync', 'dist_device_sync', 'dist_sync_device', 'dist_sync_kolo', 'dist_sync_perseus', 'horovod' for kvstore type but received 'dist_snyc'; did you mean 'dist_sync'?",
      }),
    );
  });

  it('rejects a name that is not a string, as MXNet does', () => {
    expect(() => parseStoreType(3)).toThrow(
      expect.objectContaining({ name: 'TypeError', code: 'ERR_KOLO_INVALID_ARG', message: 'Expected a string for kvstore type but received 3' }),
    );
  });

  it('create throws at once for an unsupported type, before starting anything', () => {
    expect(() => create('dist_async')).toThrow(expect.objectContaining({ name: 'UnsupportedError' }));
  });
});
