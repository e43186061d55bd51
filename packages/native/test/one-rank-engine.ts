// What the one-rank enqueueBatch and packBatch tests share: the addon, a request with defaults, a
// batch's fields as arguments, a one-rank engine and a batch run to completion.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { allCallsDone, loadNative, type NativeCall, type NativeEngine, type NativeEngineConfig, type NativeRequest, type NativeSettle } from '../lib/index.js';

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

/**
 * What {@link run} resolves with; `token` is what enqueueBatch returned (kept batches); `allDone`:
 * a repeat answered allCallsDone (every call done inside it, the settle function not called).
 */
export interface BatchOutcomes {
  readonly outcomes: unknown[];
  readonly atOnce: number[];
  readonly token: number | undefined;
  readonly allDone: boolean;
}

/**
 * Runs one batch (with `keep`, asking the engine to keep it); resolves with every call's outcome
 * by index and which ones settled at once. With `repeat`, queues the batch kept under that token
 * instead: `calls` then only says how many calls it has.
 */
export function run(engine: NativeEngine, calls: NativeCall[], { keep = false, repeat }: { keep?: boolean; repeat?: number } = {}): Promise<BatchOutcomes> {
  return new Promise((resolve, reject) => {
    const outcomes: unknown[] = [];
    let settled = 0;
    let returned = false;
    let token: number | undefined;
    const atOnce: number[] = [];
    const settle: NativeSettle = (indices, results, done, count) => {
      // The addon always says how many it settles (its `indices` is reused, and may be longer).
      expect(count).toBeTypeOf('number');
      Array.from(indices).slice(0, count).forEach((index, i) => {
        outcomes[index] = results[i] ?? done;
        if (!returned) atOnce.push(index);
      });
      settled += count ?? 0;
      // Resolved once enqueueBatch returned (with the token), even when every call settled in it.
      if (settled === calls.length && returned) resolve({ outcomes, atOnce, token, allDone: false });
    };
    let allDone = false;
    if (repeat === undefined) {
      token = engine.enqueueBatch(calls, settle, keep);
    } else {
      const queued = engine.enqueueRepeat!(repeat, settle);
      if (queued === false) reject(new Error(`the engine keeps no batch under token ${repeat}`));
      if (queued === allCallsDone) {
        expect(settled).toBe(0);
        calls.forEach((_, index) => {
          outcomes[index] = [{}];
          atOnce.push(index);
        });
        settled = calls.length;
        allDone = true;
      }
    }
    returned = true;
    if (settled === calls.length) resolve({ outcomes, atOnce, token, allDone });
  });
}
