// The NCCL path built without a GPU by scripts/nccl-build-check.sh (part of `npm test`): the addon
// in build-nccl must link, list 'nccl', and refuse an NCCL engine for want of a GPU, saying so.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const addon = fileURLToPath(new URL('../build-nccl/Release/kolo_native.node', import.meta.url));
const probe = fileURLToPath(new URL('./fixtures/nccl-probe.mjs', import.meta.url));
const hasGpu = existsSync('/dev/nvidia0');

describe.skipIf(!existsSync(addon))('the NCCL build (scripts/nccl-build-check.sh)', () => {
  it('lists nccl next to gloo and mpi', () => {
    const result = JSON.parse(execFileSync(process.execPath, [probe, addon], { encoding: 'utf8' })) as { transports: string[] };
    expect(result.transports).toEqual(['gloo', 'mpi', 'nccl']);
  });

  it.skipIf(hasGpu)('refuses to start an NCCL engine without a GPU, naming the fix', () => {
    const result = JSON.parse(execFileSync(process.execPath, [probe, addon], { encoding: 'utf8' })) as { code: string; message: string };
    expect(result.code).toBe('KOLO_UNSUPPORTED');
    expect(result.message).toMatch(
      /^the NCCL transport needs a CUDA GPU, but none is visible to this process \(.+\); check the driver, nvidia-smi and CUDA_VISIBLE_DEVICES, or use KOLO_TRANSPORT=gloo$/,
    );
  });
});
