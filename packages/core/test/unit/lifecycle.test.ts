import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePortPair } from '../../../../test-support/ports.js';
import {
  NotInitializedError,
  TimeoutError,
  allreduce,
  capabilities,
  crossRank,
  crossSize,
  init,
  isInitialized,
  localRank,
  localSize,
  rank,
  shutdown,
  size,
} from '../../src/index.js';
import { setBindingForTesting } from '../../src/runtime/binding-source.js';
import { useCleanEnv } from './clean-env.js';
import { createFakeBinding, nativeError } from './fake-binding.js';

useCleanEnv();
afterEach(async () => {
  await shutdown();
  setBindingForTesting(undefined);
});

const store = { kind: 'file', path: '/tmp/kolo-unit' } as const;

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

describe('before init', () => {
  it('topology getters and collectives throw NotInitializedError', () => {
    for (const getter of [rank, size, localRank, localSize, crossRank, crossSize]) {
      expect(getter).toThrow(NotInitializedError);
    }
    expect(() => rank()).toThrow('Kolo has not been initialized; call init() first.');
    expect(() => allreduce(new Float32Array(1))).toThrow(NotInitializedError);
    expect(isInitialized()).toBe(false);
  });

  it('capabilities() works without init', () => {
    setBindingForTesting(createFakeBinding());
    expect(capabilities().transports).toEqual(['fake']);
  });
});

describe('init and shutdown', () => {
  it('starts the engine with the resolved config and exposes the topology', async () => {
    const binding = createFakeBinding();
    await init({ binding, rank: 5, size: 8, localRank: 1, localSize: 4, store, cycleTimeMs: 2 });
    expect(isInitialized()).toBe(true);
    expect([rank(), size(), localRank(), localSize(), crossRank(), crossSize()]).toEqual([
      5, 8, 1, 4, 1, 2,
    ]);
    expect(binding.started).toHaveLength(1);
    expect(binding.started[0]).toMatchObject({
      store,
      cycleTimeMs: 2,
      fusionThresholdBytes: 134217728,
      callerCycles: true,
    });
    expect(binding.started[0]?.storePrefix).toMatch(/^kolo\/local\/gen\d+$/);
  });

  it('a second init with the same options resolves without re-initializing', async () => {
    const binding = createFakeBinding();
    await init({ binding, store, size: 1 });
    await init({ store, binding, size: 1 });
    expect(binding.started).toHaveLength(1);
  });

  it('a second init with different options throws', async () => {
    const binding = createFakeBinding();
    await init({ binding, store });
    expect(() => init({ binding, store, cycleTimeMs: 5 })).toThrow(
      'Kolo is already initialized with different options; call shutdown() before init() with new options.',
    );
  });

  it('throws synchronously on invalid options', () => {
    expect(() => init({ binding: createFakeBinding(), rnak: 1 } as never)).toThrow(
      "Unknown option 'rnak' for init; did you mean 'rank'?",
    );
    expect(() => init({ binding: createFakeBinding(), size: 0 })).toThrow(
      'Expected an integer >= 1 for size but received 0',
    );
  });

  it('shutdown is idempotent, stops the engine and allows a new generation', async () => {
    const binding = createFakeBinding();
    await init({ binding, store });
    const first = binding.started[0]?.storePrefix;
    await Promise.all([shutdown(), shutdown()]);
    await shutdown();
    expect(binding.shutdowns).toBe(1);
    expect(isInitialized()).toBe(false);
    expect(() => size()).toThrow(NotInitializedError);
    await init({ binding, store });
    const generation = (prefix?: string) => Number(prefix?.replace(/.*gen/, ''));
    expect(generation(binding.started[1]?.storePrefix)).toBe(generation(first) + 1);
  });

  it('removes the temporary store directory of a lone process at shutdown', async () => {
    const binding = createFakeBinding();
    await init({ binding });
    const started = binding.started[0]?.store;
    const path = started?.kind === 'file' ? started.path : '';
    expect(existsSync(path)).toBe(true);
    await shutdown();
    expect(existsSync(path)).toBe(false);
  });

  it('maps a failed start to a KoloError and stays uninitialized', async () => {
    const binding = createFakeBinding();
    binding.startError = nativeError('KOLO_TIMEOUT', 'Wait timeout for key(s): kolo/local/gen0/1');
    const error = await init({ binding, store }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toBe(
      'init failed on rank 0: Wait timeout for key(s): kolo/local/gen0/1. Check that every rank ' +
        'submits the same collectives, or raise timeoutMs (KOLO_TIMEOUT_SECONDS).',
    );
    expect(isInitialized()).toBe(false);
  });

  it('under torchrun, rank 0 hosts the store until shutdown', async () => {
    // A random port could be taken (CI runs test files in parallel): ask the OS for a free pair.
    const masterPort = await freePortPair();
    Object.assign(process.env, {
      RANK: '0',
      WORLD_SIZE: '1',
      MASTER_ADDR: '127.0.0.1',
      MASTER_PORT: String(masterPort),
    });
    const binding = createFakeBinding();
    await init({ binding });
    expect(binding.started[0]?.store).toEqual({
      kind: 'tcp',
      host: '127.0.0.1',
      port: masterPort + 1,
      secret: `torchrun:127.0.0.1:${masterPort}:`,
    });
    expect(await canConnect(masterPort + 1)).toBe(true);
    // The store runs on its own thread, so the JS thread may still run cycles (and block in them).
    expect(binding.started[0]?.callerCycles).toBe(true);
    await shutdown();
    expect(await canConnect(masterPort + 1)).toBe(false);
  });
});
