import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sharedMemoryTag, sweepSharedMemory } from '../src/shm-sweep.js';

describe('shared-memory sweep', () => {
  it('removes exactly the segments carrying this launcher\'s tag', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kolo-shm-'));
    for (const name of ['kolo-rabc123456-kolo-job-gen0-world-00ff', 'kolo-rabc123456-x', 'kolo-rabc1234567-other', 'kolo-kolo-job-gen0-world-11aa', 'unrelated']) {
      writeFileSync(join(dir, name), '');
    }
    expect(sweepSharedMemory('rabc123456', dir)).toEqual([
      join(dir, 'kolo-rabc123456-kolo-job-gen0-world-00ff'),
      join(dir, 'kolo-rabc123456-x'),
    ]);
    expect(readdirSync(dir).sort()).toEqual(['kolo-kolo-job-gen0-world-11aa', 'kolo-rabc1234567-other', 'unrelated']);
  });

  it('returns nothing when the directory does not exist', () => {
    expect(sweepSharedMemory('rabc123456', join(tmpdir(), 'kolo-no-such-dir-7f3a'))).toEqual([]);
  });

  it('makes letter-and-digit tags that differ between launchers', () => {
    expect(sharedMemoryTag(35)).toMatch(/^rz[0-9a-f]{6}$/);
    expect(sharedMemoryTag(35)).not.toBe(sharedMemoryTag(35));
  });
});
