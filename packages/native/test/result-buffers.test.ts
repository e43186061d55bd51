// Large allgather results arrive exact in new ArrayBuffers, and results dropped by the hundred in
// a synchronous loop (no turn of the event loop) are freed by the collector alone: 200 results of
// 2 MiB held until a later turn, as buffers with a Node-API finalizer would be, are 400 MiB.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NativeEngine } from '../lib/index.js';
import { dtypes, request, requestTypes, start } from './one-rank-engine.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

describe('large allgather results', () => {
  let engine: NativeEngine;
  beforeAll(async () => {
    engine = await start('result-buffers');
  });
  afterAll(async () => {
    await engine.shutdown();
  });

  it('arrive exact and are freed once collected, with no turn of the event loop', () => {
    const input = Float32Array.from({ length: 512 * 1024 }, (_, i) => i);
    const gather = (i: number) =>
      engine.enqueueSync([request({ type: requestTypes['allgather']!, name: `big.${i}`, dtype: dtypes['float32']!, shape: [input.length], input })], false)[0]!;
    const first = new Float32Array(gather(0).data!);
    let wrong = first.length === input.length ? 0 : -1;
    for (let i = 0; i < first.length; i++) wrong += first[i] === i ? 0 : 1;
    expect(wrong).toBe(0);
    gc();
    const before = process.memoryUsage().rss;
    for (let i = 1; i <= 200; i++) {
      expect(gather(i).data!.byteLength).toBe(2 << 20);
      if (i % 10 === 0) gc();
    }
    gc();
    const grownMiB = (process.memoryUsage().rss - before) / (1 << 20);
    expect(grownMiB).toBeLessThan(150);
  });
});
