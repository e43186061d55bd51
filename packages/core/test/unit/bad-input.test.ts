import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { allreduce, broadcast, init, resolveConfig, shutdown } from '../../src/index.js';
import { setBindingForTesting } from '../../src/runtime/binding-source.js';
import { useCleanEnv } from './clean-env.js';
import { createFakeBinding } from './fake-binding.js';

useCleanEnv();
beforeEach(async () => {
  const fake = createFakeBinding();
  await init({ binding: fake, store: { kind: 'file', path: '/tmp/kolo-bad-input' } });
});
afterEach(async () => {
  await shutdown();
  setBindingForTesting(undefined);
});

describe('bad input at the TS edge', () => {
  it('refuses an array whose buffer was transferred away', () => {
    const buffer = new ArrayBuffer(8);
    const data = new Float32Array(buffer);
    structuredClone(buffer, { transfer: [buffer] });
    expect(() => allreduce(data)).toThrow(
      "Expected an array whose buffer is still attached (it was transferred or structuredClone()d away; pass a fresh array) for data but received 'a detached buffer'",
    );
  });

  it('refuses names past 1,024 characters, which would travel every cycle', () => {
    expect(() => allreduce(new Float32Array(1), { name: 'n'.repeat(1025) })).toThrow(
      "Expected a name of at most 1024 characters for name but received 'nnnnnnnnnnnnnnnnnnnn… (1025 characters)'",
    );
  });

  it('refuses shapes that disagree with the data, however large', () => {
    expect(() => allreduce(new Float32Array(2), { shape: [2 ** 40, 2 ** 40] })).toThrow(RangeError);
  });

  it('refuses non-integer and out-of-range roots', () => {
    expect(() => broadcast(new Float32Array(1), { root: 0.5 })).toThrow('Expected an integer in [0, 0] for root but received 0.5');
    expect(() => broadcast(new Float32Array(1), { root: -1 })).toThrow('Expected an integer in [0, 0] for root but received -1');
  });

  it('accepts NaN and infinities and SharedArrayBuffer-backed arrays', async () => {
    const shared = new Float32Array(new SharedArrayBuffer(12));
    shared.set([NaN, Infinity, -Infinity]);
    const out = await allreduce(shared, { op: 'sum' });
    expect(Array.from(out)).toEqual([NaN, Infinity, -Infinity]);
  });
});

describe('init options that disagree with the launcher', () => {
  it('names the variable the launcher set', () => {
    const env = { KOLO_RANK: '1', KOLO_SIZE: '2', KOLO_STORE_PATH: '/tmp/kolo-x' };
    expect(() => resolveConfig({ size: 3 }, env)).toThrow('Expected size 2 as the launcher set it (KOLO_SIZE), or no size option for size but received 3');
    expect(resolveConfig({ size: 2, rank: 1 }, env).engine.size).toBe(2);
  });
});
