// The NCCL transport on a build without it: asking for it fails with KOLO_UNSUPPORTED and says
// how to get it, at the addon and through init(). GPU runs live in test/gpu (scripts/gpu-check.sh).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { init, isInitialized } from '@kolo/core';
import { loadNative } from '../lib/index.js';

const native = loadNative();
const built = native.capabilities().transports.includes('nccl');

const notBuilt =
  'this build of Kolo has no NCCL transport (NCCL and the CUDA runtime were not found when @kolo/native was compiled); ' +
  'install them, e.g. `pip install --target /opt/kolo-nccl nvidia-nccl-cu12 nvidia-cuda-runtime-cu12 nvidia-cuda-nvcc-cu12 nvidia-cuda-cccl-cu12`, ' +
  'and rebuild @kolo/native with KOLO_NCCL_HOME=/opt/kolo-nccl (`npx cmake-js rebuild` in its folder; scripts/gpu-check.sh does both), ' +
  'or use KOLO_TRANSPORT=gloo';

describe.skipIf(built)('the NCCL transport in a build without NCCL', () => {
  it('is not listed by capabilities()', () => {
    expect(native.capabilities().transports).not.toContain('nccl');
  });

  it('makes startEngine reject with KOLO_UNSUPPORTED and the way to build it', async () => {
    const start = native.startEngine({
      rank: 0, size: 1, localRank: 0, localSize: 1, crossRank: 0, crossSize: 1,
      store: { kind: 'file', path: mkdtempSync(join(tmpdir(), 'kolo-nccl-')) },
      storePrefix: 'nccl-test', hostname: '127.0.0.1', iface: '', cycleTimeMs: 1, fusionThresholdBytes: 1 << 20, cacheCapacity: 1024, timeoutMs: 10_000,
      hierarchicalAllreduce: false, sharedMemory: false, transport: 'nccl', gpuDevice: -1, stallCheckMs: 0, stallShutdownMs: 0, timelinePath: '', timelineMarkCycles: false,
    });
    await expect(start).rejects.toMatchObject({ code: 'KOLO_UNSUPPORTED', message: notBuilt });
  });

  it("makes init({ transport: 'nccl' }) reject with an UnsupportedError and leaves Kolo uninitialized", async () => {
    await expect(init({ transport: 'nccl' })).rejects.toMatchObject({
      name: 'UnsupportedError',
      code: 'KOLO_UNSUPPORTED',
      message: `init failed on rank 0: ${notBuilt}. capabilities() lists what this build supports.`,
    });
    expect(isInitialized()).toBe(false);
  });
});
