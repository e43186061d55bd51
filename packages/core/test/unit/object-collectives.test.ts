import { afterEach, describe, expect, it } from 'vitest';
import {
  allgatherObject,
  allgatherObjectSync,
  broadcastObject,
  broadcastObjectSync,
  init,
  shutdown,
} from '../../src/index.js';
import { useCleanEnv } from './clean-env.js';
import { createFakeBinding, fakeConstants, type FakeBinding } from './fake-binding.js';

useCleanEnv();
afterEach(() => shutdown());

const store = { kind: 'file', path: '/tmp/kolo-unit' } as const;
const value = { epoch: 3, lr: 0.01, tags: ['a', 'ü'], nested: { ok: true, none: null } };

async function start(topology = { rank: 0, size: 1 }): Promise<FakeBinding> {
  const binding = createFakeBinding();
  await init({ binding, store, ...topology });
  return binding;
}

describe('broadcastObject', () => {
  it('round-trips a value as length then bytes', async () => {
    const binding = await start();
    const result = await broadcastObject(value, { root: 0 });
    expect(result).toEqual(value);
    expect(result).not.toBe(value);
    const requests = binding.calls.map((c) => c.requests[0]);
    expect(requests.map((r) => r?.name)).toEqual([
      'broadcast_object.noname.0.length',
      'broadcast_object.noname.0.data',
    ]);
    expect(requests.map((r) => r?.dtype)).toEqual([
      fakeConstants.dtypes.int32,
      fakeConstants.dtypes.uint8,
    ]);
    expect(requests[1]?.shape).toEqual([new TextEncoder().encode(JSON.stringify(value)).length]);
    expect(broadcastObjectSync([1, 'x'], { root: 0, name: 'cfg' })).toEqual([1, 'x']);
    expect(binding.calls[2]?.requests[0]?.name).toBe('cfg.length');
  });

  it('validates root before sending anything', async () => {
    const binding = await start({ rank: 0, size: 2 });
    expect(() => broadcastObject(value, { root: 2 })).toThrow(
      'Expected an integer in [0, 1] for root but received 2',
    );
    expect(binding.calls).toHaveLength(0);
  });
});

describe('allgatherObject', () => {
  it('returns every rank value in rank order', async () => {
    await start({ rank: 1, size: 3 });
    expect(await allgatherObject(value)).toEqual([value, value, value]);
    expect(allgatherObjectSync('é', { name: 'host' })).toEqual(['é', 'é', 'é']);
  });
});

describe('non-serializable values', () => {
  const what = 'Expected a JSON-serializable value (no functions, symbols, bigints or cycles)';
  const cyclic: Record<string, unknown> = {};
  cyclic['self'] = cyclic;

  it.each([
    [{ f: function step() {} }, `${what} for obj.f but received function step`],
    [{ n: 1n }, `${what} for obj.n but received 1n`],
    [[Symbol('s')], `${what} for obj.0 but received Symbol(s)`],
    [undefined, `${what} for obj but received undefined`],
    [cyclic, `${what} for obj but received an object`],
  ])('rejects %o with a TypeError', async (bad, text) => {
    const binding = await start();
    expect(() => allgatherObject(bad)).toThrow(TypeError);
    expect(() => allgatherObject(bad)).toThrow(text);
    expect(() => broadcastObject(bad, { root: 0 })).toThrow(text);
    expect(binding.calls).toHaveLength(0);
  });
});
