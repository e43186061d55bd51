import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/index.js';

const single = { KOLO_RANK: '0', KOLO_SIZE: '1', KOLO_STORE_PATH: '/tmp/kolo-gpu-device' };
const gpuDevice = (options: object, env: Record<string, string>): number => resolveConfig(options, { ...single, ...env }).engine.gpuDevice;

describe('the NCCL device (gpuDevice / KOLO_GPU_DEVICE)', () => {
  it('defaults to -1, which the engine reads as the local rank modulo the visible devices', () => {
    expect(gpuDevice({}, {})).toBe(-1);
  });

  it('reads KOLO_GPU_DEVICE, and the option over it', () => {
    expect(gpuDevice({}, { KOLO_GPU_DEVICE: '3' })).toBe(3);
    expect(gpuDevice({ gpuDevice: 1 }, { KOLO_GPU_DEVICE: '3' })).toBe(1);
  });

  it('refuses negative or non-integer devices, naming where the value came from', () => {
    expect(() => gpuDevice({}, { KOLO_GPU_DEVICE: '-1' })).toThrow("Expected an integer >= 0 for KOLO_GPU_DEVICE but received '-1'");
    expect(() => gpuDevice({ gpuDevice: 0.5 }, {})).toThrow('Expected an integer >= 0 for gpuDevice but received 0.5');
  });
});
