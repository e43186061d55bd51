// What the one-rank enqueueBatch and packBatch tests share: the addon, a request with defaults, a
// batch's fields as arguments, a one-rank engine and a batch run to completion.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { loadNative, type NativeCall, type NativeEngine, type NativeEngineConfig, type NativeRequest } from '../lib/index.js';

export const native = loadNative();
export const { dtypes, requestTypes, reduceOps } = native.constants;

export function request(over: Partial<NativeRequest> & Pick<NativeRequest, 'type' | 'name'>): NativeRequest {
  return { dtype: dtypes['float32']!, shape: [], reduceOp: reduceOps['sum']!, root: 0, prescale: 1, postscale: 1, splits: [], ...over };
}

/** A batch's fields as the addon's packed methods take them: as arguments, in order. */
export function fields(b: { numbers: unknown; names: unknown; arrays: unknown }): [unknown, unknown, unknown] {
  return [b.numbers, b.names, b.arrays];
}

/** The config of a one-rank engine over Gloo, or over shared memory with `sharedMemory`. */
export function oneRankConfig(prefix: string, { sharedMemory = false } = {}): NativeEngineConfig {
  return {
    rank: 0, size: 1, localRank: 0, localSize: 1, crossRank: 0, crossSize: 1,
    store: { kind: 'file', path: mkdtempSync(join(tmpdir(), 'kolo-batch-')) },
    storePrefix: prefix, hostname: '127.0.0.1', iface: '', cycleTimeMs: 1, fusionThresholdBytes: 1 << 20, timeoutMs: 10_000,
    ...(sharedMemory ? { sharedMemory } : {}),
  };
}

/** A one-rank engine over Gloo, or over shared memory with `sharedMemory`. */
export function start(prefix: string, options: { sharedMemory?: boolean } = {}): Promise<NativeEngine> {
  return native.startEngine(oneRankConfig(prefix, options));
}

/** Runs one batch; resolves with every call's outcome by index and which ones settled at once. */
export function run(engine: NativeEngine, calls: NativeCall[]): Promise<{ outcomes: unknown[]; atOnce: number[] }> {
  return new Promise((resolve) => {
    const outcomes: unknown[] = [];
    let settled = 0;
    let returned = false;
    const atOnce: number[] = [];
    engine.enqueueBatch(calls, (indices, results, done, count) => {
      // The addon always says how many it settles (its `indices` is reused, and may be longer).
      expect(count).toBeTypeOf('number');
      Array.from(indices).slice(0, count).forEach((index, i) => {
        outcomes[index] = results[i] ?? done;
        if (!returned) atOnce.push(index);
      });
      settled += count ?? 0;
      if (settled === calls.length) resolve({ outcomes, atOnce });
    });
    returned = true;
  });
}
